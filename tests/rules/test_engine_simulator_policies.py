"""Policy levels (rules.engine.simulation.policy.SidePolicy): the better player beats the weaker one
over many seeded games, and the Wilson interval the experiments use."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rules.engine.simulation import AGGRESSIVE, CAUTIOUS, CHALLENGES, LEVELS, simulate_match
from rules.engine.stats import wilson_interval
from tests.rules.simulator_rosters import sim_team

TORA = [
    ("tora-chunin", 1, "Tiger Strike", {}),
    ("tora-kaiken", 4, None, {}),
    ("tora-yajiri", 1, None, {}),
    ("tora-madoushi", 1, "Metal to Dust", {}),
    ("tora-kunoichi", 1, None, {}),
]


def test_wilson_interval_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_levels_by_name():
    assert LEVELS == {"cautious": CAUTIOUS, "aggressive": AGGRESSIVE}


def test_the_cautious_player_beats_the_aggressive_one_in_search():
    """Same rosters, sides alternate: the cautious level (stays on the crates unless a fight is worth
    more than an Injury, hides when it would be charged) wins more Searches than the aggressive one
    (leaves any objective for a fight): its share of the decided games has a 95% Wilson interval
    above one half."""
    tally = Counter()
    for g in range(60):
        cautious_first = g % 2 == 0
        teams = [sim_team(1, TORA), sim_team(2, TORA)]
        levels = [CAUTIOUS, AGGRESSIVE] if cautious_first else [AGGRESSIVE, CAUTIOUS]
        result = simulate_match(teams, CHALLENGES["search"], rng=random.Random(90_000 + g), side_policies=levels)
        tally[result.record.outcome_for(1 if cautious_first else 2)] += 1
    low, _high = wilson_interval(tally["win"], tally["win"] + tally["loss"])
    assert low > 0.5, tally
