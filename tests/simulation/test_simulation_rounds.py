"""A simulation job plays a round in one transaction (matches.simulation.simulate_batch): the same
results as playing its matches one at a time, the read model in step at the end of each round,
the kick-off rosters read once a round, and a team that cannot kick off stops the round after the
matches before it, which stay played."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from league.models import ScheduleRun
from league.readmodel import FIELDS, fresh_standings
from league.services import simulations
from matches import services, simulation
from matches.models import Match, SimulationRun
from teams.models import AdvancementRoll, Ninja, Team
from teams.selectors import fresh_ratings
from tests.league.helpers import generate, make_season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


class Rollback(Exception):
    pass


def _season(n: int):
    season = make_season(n, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    return season


def _outcome(season) -> list[tuple]:
    """Every match's sides (points, outcome, rating, koban) and every team's treasury, rating and
    standing: what the season's results wrote."""
    matches = [
        (m.pk, m.status, tuple((s.points, s.outcome, s.rating, s.koban_earned) for s in m.sides.order_by("slot")))
        for m in season.matches.order_by("round_number", "id")
    ]
    teams = list(Team.objects.filter(league=season.league).order_by("pk").values_list("pk", "treasury", "rating"))
    standings = [tuple(getattr(e, name) for name in FIELDS) for e in season.entries.order_by("team_id")]
    return [matches, teams, standings]


def test_independent_batches_cut_at_the_first_team_that_plays_again():
    season = _season(6)  # five rounds of three matches
    matches = list(season.matches.order_by("round_number", "id"))
    batches = simulation.independent_batches(matches)
    assert [len(b) for b in batches] == [3, 3, 3, 3, 3]
    assert [{m.round_number for m in b} for b in batches] == [{1}, {2}, {3}, {4}, {5}]
    # Out of round order, a batch ends where a team would play twice.
    mixed = [matches[0], matches[3], matches[1]]  # round 1, round 2 (shares a team with matches[0]?), round 1
    teams = {m.pk: set(m.sides.values_list("team_id", flat=True)) for m in mixed}
    expected = 1 if teams[mixed[0].pk] & teams[mixed[1].pk] else 2
    assert len(simulation.independent_batches(mixed)[0]) == expected


def test_a_job_plays_rounds_as_its_matches_played_one_at_a_time_would():
    """The batched job against the same matches simulated one by one with the job's seeds, each
    in its own transaction: the same results, ledger, ratings and table."""
    season = _season(6)
    job, _ = simulations.simulation_request(actor=season.league.master, scope="season", season=season, seed=9)
    order = list(season.matches.order_by("round_number", "id"))
    one_by_one = []
    try:
        with transaction.atomic():
            for match in order:
                simulation.simulate_match(
                    match=match, seed=simulation.derived_seed(job.seed, f"match:{match.pk}"), policy=job.policy
                )
            one_by_one = _outcome(season)
            raise Rollback
    except Rollback:
        pass
    assert not season.matches.filter(status=Match.Status.CONFIRMED).exists()
    job = simulations.simulation_job_run(job_id=job.pk)
    assert (job.status, job.done) == ("done", 15)
    batched = _outcome(season)
    assert batched == one_by_one
    assert {m[1] for m in batched[0]} == {Match.Status.CONFIRMED}
    # The read model written once a round equals a fresh computation.
    stored = {e.team_id: {name: getattr(e, name) for name in FIELDS} for e in season.entries.all()}
    assert stored == fresh_standings(season)
    teams = Team.objects.filter(league=season.league)
    assert dict(teams.values_list("pk", "rating")) == fresh_ratings(teams.values_list("pk", flat=True))


def test_the_kick_off_rosters_of_a_round_take_the_same_queries_for_one_match_or_four():
    season = _season(8)
    round_one = list(season.matches.filter(round_number=1).order_by("id"))
    assert len(round_one) == 4
    counts = []
    one = [m for m in round_one if m.challenge_id][:1]  # a fixed challenge: its XP awards are read too
    assert one
    for matches in (one, round_one):
        with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
            loaded = services.kick_off_rosters_locked(matches)
        counts.append(len(ctx.captured_queries))
        assert set(loaded.sides) == set(loaded.matches) == {m.pk for m in matches}
        assert all(len(sides) == 2 for sides in loaded.sides.values())
    assert counts[0] == counts[1]


def test_a_team_that_cannot_kick_off_stops_the_round_after_the_matches_before_it():
    season = _season(4)
    first, second = season.matches.filter(round_number=1).order_by("id")
    blocked_team = second.sides.order_by("slot")[0].team
    ninja = blocked_team.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id")[0]
    AdvancementRoll.objects.create(ninja=ninja, level=2, faces=["Fire", "Water"])  # left to its player
    runs, blocked = simulation.simulate_batch([first, second], seeds={first.pk: 1, second.pk: 2})
    assert [r.match_id for r in runs] == [first.pk]
    assert isinstance(blocked, services.KickOffBlocked)
    assert f"{blocked_team.name} cannot kick off" in " ".join(blocked.messages)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == Match.Status.CONFIRMED and second.status == Match.Status.SCHEDULED
    assert second.kicked_off_at is None and not SimulationRun.objects.filter(match=second).exists()
    # The first match's table rows and ratings were written before the round stopped.
    entries = {e.team_id: e.played for e in season.entries.all()}
    first_teams = set(first.sides.values_list("team_id", flat=True))
    assert {pk for pk, n in entries.items() if n} == first_teams


def test_a_job_runs_with_the_collector_relaxed_and_restores_it(monkeypatch):
    import gc

    from common.collector import BATCH_THRESHOLD

    season = _season(4)
    seen = []
    real = simulations.simulate_batch

    def recording(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(simulations, "simulate_batch", recording)
    before = gc.get_threshold()
    job, _ = simulations.simulation_request(actor=season.league.master, scope="season", season=season, seed=2)
    assert simulations.simulation_job_run(job_id=job.pk).done == 6
    assert seen == [max(BATCH_THRESHOLD, before[0])] * 3  # three rounds
    assert gc.get_threshold() == before
