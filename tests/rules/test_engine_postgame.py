"""The post-game sequence as a pure function (rules.engine.postgame): each step, table-driven, no
database. Rulebook lines are quoted where a test pins one down."""

from __future__ import annotations

import random

import pytest

from rules.engine.dice import Element, roll_die
from rules.engine.league import levels_gained
from rules.engine.postgame import (
    RELEASE_CHOSEN,
    RELEASE_FORCED,
    XP_REASON_MATCH,
    XP_REASON_WATER,
    LedgerReason,
    ModelNow,
    PostgameRules,
    postgame,
)
from rules.engine.records import MatchRecord, NinjaRecord, RosterEntry, SideSnapshot, TeamRecord

HOME, AWAY = 1, 2


def entry(nid: int, **kw) -> RosterEntry:
    return RosterEntry(ninja_id=nid, name=kw.pop("name", f"M{nid}"), **kw)


def side(team_id: int, *entries: RosterEntry, rating: int = 10, bonus: int = 0, extra: int = 0) -> SideSnapshot:
    return SideSnapshot(team_id, f"Team {team_id}", entries, rating=rating, bonus_koban=bonus, extra_all_stars=extra)


def record(home_points: int, away_points: int, home=(), away=()) -> MatchRecord:
    return MatchRecord(teams=(TeamRecord(HOME, home_points, tuple(home)), TeamRecord(AWAY, away_points, tuple(away))))


def run(rec, sides, *, models=None, treasuries=None, rules=None, faces=None, adv_rng=None, **kw):
    models = models or {}
    everyone = {e.ninja_id: ModelNow(e.ninja_id, e.name) for s in sides for e in s.roster}
    everyone.update(models)
    return postgame(
        record=rec,
        sides=sides,
        models=everyone,
        treasuries=treasuries or {s.team_id: 0 for s in sides},
        rules=rules or PostgameRules(),
        downtime_dice=faces if faces is not None else random.Random(7),
        advancement_rng=adv_rng,
        **kw,
    )


# --- 1. the result --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, record_fields, xp",
    [
        ({}, {"injuries": 2, "reveals": 1}, 3),
        ({}, {"injuries": 1, "all_star_awards": 1}, 4),  # "The Ninja All-Star gets 3 XP."
        ({}, {"chunin_stuns": 2}, 2),  # "Each time a non-chunin Stuns a chunin ... it gets 1 XP."
        ({"is_chunin": True}, {"chunin_stuns": 2, "injuries": 1}, 1),  # a chunin gets none for it
        ({"is_hero": True}, {"injuries": 3, "all_star_awards": 1}, 0),  # "Hero: ... cannot gain XP"
        ({"is_hero": True, "is_ronin": True}, {"injuries": 3}, 0),
        ({}, {"challenge_feats": {"injure_enemy": 3}}, 3),  # the challenge's award, 1 XP each
    ],
)
def test_step_1_outcome_and_match_xp(kind, record_fields, xp):
    out = run(
        record(3, 1, home=[NinjaRecord(11, **record_fields)]),
        [side(HOME, entry(11, **kind)), side(AWAY)],
        challenge_xp={"injure_enemy": 1},
    )
    assert [(s.team_id, s.points, s.outcome) for s in out.sides] == [(HOME, 3, "win"), (AWAY, 1, "loss")]
    assert [(m.entry.ninja_id, m.xp_gained) for m in out.models] == [(11, xp)]


