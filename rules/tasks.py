from celery import shared_task

from rules import selectors


@shared_task
def catalog_summary_task() -> dict[str, int]:
    """Counts of the loaded rules catalog (used to prove a worker reaches the database)."""
    return selectors.catalog_counts()
