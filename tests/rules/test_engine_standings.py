"""The league table's order (rules.engine.standings), no database."""

from __future__ import annotations

import pytest

from rules.engine.standings import (
    TIE_BREAKER_LABELS,
    Standing,
    TieBreaker,
    head_to_head_groups,
    parse_tie_breakers,
    rank,
)


def s(team_id, name, points, pf=0, pa=0, won=0, rating=10):
    return Standing(team_id, name, points, points_for=pf, points_against=pa, won=won, rating=rating)


def order(standings, tie_breakers, h2h=None):
    return [x.name for x in rank(standings, tie_breakers, head_to_head=h2h)]


TABLE = [
    s(1, "Apes", 6, pf=10, pa=4, won=2, rating=12),
    s(2, "bats", 6, pf=12, pa=6, won=2, rating=11),
    s(3, "Cats", 6, pf=8, pa=2, won=1, rating=14),
    s(4, "Dogs", 9, pf=5, pa=5, won=3, rating=10),
]


@pytest.mark.parametrize(
    "tie_breakers, expected",
    [
        ([], ["Dogs", "Apes", "bats", "Cats"]),  # level teams by name, case-insensitive
        (["points_difference"], ["Dogs", "Apes", "bats", "Cats"]),  # Apes +6, bats +6, Cats +6
        (["points_for"], ["Dogs", "bats", "Apes", "Cats"]),
        (["wins", "points_for"], ["Dogs", "bats", "Apes", "Cats"]),
        (["team_rating_low"], ["Dogs", "bats", "Apes", "Cats"]),
        ([TieBreaker.WINS, TieBreaker.TEAM_RATING_LOW], ["Dogs", "bats", "Apes", "Cats"]),
    ],
)
def test_points_then_each_tie_breaker_in_turn(tie_breakers, expected):
    assert order(TABLE, tie_breakers) == expected


def test_head_to_head_counts_only_games_between_the_teams_still_level():
    h2h = {(1, 2): 3, (2, 1): 0, (2, 3): 3, (3, 2): 0, (3, 1): 3, (1, 3): 0, (1, 4): 6}
    # three-way tie on 3 points each among themselves: head-to-head does not separate them, wins do
    assert order(TABLE, ["head_to_head", "wins"], h2h) == ["Dogs", "Apes", "bats", "Cats"]
    two = [x for x in TABLE if x.team_id in (1, 2)]
    assert order(two, ["head_to_head"], h2h) == ["Apes", "bats"]
    assert order(two, ["head_to_head"], {(2, 1): 3}) == ["bats", "Apes"]


def test_an_unknown_tie_breaker_raises():
    """It used to rank nobody, silently (issue 12)."""
    with pytest.raises(ValueError, match="unknown tie-breaker 'luck'"):
        rank(TABLE, ["points_for", "luck"])
    with pytest.raises(ValueError):
        parse_tie_breakers(["head-to-head"])


def test_every_tie_breaker_has_a_label():
    assert set(TIE_BREAKER_LABELS) == set(TieBreaker)
    assert TieBreaker("wins").label == "Games won"


def test_head_to_head_groups_are_the_teams_level_before_it():
    assert head_to_head_groups(TABLE, ["points_for"]) == []  # no head-to-head: nothing to read
    assert head_to_head_groups(TABLE, ["head_to_head"]) == [frozenset({1, 2, 3})]  # level on points
    assert head_to_head_groups(TABLE, ["points_difference", "head_to_head"]) == [frozenset({1, 2, 3})]
    assert head_to_head_groups(TABLE, ["wins", "head_to_head"]) == [frozenset({1, 2})]
    assert head_to_head_groups(TABLE, ["points_for", "head_to_head"]) == []  # nobody level any more
    # head-to-head over only these groups' games orders the table as over the whole season's
    h2h = {(1, 2): 3, (2, 1): 0, (3, 4): 3, (4, 3): 0, (2, 3): 3, (3, 2): 0}
    groups = head_to_head_groups(TABLE, ["wins", "head_to_head"])
    within = {pair: v for pair, v in h2h.items() if any(set(pair) <= g for g in groups)}
    assert order(TABLE, ["wins", "head_to_head"], within) == order(TABLE, ["wins", "head_to_head"], h2h)
