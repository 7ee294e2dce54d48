"""What keeps a simulated season fast (issue 15 point 5): the work after each result's commit (the
strength ratings' recomputation from the whole history) runs once per simulation job, not once per
match, and a job's SQL queries grow by a bounded number per match, not with the matches played."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.models import ScheduleRun
from league.services import simulations as simulation
from matches import hooks
from matches.models import Match, SimulationRun
from stats.models import RatingsState
from teams.models import StrengthRating
from tests.league.helpers import generate, make_season


@pytest.fixture
def recorder():
    """A result-changed callback that records the match ids it is given."""
    calls: list[int] = []
    hooks.on_result_changed("tests.recorder", calls.append)
    yield calls
    hooks._changed.pop("tests.recorder", None)


def test_inside_a_batch_the_callbacks_run_once_at_the_end_with_the_last_match(recorder):
    with hooks.results_changed_once():
        hooks.result_changed(3)
        with hooks.results_changed_once():  # nested: flushed with the outer batch
            hooks.result_changed(5)
        assert recorder == []
        hooks.result_changed(4)
    assert recorder == [4]
    hooks.result_changed(6)  # outside a batch: at once
    assert recorder == [4, 6]


def test_a_batch_ended_by_an_error_still_runs_the_callbacks(recorder):
    with pytest.raises(RuntimeError), hooks.results_changed_once():
        hooks.result_changed(7)
        raise RuntimeError("the job stopped")
    assert recorder == [7]
    with hooks.results_changed_once():
        pass
    assert recorder == [7]  # nothing changed: nothing to run


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("catalog", "eager")
def test_a_season_job_recomputes_the_ratings_once_after_its_matches(recorder):
    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=3)
    job = simulation.simulation_job_run(job_id=job.pk)
    assert job.status == "done" and job.done == 6
    last = SimulationRun.objects.filter(job=job).latest("id").match_id
    assert recorder == [last]  # each match committed on its own, the callbacks ran once
    # ... and the ratings (the stats app's callback, run in-process here) count every match.
    assert RatingsState.objects.get().matches == 6
    assert StrengthRating.objects.filter(team__isnull=False).count() > 0


def _job_queries(n_teams: int) -> tuple[int, int]:
    season = make_season(n_teams, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=3)
    with CaptureQueriesContext(connection) as ctx:
        job = simulation.simulation_job_run(job_id=job.pk)
    assert job.status == "done"
    assert season.matches.filter(status=Match.Status.CONFIRMED).count() == job.done
    return len(ctx.captured_queries), job.done


@pytest.mark.slow(reason="simulates two seasons, of 4 and of 8 teams (34 matches with their post-game sequences)")
@pytest.mark.django_db
@pytest.mark.usefixtures("catalog")
def test_a_season_job_runs_a_bounded_number_of_queries_a_match():
    small, small_matches = _job_queries(4)
    big, big_matches = _job_queries(8)
    assert (small_matches, big_matches) == (6, 28)
    # Per match: kick-off (the rosters read once), the post-game sequence in bulk, the stored
    # standings and ratings, the advancement choices, the run's record. The extra matches cost at
    # most that many queries each, whatever the number of matches already played.
    per_match = (big - small) / (big_matches - small_matches)
    # (56 when written; 63 since a result also writes the notifications of its players and
    # kick-off checks the rosters' allowances, issue 14; 38.7 since the simulator kicks off and
    # submits under its one lock with the rosters it loaded, the match row is written once and
    # rows of one table in one UPDATE: common.bulk.update_rows, issues 15 and 18; 24.6 since a job
    # plays a round a transaction, its rosters read and its table rows and ratings written once;
    # 22.0 without a savepoint a match.)
    assert per_match <= 25, (small, big)
    assert big <= 40 + 25 * big_matches, (small, big)
