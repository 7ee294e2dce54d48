"""Concurrent builds on PostgreSQL: one newsletter per league and period (unique constraint and
row lock), and a build racing a publication never overwrites the published newsletter."""

from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from league.models import League
from newsletters import services
from newsletters.models import Newsletter
from newsletters.periods import Period
from tests.newsletters.helpers import seed_league

pytestmark = pytest.mark.postgres


def run_together(*targets) -> list:
    barrier = threading.Barrier(len(targets))
    results: list = [None] * len(targets)

    def work(i, target):
        try:
            barrier.wait(timeout=10)
            results[i] = target()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_three_requests_at_once_make_one_newsletter(postgres_tx, catalog):
    s = seed_league()

    def request():
        return services.newsletter_request(league=League.objects.get(pk=s.league.pk), period=Period.round(1, 2)).pk

    results = run_together(request, request, request)
    assert all(isinstance(r, int) for r in results), results
    assert len(set(results)) == 1
    newsletter = Newsletter.objects.get()
    assert newsletter.builds == 3 and newsletter.build_status == Newsletter.BuildStatus.DONE


def test_a_build_racing_the_publication_never_rewrites_it_after_publication(postgres_tx, catalog):
    s = seed_league()
    newsletter = services.newsletter_request(league=s.league, period=Period.round(1, 2))

    def publish():
        return services.newsletter_publish(
            newsletter=Newsletter.objects.get(pk=newsletter.pk), actor=s.league.master, send_email=False
        ).status

    def rebuild():
        return services.newsletter_build(newsletter_id=newsletter.pk).status

    for _ in range(3):
        results = run_together(publish, rebuild)
        final = Newsletter.objects.get(pk=newsletter.pk)
        if final.is_published:
            break
        # The build got there first: publishing waits for it (refused while it runs).
        assert isinstance(results[0], ValidationError), results
    if not final.is_published:
        # On a loaded machine the build may win every race; once it has finished, publishing works.
        assert publish() == Newsletter.Status.PUBLISHED
        final = Newsletter.objects.get(pk=newsletter.pk)
    assert final.is_published, results
    assert final.built_at <= final.published_at  # never written after publication
    before = (final.content_html, final.builds, final.built_at)
    services.newsletter_build(newsletter_id=newsletter.pk)
    final.refresh_from_db()
    assert (final.content_html, final.builds, final.built_at) == before