# --- 2. revenue -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "points, bonus, shojo, rules, lines, earned",
    [
        ((3, 1), 0, False, PostgameRules(), [(LedgerReason.REVENUE, 10, "Won the game")], 10),
        ((1, 3), 0, False, PostgameRules(), [(LedgerReason.REVENUE, 6, "Lost the game")], 6),
        ((2, 2), 0, False, PostgameRules(revenue_draw=7), [(LedgerReason.REVENUE, 7, "Drew the game")], 7),
        (
            (1, 3),
            4,
            False,
            PostgameRules(),
            [
                (LedgerReason.REVENUE, 6, "Lost the game"),
                (LedgerReason.UNDERDOG, 4, "Rating 10 against a higher-rated team"),
            ],
            10,
        ),
        (
            (3, 1),
            0,
            True,
            PostgameRules(revenue_win=12),
            [
                (LedgerReason.REVENUE, 12, "Won the game"),
                (LedgerReason.SHOJO, 2, "Shojo ended the game in the Healing House"),
            ],
            14,
        ),
    ],
)
def test_step_2_revenue_lines_are_the_koban_earned(points, bonus, shojo, rules, lines, earned):
    """Revenue: "Team won the game: Earns 10 koban ... Team lost the game: Earns 6 koban"; Shojo's
    Shrewd Negotiator: "her team makes two additional Koban"."""
    shojo_entry = entry(12, name="Shojo", profile_slug="shojo", is_hero=True, is_ronin=True, upkeep=4)
    out = run(
        record(*points, home=[NinjaRecord(12, in_healing_house=shojo)]),
        [side(HOME, shojo_entry, bonus=bonus), side(AWAY)],
        treasuries={HOME: 100, AWAY: 0},
        faces={12: "Earth"},
        rules=rules,
    )
    revenue_lines = [line for line in out.ledger if line.team_id == HOME and line.reason != LedgerReason.UPKEEP]
    assert [(line.reason, line.amount, line.note) for line in revenue_lines] == lines
    assert out.side(HOME).koban_earned == earned == sum(line.amount for line in revenue_lines)


def test_koban_earned_follows_a_raised_bonus_cap():
    """Correction (issue 12). Rulebook, "Team Rating": "Bonus Koban: The lower rated team gets a
    bonus to their revenue at the end of the game that is equal to the difference in the two teams
    ratings, up to a maximum of six Koban." A league that raises the cap to 10 (house rule) gives a
    10-point underdog 10 bonus koban, and the match records what the ledger got: 6 + 10 = 16 (it
    recorded 12, the bonus capped at the rulebook's 6, while the ledger got 10)."""
    out = run(
        record(1, 3),
        [side(HOME, rating=10, bonus=10), side(AWAY, rating=20)],
        rules=PostgameRules(max_bonus_koban=10),
    )
    underdog = [line.amount for line in out.ledger if line.reason == LedgerReason.UNDERDOG]
    assert underdog == [10]
    assert out.side(HOME).koban_earned == 16
    assert sum(line.amount for line in out.ledger if line.team_id == HOME) == 16


# --- 3. ronin upkeep ------------------------------------------------------------------------------


def ronin(nid: int, fee: int, **kw) -> RosterEntry:
    return entry(nid, is_hero=True, is_ronin=True, upkeep=fee, **kw)


@pytest.mark.parametrize(
    "treasury, fees, decisions, paid, forced, ledger",
    [
        # win: 10 koban earned; each fee paid while the treasury covers it, in roster order
        (0, (5, 5), {}, [True, True], [False, False], -10),
        (0, (6, 5), {}, [True, False], [False, True], -6),  # 10 - 6 = 4 cannot cover 5: forced out
        (0, (11, 4), {}, [False, True], [True, False], -4),  # a later, cheaper ronin is still paid
        (20, (6, 5), {31: "release"}, [False, True], [False, False], -5),  # the player releases one
        (0, (6,), {31: "release"}, [False], [False], None),  # nothing paid: no ledger line
    ],
)
def test_step_3_upkeep_pay_release_and_forced_release(treasury, fees, decisions, paid, forced, ledger):
    """Appendix, "Ronin": "a team must pay Ronin a fee after each game, before rolls are made on the
    downtime table ... If a team cannot or does not want to pay a Ronin's upkeep, the Ronin leaves
    the team." """
    roster = [ronin(31 + i, fee) for i, fee in enumerate(fees)]
    out = run(record(3, 1), [side(HOME, *roster), side(AWAY)], treasuries={HOME: treasury, AWAY: 0}, upkeep=decisions)
    assert [u.paid for u in out.upkeep] == paid
    assert [u.forced_release for u in out.upkeep] == forced
    upkeep_lines = [line.amount for line in out.ledger if line.reason == LedgerReason.UPKEEP]
    assert upkeep_lines == ([] if ledger is None else [ledger])
    released = {c.ninja_id: c.release_reason for c in out.changes if c.released}
    expected = {u.ninja_id: RELEASE_FORCED if u.forced_release else RELEASE_CHOSEN for u in out.upkeep if not u.paid}
    assert released == expected


