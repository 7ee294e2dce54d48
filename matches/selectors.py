"""Reads for matches in a fixed number of queries."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from teams.models import AdvancementRoll, Team, TreasuryEntry, XpEvent


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


def team_game_records(team: Team) -> QuerySet:
    """The team's played matches (newest first) with opponents and All-Stars, fixed query count."""
    return (
        MatchTeam.objects.filter(team=team, match__status=Match.Status.CONFIRMED)
        .select_related("match", "match__challenge")
        .prefetch_related(
            Prefetch("match__sides", queryset=MatchTeam.objects.select_related("team").order_by("slot")),
            Prefetch("ninjas", queryset=MatchNinja.objects.filter(all_star_awards__gt=0), to_attr="all_stars"),
        )
        .order_by("-match__date", "-match_id")
    )


def game_record_line(side) -> dict:
    """One line of the scroll's game records: the opponents and the score with this team first."""
    others = [s for s in side.match.sides.all() if s.team_id != side.team_id]
    return {
        "side": side,
        "match": side.match,
        "opponents": [o.team for o in others],
        "score": "–".join(str(p if p is not None else 0) for p in [side.points, *[o.points for o in others]]),
        "all_stars": side.all_stars,
    }
