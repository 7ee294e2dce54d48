"""League tables (rules.engine.league)."""

import itertools
import random
from collections import Counter

import pytest

from rules.engine.dice import ELEMENTS, Element, roll_die
from rules.engine.league import (
    XP_LEVELS,
    AdvancementRoll,
    NinjaSnapshot,
    TeamSnapshot,
    advancement_options,
    challenge_column,
    challenge_for,
    downtime_effect,
    levels_gained,
    match_xp,
    random_challenge,
    revenue,
    roll_advancement,
    roll_downtime,
    ronin_upkeep,
    team_rating,
    underdog_bonuses,
    xp_level,
)
from tests.rules.elements import A, E, F, S, V, W

# A slice of the Appendix keyword lists.
KEYWORDS = {
    "Close Combat Master": "General",
    "Focus": "General",
    "Sneaky": "General",
    "Accurate": "Air",
    "Sprint": "Air",
    "Guard": "Earth",
    "Tough": "Earth",
    "Engulf": "Fire",
    "Frenzy": "Fire",
    "Healing": "Spirit",
    "Drown": "Water",
    "Backstab": "Void",
    "Hero": "Unique",
    "Resilient": "Unique",
    "Ronin": "Unique",
}


# --- XP levels -------------------------------------------------------------


@pytest.mark.parametrize(
    "xp,name",
    [
        (0, "New Recruit"),
        (7, "New Recruit"),
        (8, "Experienced"),
        (21, "Experienced"),
        (22, "Veteran"),
        (42, "Veteran"),
        (43, "Shinobi"),
        (70, "Shinobi"),
        (71, "Clan Champion"),
        (105, "Clan Champion"),
        (106, "Infamous"),
        (245, "Infamous"),
        (246, "Legendary"),
        (10_000, "Legendary"),
    ],
)
def test_xp_level_boundaries(xp, name):
    assert xp_level(xp).name == name


def test_xp_levels_are_contiguous():
    for lower, upper in itertools.pairwise(XP_LEVELS):
        assert lower.max_xp + 1 == upper.min_xp


@pytest.mark.parametrize(
    "old,new,gained",
    [
        (0, 7, []),
        (7, 8, ["Experienced"]),
        (8, 21, []),
        (21, 22, ["Veteran"]),
        (6, 23, ["Experienced", "Veteran"]),  # two levels in one game
        (20, 43, ["Veteran", "Shinobi"]),
        (245, 246, ["Legendary"]),
        (244, 245, []),
        (246, 400, []),
        (0, 246, ["Experienced", "Veteran", "Shinobi", "Clan Champion", "Infamous", "Legendary"]),
        (10, 10, []),
    ],
)
def test_levels_gained(old, new, gained):
    assert [lvl.name for lvl in levels_gained(old, new)] == gained


def test_xp_errors():
    with pytest.raises(ValueError):
        xp_level(-1)
    with pytest.raises(ValueError):
        levels_gained(10, 9)


# --- match XP --------------------------------------------------------------


@pytest.mark.parametrize(
    "args,kwargs,total",
    [
        ((0, 0, 0, 0, 0), {}, 0),
        ((2, 0, 0, 0, 0), {}, 2),
        ((0, 1, 0, 0, 0), {}, 1),
        ((0, 1, 0, 0, 0), {"is_chunin": True}, 0),
        ((0, 0, 3, 0, 0), {}, 3),
        ((0, 0, 0, 1, 0), {}, 3),
        ((0, 0, 0, 2, 0), {}, 6),
        ((1, 1, 1, 1, 2), {}, 8),
        ((3, 2, 1, 1, 4), {"is_hero": True}, 0),
        ((3, 2, 1, 1, 4), {"is_ronin": True}, 0),
    ],
)
def test_match_xp(args, kwargs, total):
    assert match_xp(*args, **kwargs).total == total