def test_upkeep_note_names_each_fee_and_a_gone_ronin_owes_nothing():
    out = run(
        record(3, 1),
        [side(HOME, ronin(31, 5, name="Tengu"), ronin(32, 3, name="Benkei"), ronin(33, 4)), side(AWAY)],
        models={33: ModelNow(33, "Left already", active=False)},
    )
    assert [line.note for line in out.ledger if line.reason == LedgerReason.UPKEEP] == [
        "Tengu 5, Benkei 3"  # the ledger shows it after its reason: "Ronin upkeep: Tengu 5, Benkei 3"
    ]
    assert [u.ninja_id for u in out.upkeep] == [31, 32]


def test_a_released_ronin_rolls_no_downtime():
    out = run(
        record(1, 3, home=[NinjaRecord(31, in_healing_house=True)]),
        [side(HOME, ronin(31, 50)), side(AWAY)],
        faces={31: "Void"},
    )
    assert out.upkeep[0].forced_release and out.downtime == () and out.dice == ()


# --- 4. availability ------------------------------------------------------------------------------


def test_step_4_the_game_counts_as_missed_and_a_healing_house_start_is_used():
    """Downtime: "Cannot play in the next two games"; "Starts the next game in the Healing House"."""
    sitting = entry(41, available=False, misses_games=2)
    starter = entry(42, starts_in_healing_house=True)
    fit = entry(43)
    out = run(
        record(3, 1, home=[NinjaRecord(42), NinjaRecord(43)]),
        [side(HOME, sitting, starter, fit), side(AWAY)],
        models={41: ModelNow(41, "M41", misses_games=2), 42: ModelNow(42, "M42", starts_in_healing_house=True)},
    )
    changes = {c.ninja_id: (c.misses_games, c.starts_in_healing_house) for c in out.changes}
    assert changes == {41: (1, False), 42: (0, False)}


# --- 5. downtime ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "face, misses, healing_house, xp, effect",
    [
        ("Spirit", 0, False, 0, "Spirit: another Healing House model may play as normal"),
        ("Void", 2, False, 0, "Void: cannot play in the next two games"),
        ("Earth", 0, False, 0, "Earth: no effect"),
        ("Air", 0, True, 0, "Air: starts the next game in the Healing House"),
        ("Water", 0, False, 1, "Water: gets 1 XP"),
        ("Fire", 1, False, 0, "Fire: cannot play in the next game"),
    ],
)
def test_step_5_each_downtime_face(face, misses, healing_house, xp, effect):
    out = run(
        record(3, 1, home=[NinjaRecord(51, in_healing_house=True)]),
        [side(HOME, entry(51)), side(AWAY)],
        faces={51: face},
    )
    (line,) = out.downtime
    assert (line.face, line.misses_games, line.starts_in_healing_house, line.xp_bonus, line.effect) == (
        Element(face),
        misses,
        healing_house,
        xp,
        effect,
    )
    assert [(d.ninja_id, d.purpose, d.faces, d.entered_by_player) for d in out.dice] == [
        (51, "downtime", (face,), True)
    ]
    model = {c.ninja_id: c for c in out.changes}.get(51)
    assert (model.misses_games if model else 0, model.starts_in_healing_house if model else False) == (
        misses,
        healing_house,
    )
    assert [x.amount for x in out.xp if x.reason == XP_REASON_WATER] == ([1] if xp else [])


