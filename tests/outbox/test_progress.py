"""One progress stack for long jobs (outbox/progress.py): one status view, one include, one script."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from django.urls import get_resolver

from league.models import ScheduleRun
from matches.models import SimulationJob
from outbox import jobs, progress
from outbox.models import OutboxTask
from outbox.views import task_status
from tests.league.helpers import make_season

ROOT = Path(__file__).resolve().parents[2]


def test_every_progress_bar_is_the_one_include_with_the_one_script():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    loads_script = [p.relative_to(ROOT).as_posix() for p in templates if "js/progress.js" in p.read_text()]
    assert loads_script == ["templates/includes/_progress.html"]
    bars = [p.relative_to(ROOT).as_posix() for p in templates if "data-progress" in p.read_text()]
    assert bars == ["templates/includes/_progress.html"]
    users = {p.relative_to(ROOT).as_posix() for p in templates if "includes/_progress.html" in p.read_text()}
    assert users == {
        "templates/league/schedule_run.html",
        "templates/league/simulation_job.html",
        "templates/newsletters/includes/_build_progress.html",
        "templates/league/balance_study.html",
    }
    assert [p.name for p in (ROOT / "static" / "js").glob("*progress*")] == ["progress.js"]


def test_the_job_addresses_answer_with_the_one_view():
    names = {"league:task_status": "schedule run", "simulation:simulation_status": "simulation"}
    resolver = get_resolver()
    for name, kind in names.items():
        namespace, url_name = name.split(":")
        patterns = resolver.namespace_dict[namespace][1].reverse_dict.getlist(url_name)
        assert patterns, name
        found = [p for p in resolver.namespace_dict[namespace][1].url_patterns if getattr(p, "name", None) == url_name]
        assert found[0].callback is task_status and found[0].default_args == {"kind": kind}


def _kind(**kw) -> jobs.JobKind:
    base = jobs.kind_of(ScheduleRun)
    return jobs.JobKind(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, **kw})


@pytest.mark.django_db
def test_the_task_meta_moves_a_pending_row_and_a_page_never_reads_it(monkeypatch, catalog):
    season = make_season(4)
    from league import services

    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN)
    kind = jobs.kind_of(ScheduleRun)
    asked = []

    def meta(task_id, app=None):
        asked.append(task_id)
        return "PROGRESS", {"done": 3, "total": 6, "step": "pairing"}

    monkeypatch.setattr(progress, "task_state", meta)
    app = SimpleNamespace(conf=SimpleNamespace(task_always_eager=False))
    page = progress.progress_of(kind, run)  # a page: the row only
    assert (page.phase, page.done, page.percent, page.message, asked) == ("pending", 0, 0, "Waiting for a worker…", [])
    live = progress.status_json(kind, run, app=app)
    assert asked == [run.task_id]
    assert (live["phase"], live["state"], live["done"], live["total"], live["percent"], live["ready"]) == (
        "running",
        "PROGRESS",
        3,
        6,
        50,
        False,
    )
    assert live["message"] == "3 of 6 fixtures…" and live["step"] == "pairing"


@pytest.mark.django_db
def test_a_task_waiting_in_the_outbox_is_delayed_and_the_backend_is_not_asked(monkeypatch, catalog):
    season = make_season(4)
    job = SimulationJob.objects.create(
        league=season.league, season=season, scope="season", policy="auto", seed=1, task_id="t-waiting"
    )
    OutboxTask.objects.create(task_name="x", task_id="t-waiting", args=[job.pk])
    monkeypatch.setattr(progress, "task_state", lambda *a, **k: pytest.fail("the result backend was asked"))
    app = SimpleNamespace(conf=SimpleNamespace(task_always_eager=False))
    status = progress.status_json(jobs.kind_of(SimulationJob), job, app=app)
    assert (
        status["delayed"]
        and status["state"] == "PENDING"
        and status["message"].startswith("Waiting for the task runner")
    )


def test_finished_rows_are_full_and_say_so():
    kind = _kind(progress=lambda row: progress.RowProgress(phase="failed", error="boom"), describe=lambda p: p.error)
    row = SimpleNamespace(task_id="")
    p = progress.progress_of(kind, row)
    assert (p.finished, p.width, p.message) == (True, 100, "boom")
    done = progress.progress_of(
        _kind(progress=lambda row: progress.RowProgress(phase="done", done=2, total=4), describe=lambda p: "ok"), row
    )
    assert (done.percent, done.width) == (100, 100)
