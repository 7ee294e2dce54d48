"""Celery tasks for notifications: thin, idempotent (a fixture is reminded of once: a unique row)."""

from __future__ import annotations

from celery import shared_task

from notifications import services


@shared_task(name="notifications.deadline_reminders", acks_late=True, autoretry_for=(OSError,), max_retries=3)
def deadline_reminders_task() -> int:
    """Periodic (beat, league/periodic.py): remind the players of fixtures near their deadline."""
    return services.deadline_reminders_send()
