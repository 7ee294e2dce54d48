"""Reads for newsletters: what happened in a period (for the build) and the pages' querysets.

Build reads run a fixed number of queries whatever the number of matches: the period's matches
come with their sides, feats, downtime, upkeep and advancement rolls prefetched; the season's
counted results up to the end of the period are one query of MatchTeam rows, from which the
table, head-to-head, clans' records, season records and charts are all derived in Python.

The league table "as it stood at the end of the period" reuses league.selectors' building blocks
(``matches.models.counted_q``, ``TableRow``, ``rank_rows``), restricted to the rounds up to the period's
round (or the results confirmed before the end of the week). It is computed here rather than by
a new option on ``league.selectors.league_table``, which belongs to the league app.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Case, Count, IntegerField, Max, Prefetch, Q, QuerySet, Sum, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone

from league.models import Bye, League, Season
from league.selectors import TableRow, counts_bye_points, rank_rows, side_points
from matches.models import REGULAR_STAGE, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision, counted_q
from newsletters.models import Newsletter, NewsletterDelivery
from newsletters.periods import Period
from rules.engine import league as rules_league
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent
from teams.selectors import rating_prefetch, team_snapshot

CONFIRMED = Match.Status.CONFIRMED


# --- the period ----------------------------------------------------------------------------------


def period_season(league: League, period: Period) -> Season | None:
    """The season whose table a newsletter shows: the round's season, or for a week the league's
    current season (the latest one when all are finished)."""
    if period.is_round:
        return Season.objects.filter(league=league, number=period.season_number).first()
    unfinished_first = Case(
        When(status=Season.Status.FINISHED, then=Value(1)), default=Value(0), output_field=IntegerField()
    )
    return league.seasons.order_by(unfinished_first, "-number").first()


def period_match_q(league: League, period: Period, season: Season | None) -> Q:
    """Confirmed matches reported by the newsletter: a round's regular fixtures, or every league
    match confirmed during the week (friendlies and playoffs included)."""
    q = Q(league=league, status=CONFIRMED)
    if period.is_round:
        return q & Q(season=season, stage=REGULAR_STAGE, round_number=period.round_number)
    start, end = period.window()
    return q & Q(confirmed_at__gte=start, confirmed_at__lt=end)


def period_matches(league: League, period: Period, season: Season | None) -> list[Match]:
    if period.is_round and season is None:
        return []
    sides = (
        MatchTeam.objects.select_related("team", "team__clan", "team__owner")
        .prefetch_related(Prefetch("ninjas", queryset=MatchNinja.objects.order_by("id")))
        .order_by("slot")
    )
    return list(
        Match.objects.filter(period_match_q(league, period, season))
        .select_related("challenge", "season")
        .prefetch_related(
            Prefetch("sides", queryset=sides),
            Prefetch(
                "downtime_results", queryset=DowntimeResult.objects.select_related("ninja", "spared_by").order_by("id")
            ),
            Prefetch(
                "upkeep_decisions",
                queryset=UpkeepDecision.objects.select_related("ninja", "ninja__team").order_by("id"),
            ),
        )
        .order_by("confirmed_at", "id")
    )


def round_window(season: Season, round_number: int) -> tuple[dt.datetime, dt.datetime]:
    """The time a round covers, for what happens off the table (hires, releases, treasuries):
    from the last result of the earlier rounds (or the season's opening) to the last result of
    this round (or now, while none is in)."""
    counted = Match.objects.counted(season)
    agg = counted.aggregate(
        before=Max("confirmed_at", filter=Q(round_number__lt=round_number)),
        upto=Max("confirmed_at", filter=Q(round_number=round_number)),
    )
    start = agg["before"] or season.created_at
    end = agg["upto"] or timezone.now()
    return start, max(start, end)


def period_window(period: Period, season: Season | None) -> tuple[dt.datetime, dt.datetime]:
    if period.is_round:
        if season is None:
            now = timezone.now()
            return now, now
        return round_window(season, period.round_number)
    return period.window()


def latest_completed_round(season: Season) -> int | None:
    """The highest regular round whose fixtures are all confirmed (at least one; voided ones
    do not count)."""
    rows = (
        Match.objects.filter(season=season, round_number__isnull=False).regular().values_list("round_number", "status")
    )
    rounds: dict[int, bool] = {}
    for number, status in rows:
        rounds[number] = rounds.get(number, True) and status == CONFIRMED
    complete = [n for n, done in rounds.items() if done]
    return max(complete) if complete else None


# --- the season up to the end of the period ------------------------------------------------------


def season_sides_through(season: Season, period: Period) -> list[MatchTeam]:
    """Every side of the season's counted matches up to the end of the period, one query, in the
    order the games were played (round, then confirmation)."""
    q = counted_q(season, "match__")
    if period.is_round and period.season_number == season.number:
        q &= Q(match__round_number__lte=period.round_number)
    elif not period.is_round:
        q &= Q(match__confirmed_at__lt=period.window()[1])
    return list(
        MatchTeam.objects.filter(q)
        .select_related("match", "match__challenge", "team", "team__clan", "team__owner")
        .order_by("match__round_number", "match__confirmed_at", "match_id", "slot")
    )


def group_by_match(sides: list[MatchTeam]) -> dict[int, list[MatchTeam]]:
    games: dict[int, list[MatchTeam]] = {}
    for side in sides:
        games.setdefault(side.match_id, []).append(side)
    return games


def byes_through(season: Season, period: Period) -> dict[int, int]:
    """{team id: byes} that score in the table up to the period (swiss seasons: the byes of the
    rounds up to a round period's, every bye for a week), one grouped query; else empty."""
    if not counts_bye_points(season):
        return {}
    byes = Bye.objects.filter(season=season, stage=REGULAR_STAGE)
    if period.is_round and period.season_number == season.number:
        byes = byes.filter(round_number__lte=period.round_number)
    return {r["team_id"]: r["n"] for r in byes.order_by().values("team_id").annotate(n=Count("id"))}


def table_through(season: Season, sides: list[MatchTeam], byes: dict[int, int] | None = None) -> list[TableRow]:
    """The league table from the given counted sides (and ``byes``, {team id: byes that score}),
    ranked with the season's tie-breakers.

    Rating: each team's rating at the kick-off of its last game in the period (what the table
    looked like then); a team that has not played yet shows its current rating.
    """
    games = group_by_match(sides)
    team_ids = {s.team_id for s in sides}
    teams = list(
        Team.objects.filter(Q(season_entries__season=season) | Q(pk__in=team_ids))
        .distinct()
        .select_related("owner", "clan")
        .prefetch_related(rating_prefetch())
        .order_by("id")
    )
    stats = {
        t.pk: {"played": 0, "won": 0, "drawn": 0, "lost": 0, "for": 0, "against": 0, "rating": None} for t in teams
    }
    h2h: dict[tuple[int, int], int] = defaultdict(int)
    league_points: dict[int, int] = defaultdict(int)
    met: dict[int, list[int]] = defaultdict(list)
    byes = byes or {}
    for game in games.values():
        total = sum(s.points or 0 for s in game)
        for side in game:
            row = stats.setdefault(
                side.team_id, {"played": 0, "won": 0, "drawn": 0, "lost": 0, "for": 0, "against": 0, "rating": None}
            )
            row["played"] += 1
            earned = side_points(
                season,
                side.outcome,
                forfeited=side.match.status == Match.Status.FORFEITED,
                league_points=side.league_points,
            )
            league_points[side.team_id] += earned
            row[{"win": "won", "draw": "drawn", "loss": "lost"}.get(side.outcome, "lost")] += 1
            row["for"] += side.points or 0
            row["against"] += total - (side.points or 0)
            if side.rating is not None:
                row["rating"] = side.rating
            for other in game:
                if other.team_id != side.team_id:
                    h2h[(side.team_id, other.team_id)] += earned
                    met[side.team_id].append(other.team_id)
    rows = []
    for team in teams:
        s = stats[team.pk]
        rating = s["rating"] if s["rating"] is not None else rules_league.team_rating(team_snapshot(team, team.roster))
        rows.append(
            TableRow(
                team=team,
                played=s["played"],
                won=s["won"],
                drawn=s["drawn"],
                lost=s["lost"],
                points=league_points[team.pk] + byes.get(team.pk, 0) * season.bye_points,
                points_for=s["for"],
                points_against=s["against"],
                rating=rating,
                byes=byes.get(team.pk, 0),
                opponents=tuple(met[team.pk]),
            )
        )
    return rank_rows(rows, season.tie_breaker_list, dict(h2h))


# --- facts of the period -------------------------------------------------------------------------


def xp_earners(match_ids: list[int]) -> list[dict]:
    """XP gained per model in the period's matches (feats, awards and Water downtime XP), from the
    XP ledger, most first."""
    rows = (
        XpEvent.objects.filter(match_id__in=match_ids)
        .values("ninja_id", "ninja__name", "ninja__team_id", "ninja__team__name")
        .annotate(total=Sum("amount"))
        .filter(total__gt=0)
        .order_by("-total", "ninja__name", "ninja_id")
    )
    return [
        {
            "ninja_id": r["ninja_id"],
            "ninja": r["ninja__name"],
            "team_id": r["ninja__team_id"],
            "team": r["ninja__team__name"],
            "xp": r["total"],
        }
        for r in rows
    ]


def level_ups(match_ids: list[int]) -> list[AdvancementRoll]:
    return list(
        AdvancementRoll.objects.filter(match_id__in=match_ids)
        .exclude(status=AdvancementRoll.Status.VOIDED)
        .select_related("ninja", "ninja__team")
        .prefetch_related(Prefetch("advancement", queryset=Advancement.objects.select_related("keyword")))
        .order_by("match_id", "id")
    )


def treasuries_at(team_ids: list[int], cutoff: dt.datetime, match_ids: list[int]) -> list[tuple[Team, int]]:
    """Each team's treasury at the end of the period: the balance after its last ledger entry
    written before ``cutoff`` or by one of the period's matches (whose post-game entries are
    written just after the match is confirmed)."""
    last_ids = (
        TreasuryEntry.objects.filter(team_id__in=team_ids)
        .filter(Q(created_at__lte=cutoff) | Q(match_id__in=match_ids))
        .values("team_id")
        .annotate(last=Max("id"))
        .values_list("last", flat=True)
    )
    entries = TreasuryEntry.objects.filter(id__in=list(last_ids)).select_related("team")
    return sorted(((e.team, e.balance_after) for e in entries), key=lambda tb: (-tb[1], tb[0].name))


def ronin_hired(team_ids: list[int], start: dt.datetime, end: dt.datetime) -> list[dict]:
    """Ronin recruited in the window: the ledger's recruitment rows, matched to the ronin they
    paid for (same team, "Recruited <name>")."""
    ronin = {
        (n.team_id, n.name): n
        for n in Ninja.objects.filter(
            team_id__in=team_ids, profile__kind="ronin", hired_at__gte=start, hired_at__lte=end
        ).select_related("profile", "team")
    }
    if not ronin:
        return []
    entries = TreasuryEntry.objects.filter(
        team_id__in={team for team, _ in ronin},
        reason=TreasuryEntry.Reason.RECRUIT,
        created_at__gte=start,
        created_at__lte=end,
    ).order_by("id")
    hired = []
    for entry in entries:
        name = entry.note.removeprefix("Recruited ").strip()
        ninja = ronin.pop((entry.team_id, name), None)
        if ninja is not None:
            hired.append(
                {
                    "ninja": ninja.name,
                    "profile": ninja.profile.name,
                    "team": ninja.team.name,
                    "team_id": ninja.team_id,
                    "koban": -entry.amount,
                    "upkeep": ninja.profile.upkeep or 0,
                }
            )
    return hired


def ronin_released_off_table(team_ids: list[int], start: dt.datetime, end: dt.datetime) -> list[Ninja]:
    """Ronin their players released in the window, away from the table (a ronin released by a
    match's upkeep decision is reported with that match)."""
    return list(
        Ninja.objects.filter(
            team_id__in=team_ids,
            profile__kind="ronin",
            status=Ninja.Status.RELEASED,
            released_at__gt=start,
            released_at__lte=end,
        )
        .exclude(upkeep_decisions__paid=False)
        .select_related("team", "profile")
        .order_by("released_at", "id")
    )


def previous_newsletter(newsletter: Newsletter) -> Newsletter | None:
    """The league's newsletter for the period before this one (same season and kind) that has a
    built table, draft or published."""
    return (
        Newsletter.objects.filter(
            league_id=newsletter.league_id,
            season_id=newsletter.season_id,
            kind=newsletter.kind,
            sort_key__lt=newsletter.sort_key,
            built_at__isnull=False,
        )
        .exclude(pk=newsletter.pk)
        .only("id", "title", "period_key", "sections", "league_id")
        .order_by("-sort_key")
        .first()
    )


def recipients(league: League) -> list:
    """Every player of the league: owners of its accepted teams, and the master."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    owners = (
        Team.objects.filter(league=league, entry_status=Team.EntryStatus.ACCEPTED)
        .exclude(status=Team.Status.RETIRED)
        .values("owner_id")
    )
    return list(User.objects.filter(Q(pk__in=owners) | Q(pk=league.master_id)).order_by("id"))


# --- pages ---------------------------------------------------------------------------------------


def league_by_slug(slug: str) -> League:
    return get_object_or_404(League.objects.select_related("master"), slug=slug)


def newsletter_for_page(league_slug: str, key: str) -> Newsletter:
    return get_object_or_404(
        Newsletter.objects.select_related("league", "league__master", "published_by"),
        league__slug=league_slug,
        period_key=key,
    )


def newsletter_for_reading(league_slug: str, key: str) -> Newsletter:
    """The newsletter page's read: the built HTML and the stored period label, never the sections'
    JSON (up to hundreds of KB at 64 teams, for one label)."""
    return get_object_or_404(
        Newsletter.objects.select_related("league", "league__master", "published_by").defer("sections"),
        league__slug=league_slug,
        period_key=key,
    )


def published(league: League) -> QuerySet:
    return (
        Newsletter.objects.filter(league=league, status=Newsletter.Status.PUBLISHED)
        .defer("sections", "content_html", "content_text", "editorial", "editorial_html")
        .order_by("-published_at", "-id")
    )


def drafts(league: League) -> QuerySet:
    return (
        Newsletter.objects.filter(league=league, status=Newsletter.Status.DRAFT)
        .defer("sections", "content_html", "content_text", "editorial", "editorial_html")
        .order_by("-sort_key", "-id")
    )


def neighbours(newsletter: Newsletter) -> tuple[Newsletter | None, Newsletter | None]:
    """The published newsletters just before and after this one (one query)."""
    if not newsletter.is_published:
        return None, None
    rows = list(
        Newsletter.objects.filter(league_id=newsletter.league_id, status=Newsletter.Status.PUBLISHED)
        .filter(
            Q(published_at__lt=newsletter.published_at)
            | Q(published_at__gt=newsletter.published_at)
            | Q(published_at=newsletter.published_at, id__lt=newsletter.pk)
            | Q(published_at=newsletter.published_at, id__gt=newsletter.pk)
        )
        .only("id", "title", "period_key", "published_at")
        .order_by("published_at", "id")
    )
    key = (newsletter.published_at, newsletter.pk)
    older = [r for r in rows if (r.published_at, r.pk) < key]
    newer = [r for r in rows if (r.published_at, r.pk) > key]
    return (older[-1] if older else None), (newer[0] if newer else None)


def delivery_summary(newsletter: Newsletter) -> dict[str, int]:
    counts = dict(
        NewsletterDelivery.objects.filter(newsletter=newsletter)
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
    )
    return {status: counts.get(status, 0) for status in NewsletterDelivery.Status.values}


#: Unsent deliveries listed on the master's deliveries page (the count says how many there are).
UNSENT_SHOWN = 200
UNSENT = (NewsletterDelivery.Status.PENDING, NewsletterDelivery.Status.FAILED)


def unsent_deliveries(newsletter: Newsletter) -> list[NewsletterDelivery]:
    """The emails of a newsletter still to send (waiting or failed), oldest first, with their player."""
    return list(
        NewsletterDelivery.objects.filter(newsletter=newsletter, status__in=UNSENT)
        .select_related("user")
        .order_by("id")[:UNSENT_SHOWN]
    )


def period_choices(league: League, *, weeks: int = 8, now: dt.datetime | None = None) -> list[tuple[str, str]]:
    """Periods the master may ask a newsletter for: every round with a confirmed result in the
    league's seasons (newest first), then the last few weeks."""
    rounds = (
        Match.objects.filter(
            league=league, stage=REGULAR_STAGE, status=CONFIRMED, round_number__isnull=False, season__isnull=False
        )
        .values_list("season__number", "round_number")
        .distinct()
        .order_by("-season__number", "-round_number")
    )
    choices = [(Period.round(s, r).key, Period.round(s, r).label) for s, r in rounds]
    now = timezone.localtime(now or timezone.now())
    for back in range(weeks):
        period = Period.week_of(now - dt.timedelta(days=7 * back))
        label = period.label + (" (this week, so far)" if back == 0 else "")
        choices.append((period.key, label))
    return choices