def test_a_new_absence_never_shortens_one_being_served():
    out = run(
        record(3, 1, home=[NinjaRecord(52, in_healing_house=True, played=False)]),
        [side(HOME, entry(52, starts_in_healing_house=True)), side(AWAY)],
        models={52: ModelNow(52, "M52", misses_games=3)},
        faces={52: "Fire"},
    )
    assert out.changes[0].misses_games == 3


@pytest.mark.parametrize(
    "faces, spared",
    [
        ({61: "Spirit", 62: "Fire", 63: "Void", 64: "Water"}, {63: 61}),  # the worst result is spared
        ({61: "Spirit", 62: "Air", 63: "Fire"}, {63: 61}),
        ({61: "Spirit", 62: "Spirit", 63: "Fire", 64: "Air"}, {63: 61, 64: 62}),  # each Spirit spares one
        ({61: "Spirit", 62: "Water", 63: "Earth"}, {}),  # not spent on a roll that did no harm
        ({61: "Spirit"}, {}),
    ],
)
def test_spirit_spares_another_healing_house_model_of_its_team(faces, spared):
    """Downtime, Spirit: "Another model that ended the game in the Healing House does not need to
    roll on this table, and may play as normal in the following game." """
    out = run(
        record(3, 1, home=[NinjaRecord(n, in_healing_house=True) for n in faces]),
        [side(HOME, *(entry(n) for n in faces)), side(AWAY)],
        faces=faces,
    )
    assert {d.ninja_id: d.spared_by for d in out.downtime if d.spared_by} == spared
    for d in out.downtime:
        if d.spared_by:
            assert (d.misses_games, d.starts_in_healing_house, d.xp_bonus) == (0, False, 0)
            assert d.effect == f"Rolled {d.face.value}, but spared by a Spirit: plays as normal"
    assert len(out.dice) == len(faces)  # the spared model's roll is still recorded
    assert not [c for c in out.changes if c.ninja_id in spared]  # a spared model plays as normal


def test_a_spirit_does_not_spare_a_model_of_the_other_team():
    out = run(
        record(3, 1, home=[NinjaRecord(61, in_healing_house=True)], away=[NinjaRecord(71, in_healing_house=True)]),
        [side(HOME, entry(61)), side(AWAY, entry(71))],
        faces={61: "Spirit", 71: "Void"},
    )
    assert [d.spared_by for d in out.downtime] == [None, None]
    assert {c.ninja_id: c.misses_games for c in out.changes} == {71: 2}


def test_server_dice_are_rolled_side_by_side_in_record_order_from_the_rng():
    rec = record(
        3,
        1,
        home=[NinjaRecord(82, in_healing_house=True), NinjaRecord(81, in_healing_house=True)],
        away=[NinjaRecord(91, in_healing_house=True)],
    )
    sides = [side(HOME, entry(81), entry(82)), side(AWAY, entry(91))]
    out = run(rec, sides, faces=random.Random("seed:downtime"))
    rng = random.Random("seed:downtime")
    expected = [roll_die(rng=rng).value for _ in range(3)]
    assert [(d.ninja_id, d.faces[0], d.entered_by_player) for d in out.dice] == [
        (82, expected[0], False),
        (81, expected[1], False),
        (91, expected[2], False),
    ]


def test_entered_faces_must_cover_every_healing_house_model():
    with pytest.raises(ValueError, match="no downtime die"):
        run(record(3, 1, home=[NinjaRecord(51, in_healing_house=True)]), [side(HOME, entry(51)), side(AWAY)], faces={})


# --- 6. XP and advancement rolls -------------------------------------------------------------------