def test_match_xp_breakdown_and_errors():
    award = match_xp(injuries=2, chunin_stuns=1, reveals=1, all_star_awards=1, challenge_xp=3)
    assert (award.injuries, award.chunin_stuns, award.reveals, award.all_star, award.challenge) == (2, 1, 1, 3, 3)
    with pytest.raises(ValueError):
        match_xp(-1)


# --- team rating -----------------------------------------------------------


def test_team_rating_starting_team():
    # chunin 20 + 3 kaiken 3x11 + 2 kunoichi 2x12 + madoushi 15 = 92 -> 9
    ninjas = [NinjaSnapshot(20)] + [NinjaSnapshot(11)] * 3 + [NinjaSnapshot(12)] * 2 + [NinjaSnapshot(15)]
    assert team_rating(TeamSnapshot(tuple(ninjas))) == 9


def test_team_rating_with_hero_ronin_and_advancements():
    team = TeamSnapshot(
        (
            NinjaSnapshot(20, advancements=2),  # chunin with two advancements
            NinjaSnapshot(24, is_hero=True),
            NinjaSnapshot(16, is_ronin=True, upkeep=5),
            NinjaSnapshot(11, advancements=1),
            NinjaSnapshot(11),
        )
    )
    # koban 82 -> 8; advancements 3; hero + ronin 2
    assert team_rating(team) == 8 + 3 + 2
    assert ronin_upkeep(team) == 5


@pytest.mark.parametrize(
    "costs,expected",
    [((), 0), ((9,), 0), ((10,), 1), ((19,), 1), ((55, 44), 9), ((50, 50), 10)],
)
def test_team_rating_rounds_total_down(costs, expected):
    assert team_rating(TeamSnapshot(tuple(NinjaSnapshot(c) for c in costs))) == expected


def test_hero_and_ronin_counts_once():
    assert team_rating(TeamSnapshot((NinjaSnapshot(20, is_hero=True, is_ronin=True),))) == 3


# --- underdog bonuses ------------------------------------------------------


@pytest.mark.parametrize(
    "diff,rerolls,moon,all_stars,koban",
    [
        (0, 0, 0, 0, 0),
        (1, 1, 0, 0, 1),
        (4, 4, 0, 0, 4),
        (5, 5, 0, 1, 5),
        (6, 6, 0, 1, 6),
        (9, 9, 0, 1, 6),
        (10, 10, 1, 2, 6),
        (15, 15, 1, 3, 6),
        (23, 23, 2, 4, 6),
    ],
)
def test_underdog_two_teams(diff, rerolls, moon, all_stars, koban):
    top, under = underdog_bonuses([12 + diff, 12])
    assert (top.difference, top.reroll_tokens, top.moon_power_tokens, top.extra_all_star_awards, top.bonus_koban) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert under.difference == diff
    assert (under.reroll_tokens, under.moon_power_tokens, under.extra_all_star_awards, under.bonus_koban) == (
        rerolls,
        moon,
        all_stars,
        koban,
    )


def test_underdog_four_teams_compare_to_highest():
    bonuses = underdog_bonuses([14, 25, 20, 25])
    assert [b.difference for b in bonuses] == [11, 0, 5, 0]
    assert [b.reroll_tokens for b in bonuses] == [11, 0, 5, 0]
    assert [b.moon_power_tokens for b in bonuses] == [1, 0, 0, 0]
    assert [b.extra_all_star_awards for b in bonuses] == [2, 0, 1, 0]
    assert [b.bonus_koban for b in bonuses] == [6, 0, 5, 0]
    assert [b.rating for b in bonuses] == [14, 25, 20, 25]


def test_underdog_empty():
    assert underdog_bonuses([]) == []


# --- revenue ---------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome,kwargs,total",
    [
        ("win", {}, 10),
        ("loss", {}, 6),
        ("draw", {}, 8),
        ("draw", {"draw": 7}, 7),
        ("loss", {"underdog_koban": 4}, 10),
        ("loss", {"underdog_koban": 9}, 12),
        ("win", {"shojo_in_healing_house": True}, 12),
        ("loss", {"underdog_koban": 6, "shojo_in_healing_house": True}, 14),
        ("win", {"win": 12, "loss": 5}, 12),
    ],
)
def test_revenue(outcome, kwargs, total):
    assert revenue(outcome, **kwargs).total == total


