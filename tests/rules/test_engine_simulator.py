"""The match simulator (rules.engine.simulator): determinism, Brawl scoring
exactly, record validity, every challenge with 2-4 teams, underdog tokens,
and the stronger team winning more often."""

import random
from collections import Counter
from pathlib import Path

import pytest

from rules.engine import balance
from rules.engine.dice import ELEMENTS
from rules.engine.league import underdog_bonuses
from rules.engine.records import MatchRecord
from rules.engine.simulator import (
    CHALLENGES,
    SimChallenge,
    SimNinja,
    simulate_match,
)
from tests.rules.simulator_rosters import CATALOG, PROFILES, RONIN, sim_team

FACE_NAMES = {e.value for e in ELEMENTS}


def make_team(team_id, picks, *, boost=None, extra=()):
    """picks: (profile slug, count, chosen ability or None); boost: dict of advancements for all."""
    return sim_team(team_id, [(slug, count, ability, boost or {}) for slug, count, ability in picks], extra=extra)


TORA = [
    ("tora-chunin", 1, "Tiger Strike"),
    ("tora-kaiken", 4, None),
    ("tora-yajiri", 1, None),
    ("tora-madoushi", 1, "Metal to Dust"),
    ("tora-kunoichi", 1, None),
]
IKA = [
    ("ika-chunin", 1, "Net"),
    ("ika-kaiken", 4, None),
    ("ika-yajiri", 1, None),
    ("ika-madoushi", 1, "Undertow"),
    ("ika-kunoichi", 1, None),
]
KITSUNE = [
    ("kitsune-chunin", 1, "Poisoned Weapons"),
    ("kitsune-kaiken", 3, None),
    ("kitsune-yajiri", 2, None),
    ("kitsune-oni", 1, None),
    ("kitsune-madoushi", 1, "Healing Mist"),
]
IJIN = [("ijin-chunin", 1, "Tyrant"), ("ijin-kaiken", 3, None), ("ijin-kunoichi", 2, None), ("ijin-oni", 1, None)]
HEROES = [
    ("tanchyo-chunin", 1, "Wind of Blades"),
    ("tanchyo-kaiken", 2, None),
    ("tanchyo-yajiri", 2, None),
    ("tanchyo-zenyo-ryu", 1, None),
    ("miyamoto-musashi", 1, None),
    ("moon-princess", 1, None),
    ("kappa", 1, None),
    ("benkei", 1, None),
]

BRAWL = CHALLENGES["brawl"]


def brawl(seed, teams=None, **kw):
    teams = teams or [make_team(1, TORA), make_team(2, IKA)]
    return simulate_match(teams, BRAWL, rng=random.Random(seed), **kw)


def test_challenges_match_the_catalog():
    for entry in CATALOG["challenges"]:
        assert CHALLENGES[entry["slug"]] == SimChallenge.from_catalog(entry)
    assert len(CHALLENGES) == len(CATALOG["challenges"]) == 8


def test_same_seed_same_match_and_different_seeds_differ():
    first, again = brawl(11), brawl(11)
    assert first.record == again.record
    assert first.log == again.log and first.dice == again.dice
    assert {brawl(s).log for s in range(4)} != {first.log}


def test_record_has_the_match_record_shape():
    result = brawl(3)
    assert isinstance(result.record, MatchRecord)
    assert [t.team_id for t in result.record.teams] == [1, 2]
    assert result.log and result.dice


@pytest.mark.parametrize("seed", range(12))
def test_brawl_points_equal_the_injury_scoring(seed):
    teams = [make_team(1, TORA), make_team(2, IKA)]
    result = brawl(seed, teams)
    kinds = {n.ninja_id: n for t in teams for n in t.roster}
    team_of = {n.ninja_id: t.team_id for t in teams for n in t.roster}
    expected = Counter()
    feats = Counter()
    for ev in result.injuries:
        if ev.by_id is None:
            assert ev.points == 0
            continue
        victim, by = kinds[ev.victim_id], kinds[ev.by_id]
        assert team_of[ev.victim_id] != team_of[ev.by_id]
        pts = 2 if (victim.is_chunin and not by.is_chunin) else 1
        assert ev.points == pts
        expected[team_of[ev.by_id]] += pts
        if not (by.is_chunin and not victim.is_chunin):
            feats[ev.by_id] += 1
    for team in result.record.teams:
        assert team.points == expected[team.team_id]
        for n in team.ninjas:
            # Brawl XP: 1 per injury, except a chunin injuring a non-chunin
            assert n.challenge_feats.get("injure_enemy", 0) == feats[n.ninja_id]
            assert set(n.challenge_feats) <= {"injure_enemy"}
            assert n.injuries == sum(1 for ev in result.injuries if ev.by_id == n.ninja_id)
    # nobody reaches nine points without the game ending there
    if max(t.points for t in result.record.teams) >= 9:
        assert result.ended_early
    else:
        assert not result.ended_early and result.rounds_played == BRAWL.rounds


