"""The house rules as one frozen value (rules.engine.house_rules.HouseRules): the same rules, the
same defaults, as the models that store them."""

from __future__ import annotations

import dataclasses

import pytest

from league.models import HouseRules as StoredHouseRules
from league.models import League
from rules.engine.house_rules import DiceMode, HouseRules
from rules.engine.postgame import PostgameRules
from rules.engine.standings import TieBreaker


def test_the_value_names_every_stored_rule_and_no_other():
    assert set(HouseRules.names()) == set(StoredHouseRules.HOUSE_RULE_FIELDS)


def test_the_defaults_are_the_models_defaults():
    stored = {
        f.name: f.get_default() for f in StoredHouseRules._meta.fields if f.name in StoredHouseRules.HOUSE_RULE_FIELDS
    }
    assert HouseRules.from_mapping(stored) == HouseRules()


def test_from_stored_values():
    rules = HouseRules.from_mapping(
        {"tie_breakers": "points_for, head_to_head", "dice_mode": "entered", "max_bonus_koban": 10}
    )
    assert rules.tie_breakers == (TieBreaker.POINTS_FOR, TieBreaker.HEAD_TO_HEAD)
    assert rules.dice_mode is DiceMode.ENTERED and rules.dice_entered
    assert rules.postgame() == PostgameRules(max_bonus_koban=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.max_bonus_koban = 6  # type: ignore[misc]
    with pytest.raises(TypeError):
        HouseRules.from_mapping({"max_bonus_kobans": 6})  # a misspelt rule is an error at once
    with pytest.raises(ValueError):
        HouseRules.from_mapping({"dice_mode": "thrown"})


@pytest.mark.django_db
def test_a_league_and_its_season_give_their_rules():
    from tests.factories import LeagueFactory

    league = LeagueFactory(revenue_win=12, dice_mode="entered", tie_breakers="points_for")
    rules = League.objects.get(pk=league.pk).rule_set()
    assert (rules.revenue_win, rules.dice_mode, rules.tie_breakers) == (12, DiceMode.ENTERED, (TieBreaker.POINTS_FOR,))
