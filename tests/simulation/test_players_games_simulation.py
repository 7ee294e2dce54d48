"""Simulating the players' games (issue 17, part 4): a strength model from the players' ratings,
not a game engine. A simulated fixture gets the game's result record and is confirmed through
the same path as an entered one; seeded, so it replays; stronger players win more often."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.db.models import Count
from django.urls import reverse

from games import registry as games
from games.kage_masters import simulation as kage_simulation
from games.ninjutsu import results as game_results
from games.ninjutsu import simulation as ninjutsu_simulation
from games.players import simulation as game_simulation
from games.registry import game_of
from league.models import ScheduleRun, Season
from league.selectors import league_table
from league.services import simulations as simulation
from matches.models import Match, MatchTeam, SimulationJob, SimulationRun
from ratings import glicko2, multiplayer
from tests.league.helpers import generate
from tests.simulation.players import players, players_season, rate, records

pytestmark = pytest.mark.django_db


def run_job(season: Season, scope: str = SimulationJob.Scope.SEASON, seed: int = 1) -> SimulationJob:
    job, created = simulation.simulation_request(actor=season.league.master, scope=scope, season=season, seed=seed)
    assert created
    return simulation.simulation_job_run(job_id=job.pk)


# --- Ninjutsu ------------------------------------------------------------------------------------


def test_ninjutsu_is_simulated_by_the_strength_model():
    game = game_of(games.NINJUTSU)
    assert game.can_simulate
    assert (game.simulator, game.simulate_batch) == (game_simulation.simulate_match, game_simulation.simulate_batch)


def test_the_rest_of_a_ninjutsu_round_robin_season_is_simulated_and_confirmed(django_assert_max_num_queries):
    season = players_season(4)
    job = run_job(season)
    assert job.status == "done" and job.done == job.total == 6 and "Every round" in job.note
    matches = list(season.matches.all())
    assert len(matches) == 6 and all(m.status == Match.Status.CONFIRMED and m.simulated for m in matches)
    for match in matches:
        game_results.check(match.submitted_record)  # the record a player would have entered
        assert match.submitted_record["game"] == "ninjutsu" and match.seed is not None
        assert match.simulation.seed == match.seed and match.simulation.job_id == job.pk
        outcomes = sorted(MatchTeam.objects.filter(match=match).values_list("outcome", flat=True))
        assert outcomes == ["loss", "win"]  # no draws without a time limit
        assert match.kicked_off_at is None  # a players' game has no kick-off
    table = league_table(season)
    assert [row.played for row in table] == [3, 3, 3, 3]
    assert sum(row.won for row in table) == 6 and sum(row.points for row in table) == 18


def test_a_simulated_ninjutsu_season_replays_by_its_seed():
    from matches.simulation import derived_seed

    season = players_season(4)
    teams = players(season)
    rate(teams[0], glicko=1700)
    ratings = game_simulation.ratings_of([t.pk for t in teams])  # what the job reads (before any recomputation)
    job = run_job(season, seed=7)
    for match in season.matches.all():
        # each match's seed comes from the job's, and its stored seed replays its record
        assert match.seed == derived_seed(job.seed, f"match:{match.pk}")
        sides = list(match.sides.order_by("slot"))
        again = game_simulation.simulated_record(
            games.NINJUTSU, sides, ratings, rng=random.Random(f"{match.seed}:simulation")
        )
        assert again == match.submitted_record


def test_a_swiss_ninjutsu_season_with_its_playoffs_is_simulated():
    from league.models import BracketSlot

    season = players_season(4, format=Season.Format.SWISS, swiss_rounds=2, playoff_teams=2)
    job = run_job(season, seed=3)
    assert job.status == "done", job.error
    assert season.matches.filter(status=Match.Status.CONFIRMED, simulated=True).count() == 2 * 2 + 1 == job.done
    final = BracketSlot.objects.get(season=season)
    assert final.winner_id is not None and "playoffs" in job.note


def test_a_round_and_a_fixture_of_a_ninjutsu_season():
    season = players_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job = run_job(season, SimulationJob.Scope.ROUND)
    assert (job.status, job.round_number, job.done) == ("done", 1, 2)
    match = season.matches.scheduled().order_by("round_number", "pk").first()
    job, _ = simulation.simulation_request(actor=season.league.master, scope="match", match=match, seed=3)
    job = simulation.simulation_job_run(job_id=job.pk)
    match.refresh_from_db()
    assert job.done == 1 and match.status == Match.Status.CONFIRMED
    # simulating again is harmless: the fixture is played
    assert game_simulation.simulate_match(match=match, seed=4) is None


def test_the_batch_reads_the_ratings_once(django_assert_max_num_queries, django_assert_num_queries):
    small, large = players_season(4), players_season(12)
    for season in (small, large):
        for team in players(season):
            rate(team, glicko=1500 + 10 * team.pk % 300)
        generate(season, ScheduleRun.Kind.ROUND_ROBIN)

    def count(season):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        batch = list(season.matches.filter(round_number=1))
        with CaptureQueriesContext(connection) as ctx:
            runs, blocked = game_simulation.simulate_batch(batch, seeds={m.pk: m.pk for m in batch})
        assert blocked is None and len(runs) == len(batch)
        rating_reads = [q for q in ctx.captured_queries if "strengthrating" in q["sql"].lower()]
        return len(batch), len(ctx.captured_queries), len(rating_reads)

    n_small, q_small, r_small = count(small)
    n_large, q_large, r_large = count(large)
    assert r_small == r_large == 1  # the batch's ratings: one query
    per_match = (q_large - q_small) / (n_large - n_small)
    assert per_match <= 4  # the sides' outcomes, the confirmation (the runs are written at once)


def test_a_season_job_reads_the_ratings_once():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    season = players_season(6)
    for team in players(season)[:3]:
        rate(team, glicko=1600)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=2)
    with CaptureQueriesContext(connection) as ctx:
        job = simulation.simulation_job_run(job_id=job.pk)
    assert job.done == 15
    reads = [q["sql"] for q in ctx.captured_queries if 'FROM "teams_strengthrating" WHERE' in q["sql"]]
    assert len(reads) == 1, reads  # five rounds, one read of the season's ratings


@pytest.mark.slow(reason="simulates 2,000 Ninjutsu games to measure a win rate")
def test_stronger_ninjutsu_players_win_more_often():
    strong, weak = glicko2.Rating(1800, 50), glicko2.Rating(1400, 50)
    expected, _ = glicko2.win_probabilities(strong, weak)
    wins = Counter(
        ninjutsu_simulation.ninjutsu_record(strong, weak, rng=random.Random(f"{seed}:simulation"))["winner"]
        for seed in range(2000)
    )
    share = wins[1] / 2000
    assert 0.85 < expected < 0.95 and abs(share - expected) < 0.03
    # through the league: a round robin of 6 rated players, simulated twice over
    season = players_season(6, format=Season.Format.DOUBLE_ROUND_ROBIN)
    teams = players(season)
    for i, team in enumerate(teams):
        rate(team, glicko=1300 + 100 * i)
    run_job(season, seed=11)
    won = dict(
        MatchTeam.objects.filter(match__season=season, outcome="win").values_list("team_id").annotate(n=Count("id"))
    )
    assert won.get(teams[-1].pk, 0) > won.get(teams[0].pk, 0)
    assert sum(won.get(t.pk, 0) for t in teams[3:]) > sum(won.get(t.pk, 0) for t in teams[:3])


def test_the_celery_task_simulates_a_ninjutsu_season(client, eager, django_capture_on_commit_callbacks):
    season = players_season(4)
    client.force_login(season.league.master)
    kwargs = {"slug": season.league.slug, "number": season.number}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("simulation:simulate_season", kwargs=kwargs), {"policy": "auto"})
    job = SimulationJob.objects.get(season=season)
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert job.status == "done" and job.done == job.total == 6
    assert season.matches.filter(status=Match.Status.CONFIRMED, simulated=True).count() == 6
    assert SimulationRun.objects.filter(job=job).count() == 6
    page = client.get(job.get_absolute_url())
    assert page.status_code == 200
    match = season.matches.first()
    html = client.get(match.get_absolute_url()).content.decode()
    assert "How it ended" in html and "Started" in html  # the record, shown as an entered one


def test_the_season_page_offers_simulation_for_ninjutsu(client):
    season = players_season(2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    client.force_login(season.league.master)
    html = client.get(season.get_absolute_url()).content.decode()
    assert "Simulation is not yet available" not in html
    assert reverse("simulation:simulate_season", kwargs={"slug": season.league.slug, "number": 1}) in html


# --- Kage Masters --------------------------------------------------------------------------------


def test_a_simulated_kage_table_record_follows_the_contract():
    ratings = [multiplayer.TableRating(25 + i, 2) for i in range(5)]
    for seed in range(50):
        for n in (2, 3, 4, 5):
            record = kage_simulation.kage_record(ratings[:n], rng=random.Random(seed))
            seats = record["seats"]
            assert record["game"] == "kage_masters" and [s["slot"] for s in seats] == list(range(1, n + 1))
            assert len({s["kage_master"] for s in seats}) == n  # all different
            assert sorted(s["seat"] for s in seats) == list(range(1, n + 1))
            assert all(s["coins"] >= 0 and s["rewards"] >= 0 for s in seats)
            assert all(set(s) == {"slot", "kage_master", "coins", "rewards", "seat"} for s in seats)
            assert kage_simulation.kage_problems(record) == []
    # replayable
    assert kage_simulation.kage_record(ratings, rng=random.Random(9)) == kage_simulation.kage_record(
        ratings, rng=random.Random(9)
    )


def test_stronger_kage_players_finish_first_more_often():
    ratings = [multiplayer.TableRating(mu, 2) for mu in (20, 25, 30, 35)]
    firsts = Counter()
    for seed in range(2000):
        seats = kage_simulation.kage_record(ratings, rng=random.Random(seed))["seats"]
        best = max(s["coins"] + s["rewards"] for s in seats)
        for s in seats:
            if s["coins"] + s["rewards"] == best:
                firsts[s["slot"]] += 1
    assert firsts[4] > firsts[3] > firsts[2] > firsts[1]
    strengths = multiplayer.table_strengths(ratings)
    assert strengths[3] == 1 and strengths[0] < strengths[1] < strengths[2] < 1


def test_the_rest_of_a_kage_masters_season_is_simulated():
    from matches.services import match_create

    season = players_season(5, game=games.KAGE_MASTERS)
    teams = players(season)
    for i, team in enumerate(teams):
        rate(team, mu=20 + 3 * i)
    for round_number in (1, 2, 3):
        order = teams[round_number - 1 :] + teams[: round_number - 1]
        match_create(teams=order[:3], season=season, round_number=round_number)
        match_create(teams=order[3:], season=season, round_number=round_number)
    ratings = game_simulation.ratings_of([t.pk for t in teams])  # what the job reads
    job = run_job(season)
    assert job.status == "done" and job.done == 6
    for record in records(season).values():
        assert record["game"] == "kage_masters"
    assert season.matches.filter(status=Match.Status.CONFIRMED).count() == 6
    sides = list(MatchTeam.objects.filter(match__season=season).select_related("match"))
    assert all(side.league_points is not None for side in sides)
    assert all(
        side.points
        == side.match.submitted_record["seats"][side.slot - 1]["coins"]
        + side.match.submitted_record["seats"][side.slot - 1]["rewards"]
        for side in sides
    )
    table = league_table(season)
    assert [row.played for row in table] == [3] * 5
    # the default scheme: one point for each opponent beaten
    assert sum(row.points for row in table) == sum(s.league_points for s in sides)
    for match in season.matches.all():
        again = game_simulation.simulated_record(
            games.KAGE_MASTERS,
            list(match.sides.order_by("slot")),
            ratings,
            rng=random.Random(f"{match.seed}:simulation"),
        )
        assert again == match.submitted_record  # replays from its seed


def test_kage_tables_are_simulated_with_their_record():
    """The Kage Masters simulator's own path (seeds, ratings read once, the record, the runs),
    confirmed through the entered results' path."""
    from matches.services import match_create

    season = players_season(5, game=games.KAGE_MASTERS)
    teams = players(season)
    for i, team in enumerate(teams):
        rate(team, mu=15 + 5 * i)
    tables = [
        match_create(teams=teams[:3], season=season, round_number=1),
        match_create(teams=teams[3:], season=season, round_number=1),
    ]
    runs, blocked = game_simulation.simulate_batch(tables, seeds={m.pk: 100 + m.pk for m in tables})
    assert blocked is None and len(runs) == 2
    for match in tables:
        match.refresh_from_db()
        assert match.status == Match.Status.CONFIRMED and match.simulated and match.seed == 100 + match.pk
        record = match.submitted_record
        assert record["game"] == "kage_masters" and kage_simulation.kage_problems(record) == []
        sides = list(match.sides.order_by("slot"))
        assert [s["slot"] for s in record["seats"]] == [s.slot for s in sides]
        assert [s.points for s in sides] == [s["coins"] + s["rewards"] for s in record["seats"]]
        ratings = game_simulation.ratings_of([s.team_id for s in sides])
        again = game_simulation.simulated_record(
            games.KAGE_MASTERS, sides, ratings, rng=random.Random(f"{match.seed}:simulation")
        )
        assert again == record  # replays from its seed
    assert game_simulation.simulate_batch(tables, seeds={}) == ([], None)  # played: nothing to do


@pytest.mark.parametrize("format", [Season.Format.TABLES, Season.Format.SWISS_TABLES])
def test_simulating_the_rest_of_a_table_season_lays_and_plays_each_round(format):
    """A table season's job lays every round's tables (games.tables) and plays them, up to the
    season's rounds, with the progress bar's total counting the rounds still to lay."""
    season = players_season(9, game=games.KAGE_MASTERS, format=format, swiss_rounds=3)
    job = run_job(season, seed=5)
    assert job.status == "done", job.error
    assert job.note == "Every round of the season is played."
    matches = list(season.matches.order_by("round_number", "id"))
    assert sorted({m.round_number for m in matches}) == [1, 2, 3]
    assert [len(list(m.sides.all())) for m in matches] == [5, 4] * 3  # 9 players: a table of 5 and one of 4
    assert all(m.status == Match.Status.CONFIRMED and m.simulated for m in matches)
    assert job.total == job.done == 6  # the estimate made before the first round was laid held
    assert [row.played for row in league_table(season)] == [3] * 9