def test_brawl_nine_points_wins_immediately():
    strong = make_team(1, TORA, boost=dict(attack=3, defense=2))
    weak = make_team(2, IKA)
    result = next(r for r in (brawl(s, [strong, weak]) for s in range(30)) if r.ended_early)
    points = {t.team_id: t.points for t in result.record.teams}
    assert points[1] >= 9 > points[2]
    assert result.rounds_played <= BRAWL.rounds
    assert result.log[-1].endswith("reaches nine points and wins")
    # the game stopped at the injury that made nine (one injury scores at most 2)
    assert points[1] - result.injuries[-1].points < 9 or result.injuries[-1].by_id is None
    assert result.record.outcome_for(1) == "win"


def _check_record(result, teams, challenge, extra_awards=None):
    roster = {t.team_id: {n.ninja_id: n for n in t.roster} for t in teams}
    awards_expected = {t.team_id: 1 + (extra_awards or {}).get(t.team_id, 0) for t in teams}
    assert [t.team_id for t in result.record.teams] == [t.team_id for t in teams]
    for team in result.record.teams:
        assert sorted(n.ninja_id for n in team.ninjas) == sorted(roster[team.team_id])
        assert sum(n.all_star_awards for n in team.ninjas) == awards_expected[team.team_id]
        for n in team.ninjas:
            sim = roster[team.team_id][n.ninja_id]
            if n.all_star_awards:
                assert n.played, "All-Star only from models that were on the board"
            if not sim.available:
                assert not n.played and not n.in_healing_house and not n.injuries
            if n.in_healing_house:
                assert n.played or sim.starts_in_healing_house
            if not n.played:
                assert not n.injuries and not n.chunin_stuns and not n.reveals and not n.challenge_feats
            assert set(n.challenge_feats) <= set(challenge.xp_award_keys)
            assert all(v > 0 for v in n.challenge_feats.values())
            assert min(n.injuries, n.chunin_stuns, n.reveals) >= 0
    for d in result.dice:
        assert set(d.faces) <= FACE_NAMES and 0 <= d.round <= challenge.rounds  # 0: setup


def test_record_validity_with_absent_and_healing_models():
    spare = SimNinja.from_profile(PROFILES["tora-kaiken"], ninja_id=190, name="Absent", available=False)
    hurt = SimNinja.from_profile(PROFILES["tora-kaiken"], ninja_id=191, name="Hurt", starts_in_healing_house=True)
    teams = [make_team(1, TORA, extra=(spare, hurt)), make_team(2, IKA)]
    for seed in range(6):
        result = simulate_match(teams, BRAWL, rng=random.Random(seed))
        _check_record(result, teams, BRAWL)
        absent = next(n for n in result.record.teams[0].ninjas if n.ninja_id == 190)
        assert not absent.played


@pytest.mark.parametrize("slug", sorted(CHALLENGES))
@pytest.mark.parametrize("n_teams", [2, 3, 4])
def test_every_challenge_runs_with_two_to_four_teams(slug, n_teams):
    teams = [make_team(1, TORA), make_team(2, IKA), make_team(3, KITSUNE), make_team(4, HEROES)][:n_teams]
    challenge = CHALLENGES[slug]
    result = simulate_match(teams, challenge, rng=random.Random(n_teams * 31 + len(slug)))
    _check_record(result, teams, challenge)
    assert 1 <= result.rounds_played <= challenge.rounds
    on_board = Counter()
    for team in result.record.teams:
        on_board[team.team_id] = sum(n.played for n in team.ninjas)
        assert on_board[team.team_id] >= min(challenge.ninjas_allowed, len(teams[0].roster))


