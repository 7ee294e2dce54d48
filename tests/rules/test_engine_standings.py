"""The league table's order (rules.engine.standings), no database."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.engine.standings import (
    TIE_BREAKER_LABELS,
    Standing,
    TieBreaker,
    buchholz,
    head_to_head_groups,
    opponents_win_percentage,
    parse_tie_breakers,
    rank,
    win_percentage,
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


# --- strength of schedule (issue 13): Buchholz and opponents' win percentage ---------------------


def g(team_id, name, points, won=0, drawn=0, played=0, opponents=()):
    return Standing(team_id, name, points, won=won, drawn=drawn, played=played, opponents=tuple(opponents))


# A swiss event after three rounds (3 points a win, 1 a draw). Fox had a bye in round 3 (scored
# as a win: 3 points, no game, no opponent).
SWISS = [
    g(1, "Ant", 6, won=2, played=3, opponents=(2, 3, 4)),  # beat Bee, Cat; lost to Dog
    g(2, "Bee", 6, won=2, played=3, opponents=(1, 5, 6)),  # lost to Ant; beat Eel, Fox
    g(3, "Cat", 4, won=1, drawn=1, played=3, opponents=(1, 4, 5)),
    g(4, "Dog", 4, won=1, drawn=1, played=3, opponents=(1, 3, 6)),
    g(5, "Eel", 1, drawn=1, played=3, opponents=(2, 3, 6)),
    g(6, "Fox", 3, played=2, opponents=(2, 4)),  # lost both games, and a bye worth 3
]


def test_win_percentage_counts_a_draw_as_half_a_win():
    assert win_percentage(g(1, "x", 0, won=2, drawn=1, played=4)) == Fraction(5, 8)
    assert win_percentage(g(1, "x", 0)) == 0


def test_buchholz_sums_the_league_points_of_every_opponent_met():
    assert buchholz(SWISS) == {
        1: 6 + 4 + 4,
        2: 6 + 1 + 3,  # Fox's bye points count in its total
        3: 6 + 4 + 1,
        4: 6 + 4 + 3,
        5: 6 + 4 + 3,
        6: 6 + 4,  # the bye has no opponent
    }


def test_buchholz_counts_a_rematch_twice_and_a_team_that_left_as_zero():
    table = [g(1, "Ant", 3, opponents=(2, 2, 99)), g(2, "Bee", 5, opponents=(1, 1))]
    assert buchholz(table) == {1: 10, 2: 6}


def test_opponents_win_percentage_is_the_mean_over_games_exactly():
    owp = opponents_win_percentage(SWISS)
    # Ant met Bee (2/3), Cat (1.5/3) and Dog (1.5/3)
    assert owp[1] == (Fraction(2, 3) + Fraction(1, 2) + Fraction(1, 2)) / 3
    # Fox played two games (the bye is not one): Bee 2/3, Dog 1/2
    assert owp[6] == (Fraction(2, 3) + Fraction(1, 2)) / 2
    assert opponents_win_percentage([g(7, "New", 0)]) == {7: 0}


def test_buchholz_separates_teams_level_on_points():
    # Ant and Bee 6, Cat and Dog 4: Buchholz puts Ant (14) over Bee (10), Dog (13) over Cat (11)
    assert order(SWISS, ["buchholz"]) == ["Ant", "Bee", "Dog", "Cat", "Fox", "Eel"]


def test_opponents_win_percentage_separates_teams_level_on_points():
    # Cat met Ant 2/3, Dog 1/2, Eel 1/6: 4/9; Dog met Ant 2/3, Cat 1/2, Fox 0: 7/18
    assert order(SWISS, ["opponents_win_percentage"]) == ["Ant", "Bee", "Cat", "Dog", "Fox", "Eel"]


def test_strength_of_schedule_then_another_tie_breaker():
    level = [
        g(1, "Ant", 3, won=1, played=1, opponents=(3,)),
        Standing(2, "Bee", 3, points_for=5, won=1, played=1, opponents=(4,)),
        g(3, "Cat", 0, played=1, opponents=(1,)),
        g(4, "Dog", 0, played=1, opponents=(2,)),
    ]
    # Buchholz: Ant 0, Bee 0 (level); points scored decides
    assert order(level, ["buchholz", "points_for"]) == ["Bee", "Ant", "Cat", "Dog"]
    assert order(level, [TieBreaker.OPPONENTS_WIN_PERCENTAGE]) == ["Ant", "Bee", "Cat", "Dog"]


def test_head_to_head_groups_after_strength_of_schedule():
    level = [g(1, "A", 3, opponents=(3,)), g(2, "B", 3, opponents=(4,)), g(3, "C", 0), g(4, "D", 0)]
    assert head_to_head_groups(level, ["buchholz", "head_to_head"]) == [frozenset({1, 2}), frozenset({3, 4})]
    level[2] = g(3, "C", 1)  # A met a team with a point, B did not: nobody is level any more
    assert head_to_head_groups(level, ["buchholz", "head_to_head"]) == []