@pytest.mark.parametrize(
    "old_xp, injuries, water, levels",
    [
        (0, 7, False, []),  # 7 XP: still a New Recruit
        (0, 8, False, [1]),  # "Once a model earns 8 XP, it becomes Experienced"
        (6, 17, False, [1, 2]),  # 6 -> 23: Experienced and Veteran, two rolls
        (7, 0, True, [1]),  # Water's 1 XP takes 7 to 8: a level, and a roll
        (20, 1, True, [2]),  # 20 + 1 + 1 = 22: Veteran
        (40, 31, False, [3, 4]),  # 40 -> 71: Shinobi and Clan Champion
    ],
)
def test_step_6_xp_and_the_levels_crossed(old_xp, injuries, water, levels):
    """Advancement Rolls: "Whenever a model makes it to a new experience level, it makes an
    advancement roll." Downtime, Water: "Gets 1 XP." """
    nr = NinjaRecord(101, injuries=injuries, in_healing_house=water)
    out = run(
        record(3, 1, home=[nr]),
        [side(HOME, entry(101)), side(AWAY)],
        models={101: ModelNow(101, "M101", xp=old_xp)},
        faces={101: "Water"} if water else {},
        adv_rng=random.Random(3),
    )
    gained = injuries + (1 if water else 0)
    expected_levels = [lvl.rank for lvl in levels_gained(old_xp, old_xp + gained)]
    assert [a.level for a in out.advancements] == expected_levels == levels
    assert all(len(a.faces) == 2 for a in out.advancements)
    assert [d.faces for d in out.dice if d.purpose == "advancement"] == [a.faces for a in out.advancements]
    xp = [(x.amount, x.reason) for x in out.xp]
    assert xp == ([(injuries, XP_REASON_MATCH)] if injuries else []) + ([(1, XP_REASON_WATER)] if water else [])
    changed = {c.ninja_id: c.xp for c in out.changes}
    assert changed.get(101, old_xp) == old_xp + gained


def test_a_hero_gets_no_water_xp():
    out = run(
        record(3, 1, home=[NinjaRecord(102, in_healing_house=True)]),
        [side(HOME, entry(102, is_hero=True)), side(AWAY)],
        models={102: ModelNow(102, "Hero", xp=0)},
        faces={102: "Water"},
    )
    assert out.xp == () and out.advancements == ()


def test_advancement_rolls_without_server_dice_have_no_faces():
    out = run(
        record(3, 1, home=[NinjaRecord(103, injuries=23)]),
        [side(HOME, entry(103)), side(AWAY)],
        adv_rng=None,
    )
    assert [(a.level, a.faces) for a in out.advancements] == [(1, ()), (2, ())]
    assert [d for d in out.dice if d.purpose == "advancement"] == []


def test_the_sequence_is_replayable_and_changes_only_what_it_touched():
    rec = record(
        3,
        1,
        home=[NinjaRecord(111, injuries=9, in_healing_house=True), NinjaRecord(112)],
        away=[NinjaRecord(121, in_healing_house=True)],
    )
    sides = [side(HOME, entry(111), entry(112), entry(113)), side(AWAY, entry(121))]
    first = run(rec, sides, faces=random.Random(5), adv_rng=random.Random(6))
    again = run(rec, sides, faces=random.Random(5), adv_rng=random.Random(6))
    assert first == again
    assert 112 not in {c.ninja_id for c in first.changes} and 113 not in {c.ninja_id for c in first.changes}
    # dice: every downtime die first (slot order), then the advancement dice
    purposes = [d.purpose for d in first.dice]
    assert purposes == sorted(purposes, key=lambda p: p != "downtime")


def test_models_missing_from_the_team_are_refused():
    with pytest.raises(ValueError, match="not on their team"):
        postgame(
            record=record(3, 1, home=[NinjaRecord(1)]),
            sides=[side(HOME, entry(1)), side(AWAY)],
            models={},
            treasuries={HOME: 0, AWAY: 0},
            rules=PostgameRules(),
            downtime_dice={},
            advancement_rng=None,
        )
