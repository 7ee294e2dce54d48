"""Ronin upkeep nobody decided by a fixture's deadline (the periodic task's service).

Each team decides its own ronin's upkeep (matches.services, "ronin upkeep"); an accepted result
waits for it. Once the fixture's deadline (its own, else its round's) has passed, the league's
house rule ``ronin_upkeep_default`` decides for every ronin still undecided and the post-game
sequence runs: nothing waits for ever on a player who went quiet.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from league.dashboard import due_expression
from matches import services as match_services
from matches.models import Match

#: At most this many matches are decided by one run of the periodic task (the next run does the rest).
UPKEEP_BATCH = 200


def overdue_upkeep(*, today: dt.date | None = None):
    """Accepted results still waiting for a ronin's upkeep after their fixture's deadline."""
    today = today or timezone.localdate()
    return (
        Match.objects.filter(status=Match.Status.SUBMITTED, upkeep_waits=True)
        .annotate(due=due_expression())
        .filter(due__lt=today)
        .order_by("due", "pk")
    )


def upkeep_defaults_apply(*, today: dt.date | None = None) -> int:
    """Decide by the house rule every ronin whose result waited past its deadline; each match in
    its own transaction (one that fails leaves the others decided). Returns how many were."""
    done = 0
    for pk in list(overdue_upkeep(today=today).values_list("pk", flat=True)[:UPKEEP_BATCH]):
        done += match_services.upkeep_default_apply(match=Match(pk=pk))
    return done
