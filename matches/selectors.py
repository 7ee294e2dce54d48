"""Reads for matches in a fixed number of queries."""

from __future__ import annotations

from django.db.models import Prefetch

from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from teams.models import AdvancementRoll, TreasuryEntry, XpEvent


def match_for_page(pk: int) -> Match:
    return (
        Match.objects.select_related("league", "season", "challenge", "submitted_by", "confirmed_by")
        .prefetch_related(
            Prefetch(
                "sides",
                queryset=MatchTeam.objects.select_related("team", "team__owner", "team__clan")
                .prefetch_related(Prefetch("ninjas", queryset=MatchNinja.objects.order_by("id")))
                .order_by("slot"),
            ),
            "challenge__xp_awards",
        )
        .get(pk=pk)
    )


def sequence_outcomes(match: Match) -> dict:
    """Everything the post-game sequence wrote for this match, grouped for the match page."""
    return {
        "treasury": list(TreasuryEntry.objects.filter(match=match).select_related("team").order_by("id")),
        "upkeep": list(UpkeepDecision.objects.filter(match=match).select_related("ninja", "ninja__team")),
        "downtime": list(
            DowntimeResult.objects.filter(match=match).select_related("ninja", "ninja__team", "spared_by")
        ),
        "xp": list(XpEvent.objects.filter(match=match).select_related("ninja", "ninja__team").order_by("id")),
        "rolls": list(
            AdvancementRoll.objects.filter(match=match)
            .select_related("ninja", "ninja__team", "advancement", "advancement__keyword")
            .order_by("id")
        ),
        "dice": list(DiceRoll.objects.filter(match=match).select_related("ninja").order_by("id")),
    }