@pytest.mark.parametrize("slug", sorted(CHALLENGES))
def test_challenge_scoring_events_happen(slug):
    """Over a few seeded games every challenge scores and hands out its feats."""
    challenge = CHALLENGES[slug]
    feats, points = Counter(), 0
    for seed in range(8):
        result = simulate_match([make_team(1, TORA), make_team(2, IKA)], challenge, rng=random.Random(seed))
        points += sum(t.points for t in result.record.teams)
        for team in result.record.teams:
            for n in team.ninjas:
                feats.update(n.challenge_feats)
    assert points > 0
    assert set(feats) == set(challenge.xp_award_keys) - {"return_own_medal"} or set(feats) == set(
        challenge.xp_award_keys
    )


def test_underdog_tokens_are_used_and_extra_all_stars_awarded():
    strong = make_team(1, TORA, boost=dict(attack=1, defense=1))
    weak = make_team(2, IKA)
    bonus = underdog_bonuses([25, 12])
    assert bonus[1].moon_power_tokens == 1 and bonus[1].extra_all_star_awards == 2
    used_tokens = moon = 0
    for seed in range(5):
        result = simulate_match([strong, weak], BRAWL, rng=random.Random(seed), underdog=bonus)
        _check_record(result, [strong, weak], BRAWL, extra_awards={2: 2})
        used_tokens += sum("spends a reroll token" in line for line in result.log)
        moon += sum("Moon Power token" in line for line in result.log)
        assert sum("team 1 spends" in line for line in result.log) == 0
        assert sum("team 1 gives" in line for line in result.log) == 0
    assert used_tokens > 0 and moon > 0
    with pytest.raises(ValueError):
        simulate_match([strong, weak], BRAWL, rng=random.Random(0), underdog=bonus[:1])


def test_heroes_and_ronin_keywords_run():
    teams = [make_team(1, HEROES), make_team(2, [*IJIN, ("ijin-yobuko", 1, None), ("ijin-bomechan", 1, None)])]
    for seed in range(5):
        result = simulate_match(teams, BRAWL, rng=random.Random(seed))
        _check_record(result, teams, BRAWL)


def _veterans():
    """A starting Yamazaru team and the same team with ten advancements (the balance study's)."""
    veteran, starter = balance.build_teams(PROFILES, 10)
    ratings = [balance.roster_rating(PROFILES, balance.ladder_changes(balance.LADDER[:gap])) for gap in (10, 0)]
    return [veteran, starter], ratings


def _win_rates(games, *, bonuses):
    (veteran, starter), (v_rating, s_rating) = _veterans()
    tally = Counter()
    for g in range(games):
        order, ratings = (
            ([veteran, starter], [v_rating, s_rating]) if g % 2 == 0 else ([starter, veteran], [s_rating, v_rating])
        )
        result = simulate_match(
            order, BRAWL, rng=random.Random(70_000 + g), underdog=underdog_bonuses(ratings) if bonuses else None
        )
        tally[result.record.outcome_for(veteran.team_id)] += 1
    return tally


@pytest.mark.slow(reason="simulates 600 matches to measure win rates")
def test_stronger_team_wins_more_often_and_bonuses_narrow_the_gap():
    assert _veterans()[1] == [19, 9]
    plain = _win_rates(300, bonuses=False)
    assert plain["win"] > plain["loss"] * 2
    helped = _win_rates(300, bonuses=True)
    assert abs(helped["win"] - helped["loss"]) < plain["win"] - plain["loss"]


def test_docs_list_every_keyword_and_special_ability():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "simulation.md").read_text(encoding="utf-8")
    statuses = ("modelled exactly", "approximated", "out of reach", "outside the match")
    names = [k["name"] for k in CATALOG["keywords"]]
    names += [a["name"] for p in [*PROFILES.values(), *RONIN.values()] for a in p["abilities"]]
    assert len(CATALOG["keywords"]) == 50
    for name in names:
        rows = [line for line in doc.splitlines() if line.startswith(f"| {name} |")]
        assert rows, f"{name} is missing from docs/simulation.md"
        assert all(any(f"| {s} |" in row for s in statuses) for row in rows), name
