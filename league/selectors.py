"""Reads for leagues: the league table (the stored standings of league/readmodel.py), fixtures by
round, next fixtures, the playoff bracket. Every function runs a fixed number of queries whatever the size of the season.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    Window,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, Length, RowNumber
from django.utils import timezone

from games import registry as games
from games.protocol import DROPOUT_LAST_PLACE, ROW_VALUES
from league.models import BracketSlot, Bye, League, Round, Season, SeasonEntry
from league.readmodel import DECIDED, counted_matches_q, counts_bye_points, side_points  # noqa: F401 (re-exported)
from matches.models import Match, MatchTeam, counted_q, playoff_round
from rules.engine import standings
from teams.models import StrengthRating, Team
from teams.selectors import strength_of

WIN, DRAW, LOSS = MatchTeam.Outcome.WIN, MatchTeam.Outcome.DRAW, MatchTeam.Outcome.LOSS
#: A match's JSON columns that no list of fixtures shows (deferred there).
MATCH_JSON_FIELDS = ("result_draft", "submitted_record")


@dataclass
class TableRow:
    team: Team
    played: int
    won: int
    drawn: int
    lost: int
    points: int
    points_for: int
    points_against: int
    rating: int
    position: int = 0
    byes: int = 0
    opponents: tuple[int, ...] = ()
    strength: StrengthRating | None = None  # the game's strength rating, when the team has one
    places: tuple[tuple[str, int], ...] = ()  # a table game's: (place, how often), best first
    #: the values of its game's own columns (``Game.table_values``), by their keys
    values: dict = field(default_factory=dict)

    @property
    def places_text(self) -> str:
        """The places taken, best first: "1st ×2 · 3rd ×1" (a table game's table)."""
        return " · ".join(f"{place} ×{n}" for place, n in self.places)

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against

    def standing(self) -> standings.Standing:
        """The figures the table's order is decided on."""
        return standings.Standing(
            team_id=self.team.pk,
            name=self.team.name,
            points=self.points,
            points_for=self.points_for,
            points_against=self.points_against,
            won=self.won,
            rating=self.rating,
            played=self.played,
            drawn=self.drawn,
            opponents=self.opponents,
        )

    def as_dict(self) -> dict:
        """The row as the final table archives it; a table game's row adds its places taken (an
        All-Stars or Ninjutsu row is as it always was)."""
        row = {
            "position": self.position,
            "team_id": self.team.pk,
            "team": self.team.name,
            "owner": self.team.owner.username,
            "clan": self.team.clan.name if self.team.clan_id else "",  # a player's entry has none
            "played": self.played,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "points": self.points,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "points_difference": self.points_difference,
            "rating": self.rating,
            "byes": self.byes,
        }
        if self.places:
            row["places_text"] = self.places_text
        if self.values:
            row["values"] = dict(self.values)
        return row


def table_entries(season: Season, *, places: bool = False) -> QuerySet:
    """The season's entries with their stored standings (league/readmodel.py) and the columns the
    table shows of each team, its owner and clan: one query, one row per team (with ``places``, a
    table game's: the places each took, :func:`places_annotations`)."""
    entries = SeasonEntry.objects.filter(season=season)
    if places:
        entries = entries.annotate(**places_annotations(season))
    return (
        entries.select_related("team__owner", "team__clan")
        .only(
            "team_id",
            *SeasonEntry.STANDING_FIELDS,
            "team__name",
            "team__rating",
            "team__colour_primary",
            "team__colour_secondary",
            "team__motto",
            "team__owner__username",
            "team__clan__name",
        )
        .prefetch_related(
            Prefetch(
                "team__strength_ratings",
                # the game's own rating: Glicko-2 one on one, Plackett-Luce at tables (GameInfo)
                queryset=StrengthRating.objects.filter(system=season.league.game_info.strength_system),
                to_attr="strength",
            )
        )
        .order_by("id")
    )


def head_to_head(season: Season, groups: Iterable[frozenset[int]] | None = None) -> dict[tuple[int, int], int]:
    """League points each team took from each opponent, {(team, opponent): points}, in one query.

    A self-join: each counted side is joined to the other sides of its match and grouped by
    (team, opponent). With ``groups`` (the teams still level, ``standings.head_to_head_groups``)
    only games between two teams of one group are read; None reads the whole season.
    """
    rows = (
        MatchTeam.objects.filter(counted_q(season, "match__"))
        .annotate(opponent=F("match__sides__team_id"))
        .exclude(opponent=F("team_id"))
        .order_by()
    )
    group_of: dict[int, int] = {}
    if groups is not None:
        for i, group in enumerate(groups):
            group_of.update(dict.fromkeys(group, i))
        if not group_of:
            return {}
        rows = rows.filter(team_id__in=list(group_of), opponent__in=list(group_of))
    rows = rows.values("team_id", "opponent", "outcome", "league_points", "match__status").annotate(n=Count("id"))
    h2h: dict[tuple[int, int], int] = {}
    for r in rows:
        if groups is not None and group_of[r["team_id"]] != group_of[r["opponent"]]:
            continue
        key = (r["team_id"], r["opponent"])
        earned = side_points(
            season,
            r["outcome"],
            forfeited=r["match__status"] == Match.Status.FORFEITED,
            league_points=r["league_points"],
        )
        h2h[key] = h2h.get(key, 0) + r["n"] * earned
    return h2h


def opponents_met(season: Season) -> dict[int, tuple[int, ...]]:
    """{team id: the opponent of each counted game, in game order}, one query (for strength of
    schedule)."""
    sides: dict[int, list[int]] = {}
    for match_id, team_id in (
        MatchTeam.objects.filter(counted_matches_q(season, "match__")).order_by("match_id", "slot")
    ).values_list("match_id", "team_id"):
        sides.setdefault(match_id, []).append(team_id)
    met: dict[int, list[int]] = {}
    for teams in sides.values():
        for team in teams:
            met.setdefault(team, []).extend(o for o in teams if o != team)
    return {team: tuple(opponents) for team, opponents in met.items()}


#: Tie-breakers that need every team's opponents.
SCHEDULE_STRENGTH = (standings.TieBreaker.BUCHHOLZ, standings.TieBreaker.OPPONENTS_WIN_PERCENTAGE)


def rank_rows(
    rows: list[TableRow],
    tie_breakers: Iterable[str],
    h2h: dict[tuple[int, int], int],
    figures: list[standings.Standing] | None = None,
) -> list[TableRow]:
    """The rows in table order (``rules.engine.standings.rank``: league points, then each
    tie-breaker in turn), with their positions set; ``figures`` the rows' own ``standing()``s
    when the caller made them. An unknown tie-breaker raises ValueError."""
    by_team = {row.team.pk: row for row in rows}
    if figures is None:
        figures = [row.standing() for row in rows]
    ranked = [by_team[s.team_id] for s in standings.rank(figures, tie_breakers, head_to_head=h2h)]
    for i, row in enumerate(ranked, start=1):
        row.position = i
    return ranked


_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def places_annotations(season: Season) -> dict[str, Subquery]:
    """``place_<k>``: how often the entry took place k at a table (a confirmed counted game), for
    every place its game seats, as subqueries of the table's own query (no query more). A side's
    place is one more than the sides of its table with more points (a Kage Masters table's
    treasure, KM l.46; equal treasure shares a place, as games.kage_masters.engine.placements)."""
    better = (
        MatchTeam.objects.filter(match_id=OuterRef("match_id"), dropped_out="", points__gt=OuterRef("points"))
        .order_by()
        .values("match_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    # A player who dropped out of a table (no treasure) is placed below everyone present under the
    # house rule "last place", and takes no place under "a forfeit loss" (league.services.tables).
    present = (
        MatchTeam.objects.filter(match_id=OuterRef("match_id"), dropped_out="")
        .order_by()
        .values("match_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    placed = Q(points__isnull=False, dropped_out="")
    if season.league.game_site.dropout_scores(season)[0] == DROPOUT_LAST_PLACE:
        placed |= ~Q(dropped_out="")
    sides = (
        MatchTeam.objects.filter(
            placed,
            counted_q(season, "match__"),
            match__status=Match.Status.CONFIRMED,
            team_id=OuterRef("team_id"),
        )
    ).annotate(
        better=Case(
            When(dropped_out="", then=Coalesce(Subquery(better), 0)),
            default=Coalesce(Subquery(present), 0),
        )
    )
    return {
        f"place_{k}": Coalesce(
            Subquery(sides.filter(better=k - 1).order_by().values("team_id").annotate(n=Count("id")).values("n")), 0
        )
        for k in range(1, season.league.game_info.max_players + 1)
    }


def places_of_entry(entry: SeasonEntry) -> tuple[tuple[str, int], ...]:
    """(place, how often), best first, from :func:`places_annotations`."""
    out, k = [], 1
    while (n := getattr(entry, f"place_{k}", None)) is not None:
        if n:
            out.append((_ORDINALS.get(k, f"{k}th"), n))
        k += 1
    return tuple(out)


def _row(entry: SeasonEntry) -> TableRow:
    """A table row from an entry with its stored standings (its team as far as it was read)."""
    return TableRow(
        team=entry.team,
        played=entry.played,
        won=entry.won,
        drawn=entry.drawn,
        lost=entry.lost,
        points=entry.points,
        points_for=entry.points_for,
        points_against=entry.points_against,
        rating=entry.team.rating,
        byes=entry.byes,
    )


def _shown_columns(season: Season, rows: list[TableRow], entries: Iterable[SeasonEntry] | None = None) -> None:
    """What the table shows of ``rows`` beyond their standings: each team's strength rating and a
    table game's places (from ``entries``, :func:`table_entries`'s, when given), and the values of
    the game's own columns (``Game.table_values``, one query, for these rows alone)."""
    site = season.league.game_site
    if entries is not None:
        by_team = {e.team_id: e for e in entries}
        for row in rows:
            entry = by_team[row.team.pk]
            row.team = entry.team
            row.strength = strength_of(entry.team)
            row.places = places_of_entry(entry)
    columns = site.columns(season)
    if site.table_values is not None and any(c.key not in ROW_VALUES for c in columns):
        values = site.table_values(season, [row.team.pk for row in rows])
        for row in rows:
            row.values = dict(values.get(row.team.pk, {}))


def _ranked(season: Season, rows: list[TableRow]) -> list[TableRow]:
    """``rows`` in table order with their positions: the opponents met (one query) when a
    strength-of-schedule tie-breaker is chosen, head-to-head only when some teams are still level
    where it applies."""
    tie_breakers = standings.parse_tie_breakers(season.tie_breaker_list)
    if any(t in SCHEDULE_STRENGTH for t in tie_breakers):
        met = opponents_met(season)
        for row in rows:
            row.opponents = met.get(row.team.pk, ())
    figures = [row.standing() for row in rows]  # made once, read by both
    groups = standings.head_to_head_groups(figures, tie_breakers)
    h2h = head_to_head(season, groups) if groups else {}
    return rank_rows(rows, tie_breakers, h2h, figures)


def _places_shown(season: Season) -> bool:
    return any(c.key == "places_text" for c in season.league.game_site.columns(season))


def league_table(season: Season) -> list[TableRow]:
    """The season's whole league table, sorted with its tie-breakers, every row with what the table
    shows (the CSV export, the API, the final table, the services): the stored rows (one query),
    the head-to-head query only when some teams are still level where it applies, and the
    opponents met (one query) when a strength-of-schedule tie-breaker is chosen. The season page
    shows a page of it (:func:`table_page`)."""
    entries = list(table_entries(season, places=_places_shown(season)))
    rows = [_row(e) for e in entries]
    _shown_columns(season, rows, entries)
    return _ranked(season, rows)


#: The rows of a page of the season page's league table (``?table=<n>``).
TABLE_PAGE_SIZE = 64


@dataclass(frozen=True)
class RankedTeam:
    """A team as the ranking reads it: plain values, no model instances. ``pk`` and ``name`` are
    what a tie-breaker reads (``TableRow.standing``), ``owner_id`` whose it is (a member's line),
    ``shown`` the values of what its row shows (``_SHOWN``), made a team only for a page's rows."""

    pk: int
    name: str
    owner_id: int
    shown: tuple = ()


#: What a row of the table shows of its team, its owner, its clan and its strength rating (the
#: game's system, joined: one rating at most a team and system), read with the ranking as plain
#: values: a few columns more a row, no query and no object more.
_SHOWN = (
    "team__rating",
    "team__colour_primary",
    "team__colour_secondary",
    "team__motto",
    "team__owner__username",
    "team__clan_id",
    "team__clan__name",
    "rated__id",
    "rated__rating",
    "rated__deviation",
    "rated__volatility",
    "rated__games",
)


#: The stored standings the ranking reads, in the order its rows unpack them (every one of
#: ``SeasonEntry.STANDING_FIELDS``: tests/league/test_table_pages.py).
_RANKING_STANDINGS = ("played", "won", "drawn", "lost", "points_for", "points_against", "points", "byes")


def table_ranking(season: Season) -> list[TableRow]:
    """The season's table order, lean: every entry's stored standings and what its row shows as
    plain values (one query, :data:`_SHOWN`), ranked as :func:`league_table` ranks them. The
    positions need every row (a tie-break compares them all); the objects a row is drawn from, a
    table game's places and a game's own values are made or read for a page's rows alone
    (:func:`table_page`). Each row's ``team`` is a :class:`RankedTeam`."""
    system = season.league.game_info.strength_system
    entries = (
        SeasonEntry.objects.filter(season=season)
        .annotate(rated=FilteredRelation("team__strength_ratings", condition=Q(team__strength_ratings__system=system)))
        .order_by("id")
        .values_list(
            "team_id",
            "team__name",
            "team__owner_id",
            *_RANKING_STANDINGS,
            *_SHOWN,
        )
    )
    rows = [
        TableRow(
            team=RankedTeam(team_id, name, owner_id, tuple(shown)),
            played=played,
            won=won,
            drawn=drawn,
            lost=lost,
            points_for=points_for,
            points_against=points_against,
            points=points,
            byes=byes,
            rating=shown[0],
        )
        for team_id, name, owner_id, played, won, drawn, lost, points_for, points_against, points, byes, *shown in entries
    ]
    return _ranked(season, rows)


def _from_values(model, values: dict):
    """An instance of ``model`` as the database's row of ``values`` (attribute names) makes it,
    its other fields deferred (``Model.from_db`` reads the values in the model's field order)."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db("default", names, [values[name] for name in names])


def _shown_team(team: RankedTeam, system: str) -> tuple[Team, StrengthRating | None]:
    """The team (with its owner and clan) and strength rating a page's row is drawn from, made from
    the ranking's values as the database's rows would make them (deferred fields unread)."""
    (rating, primary, secondary, motto, username, clan_id, clan, rated, strength, deviation, volatility, games_) = (
        team.shown
    )
    made = _from_values(
        Team,
        {
            "id": team.pk,
            "name": team.name,
            "rating": rating,
            "colour_primary": primary,
            "colour_secondary": secondary,
            "motto": motto,
            "owner_id": team.owner_id,
            "clan_id": clan_id,
        },
    )
    made.owner = _from_values(Team._meta.get_field("owner").related_model, {"id": team.owner_id, "username": username})
    if clan_id is not None:
        made.clan = _from_values(Team._meta.get_field("clan").related_model, {"id": clan_id, "name": clan})
    if rated is None:
        return made, None
    return made, _from_values(
        StrengthRating,
        {
            "id": rated,
            "team_id": team.pk,
            "system": system,
            "rating": strength,
            "deviation": deviation,
            "volatility": volatility,
            "games": games_,
        },
    )


@dataclass(frozen=True)
class TablePage:
    """A page of the league table: its rows (with what they show), its number (1 to ``count``),
    how many pages the table has (at least 1, an empty table's too), and the positions it holds."""

    rows: list[TableRow]
    number: int
    count: int
    entries: int
    size: int = TABLE_PAGE_SIZE

    @property
    def first(self) -> int:
        """The position of the page's first row (its number's, also for an empty page)."""
        return (self.number - 1) * self.size + 1

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1

    @property
    def numbers(self) -> range:
        return range(1, self.count + 1)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.count


def page_count(entries: int, size: int = TABLE_PAGE_SIZE) -> int:
    """How many pages a table of ``entries`` rows has (1 for an empty table)."""
    return max(1, -(-entries // size))


def clamp_page(number: int, entries: int, size: int = TABLE_PAGE_SIZE) -> int:
    """The page nearest to ``number`` that a table of ``entries`` rows has."""
    return min(max(number, 1), page_count(entries, size))


def page_of(position: int, size: int = TABLE_PAGE_SIZE) -> int:
    """The page a position of the table is on."""
    return (position - 1) // size + 1


def table_page(season: Season, page: int, *, ranking: list[TableRow] | None = None) -> TablePage:
    """Page ``page`` of the season's league table (clamped to the pages it has), at most
    :data:`TABLE_PAGE_SIZE` rows: the whole ranking (:func:`table_ranking`, or ``ranking`` when the
    caller read it), then for the page's rows alone their teams and ratings made from its values, a
    table game's places (one query) and a game's own values (``Game.table_values``, one query).
    The queries are the same whatever the page and the season's size."""
    ranked = table_ranking(season) if ranking is None else ranking
    number = clamp_page(page, len(ranked))
    start = (number - 1) * TABLE_PAGE_SIZE
    system = season.league.game_info.strength_system
    rows = []
    for lean in ranked[start : start + TABLE_PAGE_SIZE]:
        team, strength = _shown_team(lean.team, system)
        rows.append(replace(lean, team=team, strength=strength))  # the ranking stays lean
    if rows and _places_shown(season):
        places = (
            SeasonEntry.objects.filter(season=season, team_id__in=[row.team.pk for row in rows])
            .annotate(**places_annotations(season))
            .only("team_id")
        )
        by_team = {entry.team_id: places_of_entry(entry) for entry in places}
        for row in rows:
            row.places = by_team.get(row.team.pk, ())
    _shown_columns(season, rows)
    return TablePage(rows=rows, number=number, count=page_count(len(ranked)), entries=len(ranked))


def table_places(ranking: Iterable[TableRow]) -> list[tuple[int, int, int, str]]:
    """(owner id, team id, position, name) of each row of a ranking (:func:`table_ranking`'s): where
    a member's entries stand."""
    return [(row.team.owner_id, row.team.pk, row.position, row.team.name) for row in ranking]


# --- fixtures ------------------------------------------------------------------------------------


def sides_prefetch() -> Prefetch:
    return Prefetch("sides", queryset=MatchTeam.objects.select_related("team", "team__owner").order_by("slot"))


class RoundNaming:
    """A round's name from its ``stage`` and ``round_number`` (for the dataclasses that have them)."""

    stage: str
    round_number: int | None

    @property
    def playoff_round(self) -> int | None:
        return playoff_round(self.stage)

    @property
    def is_playoff(self) -> bool:
        return self.playoff_round is not None

    @property
    def title(self) -> str:
        if self.is_playoff:
            return f"Playoffs, round {self.round_number}"
        if self.round_number is None:
            return "Arranged games"
        return f"Round {self.round_number}"


@dataclass
class RoundGroup(RoundNaming):
    stage: str
    round_number: int | None
    matches: list[Match] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    starts_on: dt.date | None = None
    deadline: dt.date | None = None

    @property
    def overdue(self) -> int:
        return sum(1 for m in self.matches if m.overdue)


def season_matches(season: Season) -> QuerySet:
    """The season's fixtures with their sides; of the submitted record (deferred) only what a line of
    the fixture list reads (``fixture_tags.result_line``): its game, winner and ending."""
    return (
        Match.objects.filter(season=season)
        .defer(*MATCH_JSON_FIELDS)
        .annotate(**record_line_fields())
        .select_related("challenge", "league")
        .prefetch_related(sides_prefetch())
        .order_by("stage", "round_number", "id")
    )


def record_line_fields() -> dict[str, KeyTextTransform]:
    """Annotations of the submitted record's keys a fixture's line reads, the record itself deferred."""
    return {f"record_{key}": KeyTextTransform(key, "submitted_record") for key in record_line_keys()}


def record_line_keys() -> tuple[str, ...]:
    """The keys of a players' game's record that its line in a list reads: "game" and each
    registered game's ``result_line_keys`` (games.protocol)."""
    keys = ["game"]
    for game in games.sites().values():
        keys += [key for key in game.result_line_keys if key not in keys]
    return tuple(keys)


def fixture_dates(match: Match, rnd: Round | None, today: dt.date) -> Match:
    """Set on ``match`` what it inherits from its round: ``starts_on`` (its own date, else the
    round's start), ``due`` (its own deadline, else the round's) and ``overdue`` (not played, and
    the deadline has passed). Returns the match."""
    match.starts_on = match.date or (rnd.starts_on if rnd else None)
    match.due = match.deadline or (rnd.deadline if rnd else None)
    match.overdue = match.status == Match.Status.SCHEDULED and match.due is not None and match.due < today
    return match


def season_round_dates(season: Season) -> dict[tuple[str, int], Round]:
    return {(r.stage, r.round_number): r for r in Round.objects.filter(season=season)}


RoundKey = tuple[str, int | None]


def _rounds_q(keys: Iterable[RoundKey]) -> Q:
    """The fixtures (or byes) of the rounds ``keys`` ((stage, round number); None: arranged games)."""
    q = Q(pk__in=[])
    for stage, number in keys:
        q |= Q(stage=stage, round_number=number) if number is not None else Q(stage=stage, round_number__isnull=True)
    return q


def _round_order(stage: str, number: int | None) -> tuple:
    """The fixtures' order of rounds: regular rounds, arranged games, then the playoff rounds."""
    playoff = playoff_round(stage)
    return (playoff is not None, playoff or 0, number is None, number or 0)


def season_rounds(
    season: Season, *, today: dt.date | None = None, keys: Collection[RoundKey] | None = None
) -> list[RoundGroup]:
    """Fixtures grouped by round (regular rounds, arranged games, playoff rounds), with byes, the
    rounds' dates and each fixture's inherited dates and overdue flag (``fixture_dates``); with
    ``keys``, of those rounds alone (a page of the fixtures, :func:`fixtures_page`)."""
    today = today or timezone.localdate()
    dates = season_round_dates(season)
    groups: dict[tuple[str, int | None], RoundGroup] = {}
    matches = season_matches(season)
    byes = Bye.objects.filter(season=season)
    if keys is not None:
        matches, byes = matches.filter(_rounds_q(keys)), byes.filter(_rounds_q(keys))
    for match in matches:
        key = (match.stage, match.round_number)
        fixture_dates(match, dates.get(key), today)
        groups.setdefault(key, RoundGroup(stage=match.stage, round_number=match.round_number)).matches.append(match)
    for bye in byes.select_related("team"):
        key = (bye.stage, bye.round_number)
        groups.setdefault(key, RoundGroup(stage=bye.stage, round_number=bye.round_number)).byes.append(bye)
    for key, group in groups.items():
        rnd = dates.get(key)
        if rnd is not None:
            group.starts_on, group.deadline = rnd.starts_on, rnd.deadline
    return sorted(groups.values(), key=lambda g: _round_order(g.stage, g.round_number))


#: The most lines (fixtures and byes) a page of a season's fixtures holds: whole rounds, as many as
#: fit (a round with more is a page of its own; a round holds at most half the entrants' fixtures).
FIXTURES_PAGE_SIZE = 64
#: A fixture still to be decided (still to be played, confirmed or settled): the first round holding one
#: is the one the fixtures page opens on.
UNDECIDED = (Match.Status.SCHEDULED, Match.Status.SUBMITTED, Match.Status.DISPUTED)


@dataclass(frozen=True)
class FixturesPage:
    """A page of the season's fixtures: its rounds, its number (1 to ``count``), and the first and
    last round's titles of every page (for the pager)."""

    rounds: list[RoundGroup]
    number: int
    count: int
    titles: list[tuple[str, str]]

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.count


def fixtures_pages(season: Season, size: int | None = None) -> tuple[list[list[RoundKey]], int]:
    """The season's rounds cut into pages of whole rounds (``size`` lines at most, by default
    :data:`FIXTURES_PAGE_SIZE`; a larger round alone), and the page (from 1) of the first round
    with a fixture still to be decided (1 when none is): two grouped counts, over the rounds' index."""
    most = FIXTURES_PAGE_SIZE if size is None else size
    lines: dict[RoundKey, int] = {}
    current: RoundKey | None = None
    counts = (
        Match.objects.filter(season=season)
        .order_by()
        .values_list("stage", "round_number")
        .annotate(n=Count("*"), undecided=Count("status", filter=Q(status__in=UNDECIDED)))
    )
    undecided = set()
    for stage, number, n, open_ in counts:
        lines[(stage, number)] = n
        if open_:
            undecided.add((stage, number))
    for stage, number, n in (
        Bye.objects.filter(season=season).order_by().values_list("stage", "round_number").annotate(n=Count("*"))
    ):
        lines[(stage, number)] = lines.get((stage, number), 0) + n
    pages: list[list[RoundKey]] = []
    held = most + 1
    opens_on = 1
    for key in sorted(lines, key=lambda k: _round_order(*k)):
        if held + lines[key] > most:
            pages.append([])
            held = 0
        pages[-1].append(key)
        held += lines[key]
        if current is None and key in undecided:
            current, opens_on = key, len(pages)
    return pages, opens_on


def fixtures_page(
    season: Season, page: int | None, *, today: dt.date | None = None, size: int | None = None
) -> FixturesPage:
    """Page ``page`` of the season's fixtures (clamped to the pages there are; None: the page of
    the first round still being played, where a club night starts; ``size``: as
    :func:`fixtures_pages`), in six queries whatever the season's size (the rounds' two counts,
    their dates, the page's fixtures and sides, its byes)."""
    pages, opens_on = fixtures_pages(season, size)
    count = max(1, len(pages))
    number = opens_on if page is None else min(max(page, 1), count)
    rounds = season_rounds(season, today=today, keys=pages[number - 1]) if pages else []
    titles = [(_round_title(keys[0]), _round_title(keys[-1])) for keys in pages]
    return FixturesPage(rounds=rounds, number=number, count=count, titles=titles)


def _round_title(key: RoundKey) -> str:
    return RoundGroup(stage=key[0], round_number=key[1]).title


def fixtures_page_of(season: Season, match: Match) -> int:
    """The page of the season's fixtures that lists ``match`` (its round's)."""
    pages, _ = fixtures_pages(season)
    key = (match.stage, match.round_number)
    return next((i for i, keys in enumerate(pages, start=1) if key in keys), 1)


def _fixture_order(match: Match) -> tuple:
    """The order a team plays its fixtures in: regular season before playoffs (playoff rounds in
    order), then round, then date (undated last), then creation."""
    return (
        match.playoff_round is not None,
        match.playoff_round or 0,
        match.round_number or 0,
        match.date is None,
        match.date or 0,
        match.pk,
    )


@dataclass(frozen=True)
class NextFixture:
    """A team's next fixture as the league table shows it: what it links to, its round, and the
    other sides' names in seat order ("Herons", "Herons, Cranes and Owls")."""

    pk: int
    round_number: int | None
    opponents: str


#: The order of a season's fixtures (regular rounds before the playoffs, "playoff-1" before
#: "playoff-10", rounds, dates, then ids), as the index ``match_fixture_order_idx`` keeps it.
def _fixture_order_by(prefix: str = "") -> list:
    return [
        Length(f"{prefix}stage").asc(),
        F(f"{prefix}stage").asc(),
        Coalesce(f"{prefix}round_number", Value(0)).asc(),
        F(f"{prefix}date").asc(nulls_last=True),
        F(f"{prefix}id").asc(),
    ]


#: How many fixtures a team the prefix of ``next_fixtures`` reads for a page of the table's teams
#: (the whole season's: one): two, so that a page's teams, whose fixtures in a round are scattered
#: among the others', meet their next one there, not in the window beyond it. Measured 2 December
#: on a 256-team season half played in random order (page 1): one fixture a team 27.2 ms (the
#: window ran), two 4.2 ms, four 5.2 ms, eight 11.9 ms.
SUBSET_PREFIX_FACTOR = 2


def next_fixtures(
    season: Season, teams: Collection[int] | None = None, *, subset: bool | None = None
) -> dict[int, NextFixture]:
    """Each team's next fixture to play (of ``teams``, the season's entrants when None: one query
    more), in one query in a season under way, three at most.

    The season's scheduled fixtures are read in their order (``_fixture_order_by``) over the index
    that keeps it, as far as one fixture an entrant: a round robin's next round or two, so every
    entrant that still has a fixture usually meets its next one there, and a team's first fixture
    in that prefix is its first of all. Only the entrants it does not reach (a team with no fixture
    left, or one that played ahead) are looked for further, by a window partitioned by team over
    their own scheduled sides. Plain values, no match or team objects (issue 29, part 2: the
    table's next-fixture column was most of its cold render, and a window over every scheduled
    side of a 256-team season cost 60 ms in the database alone).

    With ``teams`` given (``subset`` unless told it is every entrant, as a table of one page knows),
    the prefix holds only the fixtures where one of them plays, so a page of the table reads its own
    rows' next fixtures (at most two fixtures a team of it, ``SUBSET_PREFIX_FACTOR``, with their
    sides), never the season's; each team's answer is the one the whole season's call gives it (a
    team's first fixture among those is its first of all).
    """
    if subset is None:
        subset = teams is not None
    if teams is None:
        teams = SeasonEntry.objects.filter(season=season).values_list("team_id", flat=True)
    entrants = set(teams)
    if not entrants:
        return {}
    scheduled = Match.objects.filter(season=season, status=Match.Status.SCHEDULED)
    candidates = scheduled
    if subset:  # only the fixtures where one of them plays (a page of the table's teams)
        candidates = scheduled.filter(
            Exists(MatchTeam.objects.filter(match_id=OuterRef("pk"), team_id__in=sorted(entrants)))
        )
    limit = len(entrants) * (SUBSET_PREFIX_FACTOR if subset else 1)
    prefix = candidates.order_by(*_fixture_order_by()).values("id")[:limit]
    rounds: dict[int, int | None] = {}
    seats: dict[int, list[tuple[int, str]]] = {}
    firsts: dict[int, int] = {}
    for match_id, round_number, team_id, name in (
        MatchTeam.objects.filter(match_id__in=Subquery(prefix))
        .order_by(*_fixture_order_by("match__"), "slot")
        .values_list("match_id", "match__round_number", "team_id", "team__name")
    ):
        rounds[match_id] = round_number
        seats.setdefault(match_id, []).append((team_id, name))
        firsts.setdefault(team_id, match_id)
    missing = entrants - firsts.keys()
    if missing and len(rounds) == limit:  # the prefix was full: the rest are further on
        beyond = list(
            MatchTeam.objects.filter(match__in=scheduled, team_id__in=missing)
            .annotate(row=Window(RowNumber(), partition_by=[F("team_id")], order_by=_fixture_order_by("match__")))
            .filter(row=1)
            .values_list("team_id", "match_id", "match__round_number")
        )
        for team_id, match_id, round_number in beyond:
            firsts[team_id] = match_id
            rounds[match_id] = round_number
        for match_id, team_id, name in (
            MatchTeam.objects.filter(match_id__in={m for _, m, _ in beyond} - seats.keys())
            .order_by("match_id", "slot")
            .values_list("match_id", "team_id", "team__name")
        ):
            seats.setdefault(match_id, []).append((team_id, name))
    return {
        team_id: NextFixture(
            pk=match_id,
            round_number=rounds[match_id],
            opponents=_names([name for other, name in seats.get(match_id, []) if other != team_id]),
        )
        for team_id, match_id in firsts.items()
        if team_id in entrants
    }


def _names(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C" ("" for none)."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def bracket(season: Season) -> list[list[BracketSlot]]:
    """Playoff rounds (first round first), each a list of slots with teams and match results."""
    slots = (
        BracketSlot.objects.filter(season=season)
        .select_related("home", "away", "winner", "match")
        .prefetch_related(Prefetch("match__sides", queryset=MatchTeam.objects.order_by("slot")))
        .order_by("round_number", "slot")
    )
    rounds: dict[int, list[BracketSlot]] = {}
    for slot in slots:
        rounds.setdefault(slot.round_number, []).append(slot)
    return [rounds[r] for r in sorted(rounds)]


# --- leagues -------------------------------------------------------------------------------------


def leagues_for_list() -> QuerySet:
    return (
        League.objects.select_related("master")
        .annotate(team_count=Count("teams", filter=Q(teams__entry_status=Team.EntryStatus.ACCEPTED), distinct=True))
        .prefetch_related(
            Prefetch("seasons", queryset=Season.objects.exclude(status=Season.Status.FINISHED), to_attr="current")
        )
        .order_by("name")
    )


def league_teams(league: League) -> QuerySet:
    return Team.objects.filter(league=league).select_related("owner", "clan").order_by("entry_status", "name")


def season_entries(season: Season) -> QuerySet:
    return SeasonEntry.objects.filter(season=season).select_related("team", "team__owner", "team__clan")
