"""Reads for the dashboards (issue 14): a player's home page (what waits for them), the master's
desk (a running season's rounds at a glance, and what waits for the master) and the current
round's progress on a league's front page.

Every function runs a fixed number of queries, and every list is bounded: the first ``LIMIT``
items and how many there are in all (a window count in the same query), so neither the queries
nor the rows fetched grow with the league's history. Several lists are read in one query: each
row is put in a category by a ``CASE`` and numbered within it by a window, and only the first
rows of each category are fetched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from django.db import connection
from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from common import invalidation
from league.models import Round, Season
from league.selectors import RoundNaming
from matches.models import AWAITING_STATUSES, Match, MatchTeam
from teams.models import AdvancementRoll, Ninja, Team

#: How many items each list of a dashboard shows (then "and N more", with a link).
LIMIT = 5
#: How many of a player's teams the dashboard lists.
TEAM_LIMIT = 10

T = TypeVar("T")

SCHEDULED, SUBMITTED, DISPUTED = Match.Status.SCHEDULED, Match.Status.SUBMITTED, Match.Status.DISPUTED


@dataclass
class Bounded(Generic[T]):
    """The first items of a list, and how many the list holds in all."""

    items: list[T] = field(default_factory=list)
    total: int = 0

    @property
    def more(self) -> int:
        return max(0, self.total - len(self.items))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def _bounded(rows: Iterable) -> Bounded:
    """Rows annotated with ``total`` (a window count over the whole list, before the slice)."""
    rows = list(rows)
    return Bounded(items=rows, total=rows[0].total if rows else 0)


def due_expression() -> Coalesce:
    """A fixture's deadline: its own, else its round's (as ``selectors.fixture_dates`` reads it)."""
    round_deadline = Round.objects.filter(
        season=OuterRef("season"), stage=OuterRef("stage"), round_number=OuterRef("round_number")
    ).values("deadline")[:1]
    return Coalesce("deadline", Subquery(round_deadline))


def _first_of_each(candidates: QuerySet, category: Case, fetch: QuerySet, limit: int) -> list:
    """The first ``limit`` matches of each category (``None``: left out), soonest deadline first
    (:func:`due_expression`; none last), then round, then creation, each with ``category`` and
    ``total`` (the matches of its category), fetched by ``fetch`` (with what it selects and
    prefetches).

    Two queries (and ``fetch``'s prefetches): a lean ranking, the candidates' ids, categories and
    order keys numbered by a window in an outer ``SELECT``, then the chosen matches. Django writes
    a window over an annotation by repeating the annotation in every clause that names it, and the
    categories' ``CASE`` holds subqueries: compiled five times, one query cost a dashboard about
    25 ms of CPU for 2 ms in the database (issue 29, part 2); here it is compiled once.
    """
    keys = candidates.annotate(due=due_expression()).annotate(category=category)
    inner, params = keys.values("id", "category", "due", "round_number").query.sql_with_params()
    sql = (
        "SELECT id, category, total FROM ("
        " SELECT id, category,"
        "  ROW_NUMBER() OVER (PARTITION BY category"
        "   ORDER BY due IS NULL, due, round_number IS NULL, round_number, id) AS n,"
        "  COUNT(*) OVER (PARTITION BY category) AS total"
        f" FROM ({inner}) candidates WHERE category IS NOT NULL"
        ") ranked WHERE n <= %s ORDER BY category, n"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        ranked = cursor.fetchall()
    if not ranked:
        return []
    chosen = fetch.in_bulk([pk for pk, _, _ in ranked])
    out = []
    for pk, name, total in ranked:
        match = chosen.get(pk)
        if match is not None:  # gone between the two reads
            match.category, match.total = name, total
            out.append(match)
    return out


# --- a player's dashboard -------------------------------------------------------------------------

#: The categories of a player's matches on the dashboard.
NEXT, TO_CONFIRM, DISPUTED_RESULT, REJECTED = "next", "confirm", "disputed", "rejected"
#: A fixture whose challenge the random challenge generator left to the player (issue 27, finding 5).
TO_CHOOSE = "choose"


@dataclass
class DashboardMatch:
    """A match on the dashboard: the player's side(s) and the opponents."""

    match: Match
    mine: list[Team]
    opponents: list[Team]

    @property
    def due(self) -> dt.date | None:
        return self.match.due


class MatchList(Bounded[DashboardMatch]):
    """A bounded list of the player's matches."""

    @property
    def seasons(self) -> list[Season]:
        """The seasons of the matches shown, each once (where the rest of the list is)."""
        seen: dict[int, Season] = {}
        for item in self.items:
            if item.match.season_id is not None:
                seen.setdefault(item.match.season_id, item.match.season)
        return list(seen.values())


@dataclass
class Dashboard:
    teams: Bounded[Team]
    applications: Bounded[Team]
    next_fixtures: MatchList
    to_choose: MatchList
    to_confirm: MatchList
    disputed: MatchList
    rejected: MatchList
    rolls: Bounded[AdvancementRoll]
    mastered: list[Season]
    today: dt.date

    @property
    def in_a_league(self) -> bool:
        """One of the teams shown is accepted in a league."""
        return any(t.entry_status == Team.EntryStatus.ACCEPTED for t in self.teams)

    @property
    def has_scrolls(self) -> bool:
        """One of the entries shown is an All-Stars team scroll (its rating and treasury have columns)."""
        return any(t.has_scroll for t in self.teams)

    @property
    def upcoming(self) -> list[DashboardMatch]:
        """The fixtures still to play shown: those whose challenge the player chooses, then the next."""
        return [*self.to_choose, *self.next_fixtures]

    @property
    def waiting(self) -> int:
        """Items waiting for the player to act on."""
        return self.to_choose.total + self.to_confirm.total + self.rejected.total + self.rolls.total


#: What the dashboard's match lines read (templates/league/includes/_dashboard_match.html,
#: _dashboard_where.html, _dashboard_more.html and the body's links): a match, its season and
#: league, its challenge's name. Every column of a season and a league (their house rules) read
#: twice cost a cold dashboard 2-3 ms of its 24-32 (issue 29, part 2). A field left out here and
#: read by a template would cost a query a match: test_every_kind_of_match_line_reads_only_what_
#: the_fetch_read (tests/league/test_dashboard.py) fails on it.
DASHBOARD_MATCH_FIELDS = (
    "status",
    "stage",
    "round_number",
    "deadline",
    "upkeep_waits",
    "season__number",
    "season__league__name",
    "season__league__slug",
    "league__name",
    "league__slug",
    "league__game",
    "challenge__name",
)


def _dashboard_sides() -> Prefetch:
    """A dashboard match's sides: the slot and the team's name and owner (for its link and for
    telling the player's sides from the opponents')."""
    return Prefetch(
        "sides",
        queryset=MatchTeam.objects.only("match_id", "slot", "team__name", "team__owner_id")
        .select_related("team")
        .order_by("slot"),
    )


def player_matches(user, *, limit: int = LIMIT) -> dict[str, MatchList]:
    """The player's next fixtures, the fixtures whose challenge they choose, results waiting for
    their confirmation, their disputed results and their rejected results (to enter again): the
    first ``limit`` of each and each list's size, in three queries (the ranking, the matches, their sides).
    A fixture to choose is listed there, not among the next fixtures (the page shows it in both)."""
    mine = Exists(MatchTeam.objects.filter(match=OuterRef("pk"), team__owner=user))
    # The chooser's side is theirs: the slot the dice named (Match.chooser_side), as it is now.
    chooser = Q()
    for value, slot in Match.CHOOSER_SLOTS.items():
        chooser |= Q(
            Exists(MatchTeam.objects.filter(match=OuterRef("pk"), team__owner=user, slot=slot)), challenge_chooser=value
        )
    category = Case(
        When(Q(status=SCHEDULED, result_draft__has_key="rejected_record"), then=Value(REJECTED)),
        When(chooser, status=SCHEDULED, kicked_off_at__isnull=True, challenge__isnull=True, then=Value(TO_CHOOSE)),
        When(status=SCHEDULED, then=Value(NEXT)),
        When(status=DISPUTED, then=Value(DISPUTED_RESULT)),
        # An opponent's (or the master's) submission: the player may confirm or reject it.
        When(Q(status=SUBMITTED, submitted_by__isnull=False) & ~Q(submitted_by=user), then=Value(TO_CONFIRM)),
        default=None,
        output_field=CharField(),
    )
    fetch = (
        Match.objects.only(*DASHBOARD_MATCH_FIELDS)
        .annotate(due=due_expression())
        .select_related("season__league", "league", "challenge")
        .prefetch_related(_dashboard_sides())
    )
    candidates = Match.objects.filter(mine, status__in=(SCHEDULED, *AWAITING_STATUSES))
    lists = {c: MatchList() for c in (NEXT, TO_CHOOSE, TO_CONFIRM, DISPUTED_RESULT, REJECTED)}
    for match in _first_of_each(candidates, category, fetch, limit):
        sides = [side.team for side in match.sides.all()]
        item = DashboardMatch(
            match=match,
            mine=[t for t in sides if t.owner_id == user.pk],
            opponents=[t for t in sides if t.owner_id != user.pk],
        )
        bucket = lists[match.category]
        bucket.items.append(item)
        bucket.total = match.total
    return lists


def player_scopes(user) -> list[str]:
    """The cache scopes (common/invalidation.py) of what a player's dashboard shows: each of their
    teams (a match of a team, its rolls and its application move the team's version), the seasons
    those teams are entered in and those the player masters (their rounds' deadlines, the
    opponents' names), and those seasons' leagues' names. Two queries."""
    teams = list(Team.objects.filter(owner=user).values_list("pk", "league_id"))
    seasons = list(
        Season.objects.filter(Q(entries__team__owner=user) | Q(league__master=user))
        .values_list("pk", "league_id")
        .distinct()
    )
    leagues = {league for _, league in teams + seasons if league is not None}
    return sorted(
        {
            *(invalidation.team(pk) for pk, _ in teams),
            *(invalidation.season(pk) for pk, _ in seasons),
            *(invalidation.league(pk) for pk in leagues),
            *(invalidation.league_meta(pk) for pk in leagues),
        }
    )


def player_dashboard(user, *, today: dt.date | None = None) -> Dashboard:
    """Everything the signed-in player's home page lists, in seven queries whatever the size of the
    leagues they play in and of their history."""
    today = today or timezone.localdate()
    teams = _bounded(
        Team.objects.filter(owner=user)
        .exclude(status=Team.Status.RETIRED)
        .select_related("clan", "league")
        .annotate(total=Window(Count("id")))
        .order_by("name", "id")[:TEAM_LIMIT]
    )
    applications = _bounded(
        # A refused team has left the league (application_refuse): it keeps only its state.
        Team.objects.filter(owner=user)
        .filter(
            Q(entry_status=Team.EntryStatus.PENDING, league__isnull=False) | Q(entry_status=Team.EntryStatus.REFUSED)
        )
        .exclude(status=Team.Status.RETIRED)
        .select_related("league")
        .annotate(total=Window(Count("id")))
        .order_by("entry_status", "name", "id")[:LIMIT]
    )
    rolls = _bounded(
        AdvancementRoll.objects.filter(
            status=AdvancementRoll.Status.PENDING, ninja__team__owner=user, ninja__status=Ninja.Status.ACTIVE
        )
        .select_related("ninja__team")
        .annotate(total=Window(Count("id")))
        .order_by("id")[:LIMIT]
    )
    mastered = list(
        Season.objects.filter(league__master=user)
        .exclude(status=Season.Status.FINISHED)
        .select_related("league")
        .order_by("league__name", "id")[:LIMIT]
    )
    matches = player_matches(user)
    return Dashboard(
        teams=teams,
        applications=applications,
        next_fixtures=matches[NEXT],
        to_choose=matches[TO_CHOOSE],
        to_confirm=matches[TO_CONFIRM],
        disputed=matches[DISPUTED_RESULT],
        rejected=matches[REJECTED],
        rolls=rolls,
        mastered=mastered,
        today=today,
    )


# --- a season's rounds ----------------------------------------------------------------------------


@dataclass
class RoundProgress(RoundNaming):
    """How far a round has got: each of its fixtures (voided ones left out) in one state."""

    stage: str
    round_number: int | None
    played: int = 0  # confirmed, or decided by a forfeit
    waiting: int = 0  # a result waits for confirmation
    disputed: int = 0  # two different results: the master settles
    overdue: int = 0  # not played, and its deadline has passed
    in_play: int = 0  # kicked off, no result yet, not overdue
    not_started: int = 0  # not kicked off, not overdue
    starts_on: dt.date | None = None
    deadline: dt.date | None = None
    folded = False  # one round (RoundsFolded: several)

    @property
    def total(self) -> int:
        return self.played + self.waiting + self.disputed + self.overdue + self.in_play + self.not_started

    @property
    def open(self) -> int:
        return self.total - self.played

    @property
    def percent(self) -> int:
        return round(100 * self.played / self.total) if self.total else 0

    @property
    def anchor(self) -> str:
        """The round's id on the season's fixtures page."""
        return f"{self.stage or 'round'}-{self.round_number or 'arranged'}"

    def order(self) -> tuple:
        return (self.is_playoff, self.playoff_round or 0, self.round_number is None, self.round_number or 0)


def round_progress(season: Season, *, today: dt.date | None = None) -> list[RoundProgress]:
    """Each round of the season in play order, with how many of its fixtures are played, waiting
    for confirmation, disputed, overdue, in play and not started: two queries (the counts, grouped
    in the database, and the rounds' dates) whatever the number of fixtures.

    The fixtures are counted by round, status and their own deadline, with how many of each group
    kicked off: the groups are a prefix of ``match_round_progress_idx``, so the database counts
    them off that index in its order, reading no table row and hashing nothing (issue 29, part 2:
    the season's every fixture is counted, 32,640 at 256 teams). A fixture without a deadline has
    its round's; the deadlines are weighed against ``today`` here, as are the rounds'.
    """
    today = today or timezone.localdate()
    rows = (
        Match.objects.filter(season=season)
        .exclude(status=Match.Status.VOIDED)
        .values("stage", "round_number", "status", "deadline")
        .annotate(n=Count("*"), started=Count("kicked_off_at"))
        .order_by()
    )
    dates = {(r.stage, r.round_number): r for r in Round.objects.filter(season=season).order_by()}
    rounds: dict[tuple, RoundProgress] = {}
    for row in rows:
        key = (row["stage"], row["round_number"])
        progress = rounds.get(key)
        if progress is None:
            progress = rounds[key] = RoundProgress(stage=key[0], round_number=key[1])
            rnd = dates.get(key)
            if rnd is not None:
                progress.starts_on, progress.deadline = rnd.starts_on, rnd.deadline
        status, n = row["status"], row["n"]
        if status in Match.DECIDED_STATUSES:
            progress.played += n
        elif status == SUBMITTED:
            progress.waiting += n
        elif status == DISPUTED:
            progress.disputed += n
        elif status == SCHEDULED:
            deadline = row["deadline"] or progress.deadline
            if deadline is not None and deadline < today:
                progress.overdue += n
            else:
                progress.in_play += row["started"]
                progress.not_started += n - row["started"]
    return sorted(rounds.values(), key=RoundProgress.order)


def current_round(rounds: list[RoundProgress]) -> RoundProgress | None:
    """The round being played: the first (in play order) with a fixture still open, else the last."""
    return next((r for r in rounds if r.open), rounds[-1] if rounds else None)


def season_progress(season: Season, *, today: dt.date | None = None) -> RoundProgress | None:
    """The current round's progress (a league's front page), in two queries."""
    return current_round(round_progress(season, today=today))


# --- the master's desk ----------------------------------------------------------------------------

#: The categories of a season's fixtures that wait for the master.
DESK_DISPUTED, DESK_WAITING, DESK_OVERDUE = "disputed", "waiting", "overdue"


@dataclass
class Desk:
    season: Season
    rounds: list[RoundProgress]
    current: RoundProgress | None
    disputed: Bounded[Match]
    waiting: Bounded[Match]
    overdue: Bounded[Match]
    applications: Bounded[Team]
    blocking_rolls: Bounded[AdvancementRoll]
    today: dt.date

    @property
    def totals(self) -> RoundProgress:
        """The whole season's counts (every round added up)."""
        return added_up(self.rounds, RoundProgress(stage="", round_number=None))

    @property
    def round_rows(self) -> list[RoundProgress | RoundsFolded]:
        """The rounds table's rows: the rounds around the current one and every round with a
        result to see to, the others folded into one row a run (a 256-team round robin has 255
        rounds: the desk showed them all)."""
        return fold_rounds(self.rounds, self.current)


#: The rounds the desk shows before and after the current one; at most this many more rounds
#: with something to see to (waiting, disputed, overdue, in play) are shown outside that window.
ROUNDS_BEFORE, ROUNDS_AFTER, ROUNDS_NEEDING = 1, 3, 8
COUNTS = ("played", "waiting", "disputed", "overdue", "in_play", "not_started")


def added_up(rounds: Iterable[RoundProgress], into: RoundProgress) -> RoundProgress:
    for r in rounds:
        for name in COUNTS:
            setattr(into, name, getattr(into, name) + getattr(r, name))
    return into


@dataclass
class RoundsFolded(RoundProgress):
    """Several rounds in a row on one row of the desk, their counts added up."""

    first: str = ""
    last: str = ""
    rounds: int = 0
    folded = True

    @property
    def title(self) -> str:
        return f"{self.first} to {self.last.lower()} ({self.rounds} rounds)" if self.rounds > 1 else self.first


def fold_rounds(rounds: list[RoundProgress], current: RoundProgress | None) -> list:
    """``rounds`` with the runs of those not shown folded (:attr:`Desk.round_rows`)."""
    at = rounds.index(current) if current in rounds else 0
    needing = [i for i, r in enumerate(rounds) if r.waiting or r.disputed or r.overdue or r.in_play]
    shown = set(range(at - ROUNDS_BEFORE, at + ROUNDS_AFTER + 1)) | set(needing[:ROUNDS_NEEDING])
    rows: list = []
    run: list[RoundProgress] = []

    def fold() -> None:
        if len(run) == 1:
            rows.append(run[0])
        elif run:
            rows.append(
                added_up(
                    run,
                    RoundsFolded(
                        stage=run[0].stage,  # its link: the first of them on the fixtures page
                        round_number=run[0].round_number,
                        first=run[0].title,
                        last=run[-1].title,
                        rounds=len(run),
                    ),
                )
            )
        run.clear()

    for i, r in enumerate(rounds):
        if i in shown:
            fold()
            rows.append(r)
        else:
            run.append(r)
    fold()
    return rows


#: What a fixture on the master's desk shows (league/includes/_desk_match.html and the links of
#: season_desk.html): its round, whether it kicked off (an overdue fixture not yet kicked off can be
#: rescheduled), and each side's slot and team name. A field left out here and read by a template
#: would cost a query a match: test_every_kind_of_desk_line_reads_only_what_the_fetch_read
#: (tests/league/test_desk.py) fails on it.
DESK_MATCH_FIELDS = ("status", "stage", "round_number", "kicked_off_at")


def _desk_sides() -> Prefetch:
    return Prefetch(
        "sides",
        queryset=MatchTeam.objects.only("match_id", "slot", "team__name").select_related("team").order_by("slot"),
    )


def desk_matches(
    season: Season, *, today: dt.date, limit: int = LIMIT, passed_rounds: Iterable[tuple[str, int]] | None = None
) -> dict[str, Bounded[Match]]:
    """The season's disputed results (to settle), results waiting for confirmation (the master may
    confirm them) and overdue fixtures: the first ``limit`` of each and each list's size, in three
    queries (the ranking, the matches, their sides). ``passed_rounds``: the (stage, round number)
    of the rounds whose deadline has passed, when the caller has read them (else one query more)."""
    category = Case(
        When(status=DISPUTED, then=Value(DESK_DISPUTED)),
        When(status=SUBMITTED, then=Value(DESK_WAITING)),
        When(status=SCHEDULED, due__lt=today, then=Value(DESK_OVERDUE)),
        default=None,
        output_field=CharField(),
    )
    fetch = Match.objects.only(*DESK_MATCH_FIELDS).annotate(due=due_expression()).prefetch_related(_desk_sides())
    # Only the fixtures that can be overdue are ranked: their own deadline passed, or none and
    # their round's passed (the rounds named, not each fixture's round looked up: a 256-team
    # season has 16,000 fixtures to play; issue 29, part 2).
    if passed_rounds is None:
        passed_rounds = Round.objects.filter(season=season, deadline__lt=today).values_list("stage", "round_number")
    by_stage: dict[str, set] = {}
    for stage, round_number in passed_rounds:
        by_stage.setdefault(stage, set()).add(round_number)
    overdue = Q(status=SCHEDULED, deadline__lt=today)
    for stage, numbers in by_stage.items():
        overdue |= Q(status=SCHEDULED, deadline__isnull=True, stage=stage, round_number__in=numbers)
    candidates = Match.objects.filter(season=season).filter(Q(status__in=AWAITING_STATUSES) | overdue)
    lists: dict[str, Bounded[Match]] = {c: Bounded() for c in (DESK_DISPUTED, DESK_WAITING, DESK_OVERDUE)}
    for match in _first_of_each(candidates, category, fetch, limit):
        bucket = lists[match.category]
        bucket.items.append(match)
        bucket.total = match.total
    return lists


def blocking_rolls(season: Season, *, limit: int = LIMIT) -> Bounded[AdvancementRoll]:
    """Advancement rolls still to choose that stop a team of the season from kicking off its next
    fixture (``matches.services.kick_off_blockers``): the roll of an active model of a team with a
    fixture of the season not yet kicked off. One query."""
    waiting_fixture = MatchTeam.objects.filter(
        team=OuterRef("ninja__team"), match__season=season, match__status=SCHEDULED, match__kicked_off_at__isnull=True
    )
    return _bounded(
        AdvancementRoll.objects.filter(
            Exists(waiting_fixture),
            status=AdvancementRoll.Status.PENDING,
            ninja__status=Ninja.Status.ACTIVE,
            ninja__team__season_entries__season=season,
        )
        .select_related("ninja__team__owner")
        .annotate(total=Window(Count("id")))
        .order_by("ninja__team__name", "id")[:limit]
    )


def pending_applications(league, *, limit: int = LIMIT) -> Bounded[Team]:
    return _bounded(
        Team.objects.filter(league=league, entry_status=Team.EntryStatus.PENDING)
        .select_related("owner", "clan")
        .annotate(total=Window(Count("id")))
        .order_by("name", "id")[:limit]
    )


def master_desk(season: Season, *, today: dt.date | None = None) -> Desk:
    """The master's desk of a season: six queries whatever the size of the season."""
    today = today or timezone.localdate()
    rounds = round_progress(season, today=today)
    passed = [(r.stage, r.round_number) for r in rounds if r.deadline is not None and r.deadline < today]
    matches = desk_matches(season, today=today, passed_rounds=passed)
    return Desk(
        season=season,
        rounds=rounds,
        current=current_round(rounds),
        disputed=matches[DESK_DISPUTED],
        waiting=matches[DESK_WAITING],
        overdue=matches[DESK_OVERDUE],
        applications=pending_applications(season.league),
        blocking_rolls=blocking_rolls(season),
        today=today,
    )
