"""Challenge rules outside the simulator (rules.engine.challenges), and the simulator following
them. Ruling "Stealth at set-up" in docs/rulings.md."""

from __future__ import annotations

import random

import pytest

from rules.engine.challenges import BRAWL_WINNING_SCORE, SetupStealth, setup_stealth, starts_in_stealth
from rules.engine.simulation import AGGRESSIVE
from rules.engine.simulator import CHALLENGES, simulate_match
from tests.rules.test_engine_simulator import IKA, TORA, make_team


@pytest.mark.parametrize("slug", ["infiltration", "search"])
def test_infiltration_and_search_every_non_sentry_model_starts_in_stealth(slug):
    """Rulebook (lines 597, 610): "All models start the game in Stealth."; challenges wiki (lines 70,
    85): "All non-sentry models start the game in Stealth." Ruling: the wiki. Every model of every
    team starts in Stealth, large bases too; a sentry does not."""
    assert setup_stealth(slug) is SetupStealth.NON_SENTRY
    assert starts_in_stealth(slug)
    assert starts_in_stealth(slug, large_base=True)
    assert not starts_in_stealth(slug, sentry=True)


@pytest.mark.parametrize("slug", ["intercept-the-messenger", "king-of-the-hill", "capture-the-medal"])
def test_small_base_models_start_in_stealth(slug):
    """ "Setup: All small-base models start the game in Stealth." """
    assert starts_in_stealth(slug) and not starts_in_stealth(slug, large_base=True)
    assert starts_in_stealth(slug, keywords={"Sneaky"}, large_base=True)


@pytest.mark.parametrize("slug", ["assassination", "champion", "brawl", None])
def test_otherwise_only_sneaky_models_start_in_stealth(slug):
    """Sneaky: "A model with Sneaky begins the game in Stealth, regardless of the challenge's special
    rules." """
    assert setup_stealth(slug) is SetupStealth.NONE
    assert not starts_in_stealth(slug, keywords={"Nimble"})
    assert starts_in_stealth(slug, keywords=frozenset({"Sneaky"}))


def test_every_challenge_of_the_simulator_has_a_setup_rule():
    assert {slug: setup_stealth(slug) for slug in CHALLENGES} == {
        "assassination": SetupStealth.NONE,
        "intercept-the-messenger": SetupStealth.SMALL_BASE,
        "champion": SetupStealth.NONE,
        "king-of-the-hill": SetupStealth.SMALL_BASE,
        "infiltration": SetupStealth.NON_SENTRY,
        "brawl": SetupStealth.NONE,
        "search": SetupStealth.NON_SENTRY,
        "capture-the-medal": SetupStealth.SMALL_BASE,
    }


def stealth_lines(slug: str, seeds: range, side_policies=None) -> int:
    """Log lines about Stealth (a model losing it, searching for hidden enemies) over some games."""
    lines = 0
    for seed in seeds:
        teams = [make_team(1, TORA), make_team(2, IKA)]
        result = simulate_match(teams, CHALLENGES[slug], rng=random.Random(seed), side_policies=side_policies)
        lines += sum("Stealth" in line or "search" in line for line in result.log)
    return lines


def test_the_simulator_follows_the_setup_ruling():
    """Neither team has Sneaky, and the aggressive policy never goes into Stealth (the cautious one
    may, as an action: issue 18): in a Brawl between aggressive players no model is ever in Stealth;
    in Infiltration and Search every model starts in it, and loses it (or is searched for) as the
    game goes on."""
    assert stealth_lines("brawl", range(6), side_policies=[AGGRESSIVE, AGGRESSIVE]) == 0
    assert stealth_lines("search", range(6)) > 0
    assert stealth_lines("infiltration", range(6)) > 0


def test_brawl_winning_score():
    """Brawl: "If one team scores nine points, it wins immediately and the challenge is over." """
    assert BRAWL_WINNING_SCORE == 9