def test_revenue_bad_outcome():
    with pytest.raises(ValueError):
        revenue("forfeit")


# --- downtime --------------------------------------------------------------


@pytest.mark.parametrize(
    "face,misses,healing,xp,spares,none",
    [
        (S, 0, False, 0, True, False),
        (V, 2, False, 0, False, False),
        (E, 0, False, 0, False, True),
        (A, 0, True, 0, False, False),
        (W, 0, False, 1, False, False),
        (F, 1, False, 0, False, False),
    ],
)
def test_downtime_every_face(face, misses, healing, xp, spares, none):
    out = downtime_effect(face)
    assert out.face is face
    assert (out.misses_games, out.starts_in_healing_house, out.xp_bonus, out.spares_another, out.no_effect) == (
        misses,
        healing,
        xp,
        spares,
        none,
    )
    assert downtime_effect(face.value) == out


def test_roll_downtime_uses_rng():
    rolls = [roll_downtime(rng=random.Random(s)) for s in range(60)]
    assert {r.face for r in rolls} == set(ELEMENTS)
    assert all(r == downtime_effect(r.face) for r in rolls)


# --- advancement -----------------------------------------------------------


def _keywords(options):
    return {o.keyword for o in options if o.kind == "keyword"}


def test_roll_advancement():
    rolls = [roll_advancement(rng=random.Random(s)) for s in range(200)]
    assert all(len(r.faces) == 2 for r in rolls)
    assert any(r.is_doubles for r in rolls) and any(not r.is_doubles for r in rolls)
    assert all(r.is_doubles == (r.faces[0] is r.faces[1]) for r in rolls)


@pytest.mark.parametrize("faces", [(S, V), (E, A), (F, W), (A, V)])
def test_non_doubles_keywords_from_general_and_affinity(faces):
    options = advancement_options(
        faces, affinities=[Element.FIRE], current_keywords=["Close Combat Master"], keyword_categories=KEYWORDS
    )
    assert all(o.kind == "keyword" and not o.doubles_only for o in options)
    assert _keywords(options) == {"Focus", "Sneaky", "Engulf", "Frenzy"}


def test_two_affinities_and_owned_keywords_filtered():
    options = advancement_options(
        (S, E),
        affinities=[Element.AIR, Element.SPIRIT],
        current_keywords=["Close Combat Master", "Sprint", "Focus"],
        keyword_categories=KEYWORDS,
    )
    assert _keywords(options) == {"Sneaky", "Accurate", "Healing"}


def test_no_duplicate_keyword_even_with_case_differences():
    cats = dict(KEYWORDS, focus="General")
    options = advancement_options((S, V), affinities=[F], current_keywords=[], keyword_categories=cats)
    names = [o.keyword.casefold() for o in options]
    assert len(names) == len(set(names))
    options = advancement_options((S, V), affinities=[F], current_keywords=["FOCUS"], keyword_categories=KEYWORDS)
    assert "Focus" not in _keywords(options)


@pytest.mark.parametrize(
    "face,attribute",
    [(S, "defense"), (W, "defense"), (A, "movement"), (F, "attack"), (V, "attack")],
)
def test_doubles_attribute(face, attribute):
    options = advancement_options(
        (face, face),
        affinities=[Element.FIRE],
        current_keywords=["Close Combat Master", "Backstab"],
        keyword_categories=KEYWORDS,
    )
    extra = [o for o in options if o.kind != "keyword"]
    assert len(extra) == 1
    assert extra[0].kind == "attribute" and extra[0].attribute == attribute and extra[0].doubles_only
    # any category except Unique, not already owned
    expected = {k for k, c in KEYWORDS.items() if c != "Unique"} - {"Close Combat Master", "Backstab"}
    assert _keywords(options) == expected
    doubles_only = {o.keyword for o in options if o.kind == "keyword" and o.doubles_only}
    assert doubles_only == expected - {"Focus", "Sneaky", "Engulf", "Frenzy"}


