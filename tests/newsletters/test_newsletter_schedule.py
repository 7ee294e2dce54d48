"""The weekly schedule: one django-celery-beat task made by one command, drafting per league."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from league import services as league_services
from league.models import Season
from matches.models import Match
from newsletters import services
from newsletters.models import Newsletter
from newsletters.periods import Period, last_complete_week
from newsletters.tasks import newsletters_weekly_task
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.newsletters.helpers import join, play


def run_weekly() -> list[int]:
    """The periodic task, run eagerly as beat would have it run (no result.get(): a live worker
    started earlier in this process makes Celery refuse blocking joins)."""
    result = newsletters_weekly_task.apply()
    assert result.successful(), result.traceback
    return result.result


@pytest.mark.django_db
def test_setup_command_creates_the_periodic_task_once_and_keeps_admin_edits():
    call_command("setup_periodic_newsletters")
    call_command("setup_periodic_newsletters")
    task = PeriodicTask.objects.get(task="newsletters.tasks.newsletters_weekly_task")
    assert PeriodicTask.objects.filter(task="newsletters.tasks.newsletters_weekly_task").count() == 1
    assert (task.crontab.day_of_week, task.crontab.hour, task.crontab.minute) == ("1", "7", "0")
    assert task.enabled

    # Edited in the admin: the command leaves it alone; --reset puts it back.
    task.enabled = False
    task.save()
    call_command("setup_periodic_newsletters", hour="9")
    task.refresh_from_db()
    assert not task.enabled and task.crontab.hour == "7"
    call_command("setup_periodic_newsletters", reset=True, hour="9")
    task.refresh_from_db()
    assert task.enabled and task.crontab.hour == "9"
    assert PeriodicTask.objects.filter(task="newsletters.tasks.newsletters_weekly_task").count() == 1


@pytest.mark.django_db(transaction=True)
def test_weekly_task_drafts_the_latest_completed_round_once_and_never_touches_published(seeded):
    idle = LeagueFactory(name="Idle", slug="idle")  # nothing to report: no newsletter
    league_services.season_create(league=idle, format=Season.Format.ROUND_ROBIN)
    # Round 3 is scheduled but not played: round 2 is the latest completed round.
    from matches import services as match_services

    match_services.match_create(teams=[seeded.tigers, seeded.apes], season=seeded.season, round_number=3)

    first = run_weekly()
    second = run_weekly()
    assert first == second
    newsletter = Newsletter.objects.get()
    assert (newsletter.league, newsletter.period_key) == (seeded.league, "season-1-round-2")
    assert newsletter.builds == 2 and newsletter.is_built

    services.newsletter_publish(newsletter=newsletter, actor=seeded.league.master, send_email=False)
    newsletter.refresh_from_db()
    frozen = (newsletter.content_html, newsletter.builds)
    run_weekly()
    newsletter.refresh_from_db()
    assert (newsletter.content_html, newsletter.builds) == frozen
    assert Newsletter.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_weekly_task_drafts_last_week_for_a_season_without_rounds(catalog):
    master = UserFactory(username="weekly-master")
    league = LeagueFactory(master=master, slug="weekly")
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    home = join(league, make_legal_team("tora", owner=UserFactory(username="w1"), name="Wolves", league=league))
    away = join(league, make_legal_team("ika", owner=UserFactory(username="w2"), name="Eels", league=league))
    match = play(league, season, None, home, away, 4, 2)
    last_week = timezone.now() - dt.timedelta(days=7)
    Match.objects.filter(pk=match.pk).update(confirmed_at=last_week)

    run_weekly()
    newsletter = Newsletter.objects.get()
    assert newsletter.period_key == last_complete_week().key
    assert newsletter.kind == "week"
    assert [r["headline"] for r in newsletter.sections["reports"]] == ["Wolves beat Eels 4–2"]
    assert newsletter.sections["charts"][0]["x_label"] == "Games played"


def test_periods_round_trip_through_their_keys():
    assert Period.from_key("season-2-round-11") == Period.round(2, 11)
    assert Period.from_key("2025-w07") == Period.week(2025, 7)
    assert Period.week(2025, 7).key == "2025-w07"
    start, end = Period.week(2025, 7).window()
    assert (end - start) == dt.timedelta(days=7) and start.weekday() == 0
    for bad in ("season-0-round-1", "2025-w54", "round-1", "", "2021-w53"):
        with pytest.raises(Exception):
            Period.from_key(bad)