def test_doubles_earth_new_affinity():
    options = advancement_options(
        (E, E), affinities=[Element.EARTH, Element.FIRE], current_keywords=[], keyword_categories=KEYWORDS
    )
    affinities = [o.affinity for o in options if o.kind == "affinity"]
    assert set(affinities) == {S, V, A, W}
    assert not [o for o in options if o.kind == "attribute"]
    assert options[0].kind == "affinity"  # doubles result listed first


@pytest.mark.parametrize("faces", [(S, S), (S, V), (E, E), (F, A)])
def test_unique_never_offered(faces):
    options = advancement_options(faces, affinities=list(ELEMENTS), current_keywords=[], keyword_categories=KEYWORDS)
    assert not _keywords(options) & {"Hero", "Resilient", "Ronin"}
    assert all(o.category != "Unique" for o in options)


def test_advancement_accepts_roll_object_and_strings():
    roll = AdvancementRoll(faces=(Element.VOID, Element.VOID))
    a = advancement_options(roll, affinities=["Void"], current_keywords=[], keyword_categories=KEYWORDS)
    b = advancement_options(["Void", "Void"], affinities=[V], current_keywords=[], keyword_categories=KEYWORDS)
    assert a == b


def test_everything_owned_leaves_only_doubles_result():
    owned = list(KEYWORDS)
    assert advancement_options((S, V), affinities=[S], current_keywords=owned, keyword_categories=KEYWORDS) == []
    opts = advancement_options((A, A), affinities=[S], current_keywords=owned, keyword_categories=KEYWORDS)
    assert [(o.kind, o.attribute) for o in opts] == [("attribute", "movement")]


# --- random challenge generator -------------------------------------------

TABLE = {
    V: (None, None, "player1"),
    F: ("Assassination", "Infiltration", None),
    A: ("Intercept the Messenger", "Brawl", None),
    E: ("Champion", "Search", None),
    W: ("King of the Hill", "Capture the Medal", None),
    S: (None, None, "player2"),
}


@pytest.mark.parametrize("first", list(ELEMENTS))
@pytest.mark.parametrize("second", list(ELEMENTS))
def test_challenge_every_cell(first, second):
    draw = challenge_for(first, second)
    column = 1 if first in (V, F, A) else 2
    assert draw.column == column == challenge_column(first)
    assert draw.first_face is first and draw.second_face is second
    col1, col2, chooser = TABLE[second]
    assert draw.challenge_name == (col1 if column == 1 else col2)
    assert draw.chooser == chooser
    assert (draw.challenge_name is None) == (draw.chooser is not None)


def test_random_challenge_rolls_two_dice():
    draws = [random_challenge(rng=random.Random(s)) for s in range(300)]
    assert all(d == challenge_for(d.first_face, d.second_face) for d in draws)
    names = Counter(d.challenge_name for d in draws)
    assert len(names) == 9  # 8 challenges + None
    # the draw is the first two die rolls of the rng
    rng = random.Random(42)
    expected = challenge_for(roll_die(rng=rng), roll_die(rng=rng))
    assert random_challenge(rng=random.Random(42)) == expected


def test_underdog_bonuses_house_rules():
    from rules.engine.league import underdog_bonuses as ub

    off = ub([20, 9], enabled=False)
    assert [
        (b.difference, b.reroll_tokens, b.moon_power_tokens, b.extra_all_star_awards, b.bonus_koban) for b in off
    ] == [(0, 0, 0, 0, 0), (11, 0, 0, 0, 0)]
    capped = ub([20, 9], max_bonus_koban=3)
    assert capped[1].bonus_koban == 3 and capped[1].reroll_tokens == 11
    assert ub([20, 9], max_bonus_koban=0)[1].bonus_koban == 0
