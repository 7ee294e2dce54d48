"""A whole league as one JSON document, and back (``manage.py export_league`` / ``import_league``,
the master's download, and the import page of the site).

The document holds the league, its seasons, entries, rounds, schedule runs, byes and bracket, its
invitation links; every team that played in it or belongs to it, with its ninjas, advancements,
rolls, XP events and koban ledger; every match with its sides (a Kage Masters table's places
included), feats, dice, downtime, upkeep, simulation record and deadline reminder; and its
newsletters. Rules catalog rows are named by their natural keys (a clan's slug, a keyword's name),
users by username (no email, no password: an imported user must set one). Rows are numbered in the
document by their place (oldest first), never by database id (ids inside JSON fields too: a
result's teams and ninjas, a kick-off roster, a newsletter's facts; JSON_REFS), and written with
sorted keys:
exporting a league, importing it into an empty database and exporting it again gives the same
bytes (tests/api/test_backup_round_trip.py, for a league of each game that used every feature).

Not in the document, on purpose (docs/operations.md, "Backups"):

- strength ratings and the league table's stored standings: derived from the matches, they are
  computed again after an import (the same services that keep them in step);
- notifications, notification choices and newsletter deliveries: a user's inbox and the site's
  mail log, not the league's record (their links carry this database's ids);
- simulation jobs and balance studies: a job's progress, not its result (a simulated match's
  record, ``SimulationRun``, is in the document);
- a result form saved mid-game (its field names carry database ids), and a newsletter's HTML and
  plain text of its sections: made again on import from the sections, by the build's template.

An import trusts nothing in its document (:func:`league_check`): the file's size and nesting are
bounded before it is parsed, every section and row is checked as the forms and the models check
them (types, lengths, choices, names, slugs, ranges, uniqueness inside the document and against
the site), every reference must resolve inside the document, every team's ledger must add up to
its treasury, only the users the rows name may be listed, newsletters' HTML is made again and
passed through the newsletters' own sanitiser; the first problem found refuses the whole document with one sentence
naming the section and the row (:class:`ImportRefused`), and nothing is written.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import secrets
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q

from common.text import unstorable
from games import registry as games_registry
from league.models import (
    BracketSlot,
    Bye,
    League,
    LeagueInvitation,
    Round,
    ScheduleRun,
    Season,
    SeasonEntry,
)
from matches.models import (
    DiceRoll,
    DowntimeResult,
    Match,
    MatchNinja,
    MatchTeam,
    SimulationRun,
    UpkeepDecision,
)
from newsletters.models import Newsletter
from notifications.models import DeadlineReminder
from rules.models import Challenge, Clan, Keyword, Profile, SpecialAbility
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent

FORMAT = "moonlight-league-export"
#: 2: ids inside JSON fields are places, and newsletters' HTML is made again on import. A document
#: of version 1 still imports: its JSON fields as they are, its newsletters' HTML sanitised.
VERSION = 2
VERSIONS = (1, 2)
User = get_user_model()

#: Catalog models, named by natural key.
CATALOG: dict[type[models.Model], Callable[[Any], Any]] = {
    Clan: lambda o: o.slug,
    Profile: lambda o: o.slug,
    Challenge: lambda o: o.slug,
    Keyword: lambda o: o.name,
    SpecialAbility: lambda o: [o.profile.slug, o.name],
}

#: How deep the document's arrays and objects may nest (a row's JSON fields included: a roster
#: snapshot or a simulation's log is a few levels deep). Checked before parsing, without recursion.
MAX_DEPTH = 32

#: The most rows each section may hold. Generous for a league of many seasons; an import of more is
#: refused before anything is built. The file's size (``LEAGUE_IMPORT_MAX_BYTES``) bounds the total.
MAX_ROWS = {
    "league": 1,
    "seasons": 200,
    "teams": 2_000,
    "season_entries": 20_000,
    "ninjas": 20_000,
    "matches": 20_000,
    "match_teams": 80_000,
    "match_ninjas": 200_000,
    "advancement_rolls": 50_000,
    "advancements": 50_000,
    "xp_events": 200_000,
    "treasury_entries": 200_000,
    "dice_rolls": 200_000,
    "downtime_results": 200_000,
    "upkeep_decisions": 50_000,
    "simulation_runs": 20_000,
    "deadline_reminders": 20_000,
    "schedule_runs": 20_000,
    "byes": 20_000,
    "rounds": 20_000,
    "bracket_slots": 2_000,
    "invitations": 1_000,
    "newsletters": 5_000,
}


class ImportRefused(ValidationError):
    """A document the import will not write: one sentence, naming the section and the row."""

    def __init__(self, message: str, *, checked: Checked | None = None):
        super().__init__(message)
        #: When only the league's own row was refused (its name or address taken, say): the rest
        #: of the document, checked.
        self.checked = checked


def max_bytes() -> int:
    return settings.LEAGUE_IMPORT_MAX_BYTES


def _sections(league: League) -> list[tuple[str, type[models.Model], models.QuerySet]]:
    """(name, model, rows) in the order an import creates them (what a row points at comes first)."""
    seasons = Season.objects.filter(league=league)
    matches = Match.objects.filter(Q(league=league) | Q(season__league=league))
    # The league's members (accepted), and every team that entered its seasons or played its
    # matches; not the teams whose application waits or was refused: they are not the league's.
    teams = Team.objects.filter(
        Q(league=league, entry_status=Team.EntryStatus.ACCEPTED)
        | Q(season_entries__season__league=league)
        | Q(match_sides__match__in=matches)
    ).distinct()
    ninjas = Ninja.objects.filter(team__in=teams)
    return [
        ("league", League, League.objects.filter(pk=league.pk)),
        ("seasons", Season, seasons),
        ("teams", Team, teams),
        ("season_entries", SeasonEntry, SeasonEntry.objects.filter(season__in=seasons)),
        ("ninjas", Ninja, ninjas),
        ("matches", Match, matches),
        ("match_teams", MatchTeam, MatchTeam.objects.filter(match__in=matches)),
        ("match_ninjas", MatchNinja, MatchNinja.objects.filter(side__match__in=matches)),
        ("advancement_rolls", AdvancementRoll, AdvancementRoll.objects.filter(ninja__in=ninjas)),
        ("advancements", Advancement, Advancement.objects.filter(ninja__in=ninjas)),
        ("xp_events", XpEvent, XpEvent.objects.filter(ninja__in=ninjas)),
        ("treasury_entries", TreasuryEntry, TreasuryEntry.objects.filter(team__in=teams)),
        ("dice_rolls", DiceRoll, DiceRoll.objects.filter(match__in=matches)),
        ("downtime_results", DowntimeResult, DowntimeResult.objects.filter(match__in=matches)),
        ("upkeep_decisions", UpkeepDecision, UpkeepDecision.objects.filter(match__in=matches)),
        ("simulation_runs", SimulationRun, SimulationRun.objects.filter(match__in=matches)),
        ("deadline_reminders", DeadlineReminder, DeadlineReminder.objects.filter(match__in=matches)),
        ("schedule_runs", ScheduleRun, ScheduleRun.objects.filter(season__in=seasons)),
        ("byes", Bye, Bye.objects.filter(season__in=seasons)),
        ("rounds", Round, Round.objects.filter(season__in=seasons)),
        ("bracket_slots", BracketSlot, BracketSlot.objects.filter(season__in=seasons)),
        ("invitations", LeagueInvitation, LeagueInvitation.objects.filter(league=league)),
        ("newsletters", Newsletter, Newsletter.objects.filter(league=league)),
    ]


#: (section, model) in the import's order.
SECTIONS: list[tuple[str, type[models.Model]]] = [(name, model) for name, model, _ in _sections(League(pk=0))]
SECTION_OF: dict[type[models.Model], str] = {model: name for name, model in SECTIONS}


def _fields(model: type[models.Model]) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def _m2m(model: type[models.Model]) -> list[models.ManyToManyField]:
    return [f for f in model._meta.many_to_many if f.remote_field.model in CATALOG]


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


# --- export -----------------------------------------------------------------------------------------


class _Usernames(dict):
    def __missing__(self, pk: int) -> str:
        self[pk] = User.objects.values_list("username", flat=True).get(pk=pk)
        return self[pk]


#: Database ids inside JSON fields (a result's teams and ninjas, a kick-off roster, a simulation's
#: choices, a newsletter's facts, a finished season's table): (path, model). The document holds
#: them as places, like any reference, so a restored league's pending result names its own teams.
#: A path's steps: a key, "[]" every item of a list, "*" every value of an object, "<key>" every
#: key of an object (ids as keys).
JSON_REFS: dict[tuple[type[models.Model], str], list[tuple[tuple[str, ...], type[models.Model]]]] = {
    (Season, "final_table"): [(("champion", "team_id"), Team), (("rows", "[]", "team_id"), Team)],
    (Match, "submitted_record"): [
        (("teams", "[]", "team_id"), Team),
        (("teams", "[]", "ninjas", "[]", "ninja_id"), Ninja),
        (("upkeep", "<key>"), Ninja),
        (("downtime_faces", "<key>"), Ninja),
    ],
    (Match, "counter_record"): [
        (("teams", "[]", "team_id"), Team),
        (("teams", "[]", "ninjas", "[]", "ninja_id"), Ninja),
        (("upkeep", "<key>"), Ninja),
        (("downtime_faces", "<key>"), Ninja),
    ],
    # each ronin's upkeep as its own team decided it (matches.services, "ronin upkeep")
    (Match, "upkeep_choices"): [(("<key>",), Ninja)],
    (MatchTeam, "roster_snapshot"): [(("[]", "id"), Ninja)],
    (SimulationRun, "decisions"): [(("advancements", "[]", "ninja"), Ninja), (("upkeep", "<key>"), Ninja)],
    (Newsletter, "sections"): [
        (("season", "id"), Season),
        (("reports", "[]", "match_id"), Match),
        (("reports", "[]", "teams", "[]", "team_id"), Team),
        (("table", "rows", "[]", "team_id"), Team),
        (("stats", "records", "*", "match_id"), Match),
        (("stats", "top_xp", "rows", "[]", "ninja_id"), Ninja),
        (("stats", "top_xp", "rows", "[]", "team_id"), Team),
        (("stats", "treasuries", "rows", "[]", "team_id"), Team),
    ],
}

#: Fields the document leaves empty: a result form saved mid-game (its field names carry database
#: ids), and a newsletter's HTML and plain text, made again from its sections on import.
NOT_EXPORTED: dict[type[models.Model], set[str]] = {
    Match: {"result_draft"},
    Newsletter: {"content_html", "content_text"},
}


def _map_json(value: Any, path: tuple[str, ...], mapping: Callable[[Any], Any]) -> Any:
    """``value`` with every id at ``path`` replaced by ``mapping(id)`` (a copy along the path; a
    value whose shape does not follow the path is left as it is)."""
    if not path:
        return mapping(value)
    step, rest = path[0], path[1:]
    if step == "[]":
        return [_map_json(v, rest, mapping) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    if step == "*":
        return {k: _map_json(v, rest, mapping) for k, v in value.items()}
    if step == "<key>":
        out = {}
        for k, v in value.items():
            mapped = mapping(int(k) if isinstance(k, str) and k.isdigit() else k)
            out[str(mapped)] = v
        return out
    if step not in value:
        return value
    return {**value, step: _map_json(value[step], rest, mapping)}


def _map_refs(model: type[models.Model], field_name: str, value: Any, mapping: Callable) -> Any:
    """A JSON field's value with its ids mapped: ``mapping(target model, id)``."""
    for path, target in JSON_REFS.get((model, field_name), []):
        value = _map_json(value, path, lambda raw, target=target: mapping(target, raw))
    return value


def league_export(league: League) -> dict:
    """The league as a document (see the module's docstring)."""
    sections = _sections(league)
    exported = {model for _, model, _ in sections}
    users: set[str] = set()
    usernames = _Usernames()
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    loaded = []
    for name, model, queryset in sections:
        related = [f.name for f in _fields(model) if f.is_relation and f.remote_field.model in CATALOG]
        rows = list(queryset.order_by("pk").select_related(*related).prefetch_related(*(f.name for f in _m2m(model))))
        loaded.append((name, model, rows))
    refs = {model: {obj.pk: i for i, obj in enumerate(rows, start=1)} for _, model, rows in loaded}

    def place(target, raw):
        return refs[target].get(raw) if isinstance(raw, int) and not isinstance(raw, bool) else None

    for name, model, rows in loaded:
        table = []
        for obj in rows:
            row: dict[str, Any] = {}
            for field in _fields(model):
                raw = getattr(obj, field.attname)
                if field.name in NOT_EXPORTED.get(model, ()):
                    raw = field.get_default() if field.has_default() else (None if field.null else "")
                if (model, field.name) in JSON_REFS and raw is not None:
                    raw = _map_refs(model, field.name, raw, place)
                if not field.is_relation or raw is None:
                    row[field.name] = _value(raw)
                    continue
                target = field.remote_field.model
                if target is User:
                    username = usernames[raw]
                    users.add(username)
                    row[field.name] = username
                elif target in CATALOG:
                    row[field.name] = CATALOG[target](getattr(obj, field.name))
                elif target in exported and raw in refs[target]:
                    row[field.name] = refs[target][raw]
                elif field.null:
                    row[field.name] = None  # points outside the league (a team's other league, a job)
                else:
                    raise ValidationError(f"{name}: {obj} points at {target.__name__} {raw}, outside the league.")
            for field in _m2m(model):
                row[field.name] = sorted(CATALOG[field.remote_field.model](o) for o in getattr(obj, field.name).all())
            table.append(row)
        out[name] = table
    out["users"] = sorted(users)
    return out


def league_export_json(league: League) -> bytes:
    return json.dumps(league_export(league), sort_keys=True, indent=1, ensure_ascii=False).encode() + b"\n"


# --- reading a file ---------------------------------------------------------------------------------

#: A JSON string (skipped whole: brackets inside it do not count) or a bracket.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _nesting(text: str) -> int:
    """How deep the text's arrays and objects nest, in one pass of a regular expression (no
    recursion, whatever the input)."""
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif mark in "]}":
            depth -= 1
    return deepest


def league_document_read(data: bytes) -> dict:
    """The document in ``data``, parsed: refused unless it is at most ``LEAGUE_IMPORT_MAX_BYTES``
    long (checked before anything else), UTF-8, nested at most MAX_DEPTH deep, and JSON."""
    limit = max_bytes()
    if len(data) > limit:
        raise ImportRefused(f"The file is {len(data):,} bytes long; a league's backup may be at most {limit:,} bytes.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ImportRefused("The file is not text (UTF-8): it is not a league's backup.") from None
    if _nesting(text) > MAX_DEPTH:
        raise ImportRefused(
            f"The file nests its lists and objects more than {MAX_DEPTH} deep: it is not a league's backup."
        )
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ImportRefused(f"The file is not JSON ({exc}): it is not a league's backup.") from None
    return document


# --- checking a document ----------------------------------------------------------------------------


@dataclass
class Checked:
    """A document that passed :func:`league_check`: the rows to create (unsaved, cleaned), and
    what they point at by place (filled in when written)."""

    league_name: str
    league_slug: str
    counts: dict[str, int]
    usernames: list[str]
    #: 2: ids inside JSON fields are places (mapped when written); 1: they are kept as they are.
    version: int = VERSION
    #: section -> [(instance, {field: ("ref", model, place) | ("user", username)}, m2m {field: [pk]})]
    rows: dict[str, list[tuple[models.Model, dict[str, tuple], dict[str, list[int]]]]] = dataclass_field(
        default_factory=dict
    )

    @property
    def entrant_word(self) -> str:
        """What the league's entrants are called: teams (All-Stars) or players (the other games)."""
        league = self.rows["league"][0][0]
        return "team" if league.game_site.team_scrolls else "player"

    @property
    def summary(self) -> dict[str, int]:
        """What the import creates, for the preview."""
        return {
            "seasons": self.counts.get("seasons", 0),
            "teams": self.counts.get("teams", 0),
            "matches": self.counts.get("matches", 0),
            "newsletters": self.counts.get("newsletters", 0),
            "users": len(self.usernames),
        }


def _row_name(section: str, place: int) -> str:
    return f"{section.replace('_', ' ')}, row {place}"


def _catalog_lookup() -> dict[type[models.Model], dict]:
    return {
        model: {
            (tuple(key(o)) if isinstance(key(o), list) else key(o)): o.pk
            for o in model.objects.select_related(*(["profile"] if model is SpecialAbility else []))
        }
        for model, key in CATALOG.items()
    }


def _catalog_key(value: Any) -> Any:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return tuple(value)
    if isinstance(value, str):
        return value
    return None


_INTEGER_FIELDS = models.IntegerField | models.BigIntegerField | models.SmallIntegerField
_TEXT_FIELDS = models.CharField | models.TextField


def _type_problem(field: models.Field, value: Any) -> str | None:
    """Why ``value`` is not of the field's type (None: it is), before any conversion."""
    if value is None or isinstance(field, models.JSONField):
        return None
    if isinstance(field, models.BooleanField):
        ok = isinstance(value, bool)
    elif isinstance(field, _INTEGER_FIELDS):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(field, models.FloatField):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif isinstance(field, _TEXT_FIELDS | models.DateField | models.DateTimeField | models.UUIDField):
        ok = isinstance(value, str)
    else:
        ok = isinstance(value, str | int | float | bool)
    return None if ok else f"its {field.name} is not {_kind(field)}"


def _kind(field: models.Field) -> str:
    if isinstance(field, models.BooleanField):
        return "true or false"
    if isinstance(field, _INTEGER_FIELDS):
        return "a whole number"
    if isinstance(field, models.FloatField):
        return "a number"
    if isinstance(field, models.DateTimeField | models.DateField):
        return "a date"
    return "text"


def _unique_sets(model: type[models.Model]) -> list[tuple[tuple[str, ...], Q | None, str]]:
    """(fields, condition, what) of every uniqueness the database enforces on the model's rows."""
    out = [((f.name,), None, f.name) for f in _fields(model) if f.unique]
    for fields in model._meta.unique_together:
        out.append((tuple(fields), None, " and ".join(fields)))
    for constraint in model._meta.constraints:
        if isinstance(constraint, models.UniqueConstraint) and constraint.fields:
            out.append((tuple(constraint.fields), constraint.condition, " and ".join(constraint.fields)))
    return out


def league_check(document: Any, *, owner: Any = None, name: str | None = None, slug: str | None = None) -> Checked:
    """Check everything in ``document`` before anything is written; raise :class:`ImportRefused`
    at the first problem.

    Without ``owner``: a restore (the command line), into a database without leagues, teams or
    matches; the document's users are created. With ``owner``: a copy into a new league of
    ``owner``'s (the site's import page), named ``name`` at ``slug`` (the document's when not
    given), which must not collide with another league's; every user the document names becomes
    ``owner``, and the invitation codes and task ids are new.
    """
    if not isinstance(document, dict) or document.get("format") != FORMAT or document.get("version") not in VERSIONS:
        raise ImportRefused(f"Not a {FORMAT} document (of version {' or '.join(map(str, VERSIONS))}).")
    problem = unstorable(document)
    if problem:
        raise ImportRefused(f"The document holds {problem}, which no field may hold.")
    known = {"format", "version", "users", *(name for name, _ in SECTIONS)}
    unknown = sorted(str(k) for k in document if k not in known)
    if unknown:
        raise ImportRefused(f"The document has a section this site does not know: {unknown[0][:60]!r}.")
    if owner is None and (League.objects.exists() or Team.objects.exists() or Match.objects.exists()):
        raise ImportRefused("Import into an empty database: this one already holds leagues, teams or matches.")

    league_rows = document.get("league")
    if not isinstance(league_rows, list) or len(league_rows) != 1:
        held = len(league_rows) if isinstance(league_rows, list) else "no list of leagues"
        raise ImportRefused(f"A backup holds exactly one league; this one holds {held}.")
    counts: dict[str, int] = {}
    for section, _ in SECTIONS:
        rows = document.get(section, [])
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ImportRefused(f"The section {section.replace('_', ' ')} is not a list of rows.")
        if len(rows) > MAX_ROWS[section]:
            raise ImportRefused(
                f"The section {section.replace('_', ' ')} has {len(rows):,} rows; a league's backup may have "
                f"at most {MAX_ROWS[section]:,}."
            )
        counts[section] = len(rows)
    listed = document.get("users", [])
    if not isinstance(listed, list) or not all(isinstance(u, str) for u in listed):
        raise ImportRefused("The section users is not a list of usernames.")
    if len(set(listed)) != len(listed):
        raise ImportRefused("The section users names a user twice.")

    catalog = _catalog_lookup()
    named_users: set[str] = set()
    checked = Checked(league_name="", league_slug="", counts=counts, usernames=[], version=document["version"])
    for section, model in SECTIONS:
        league = checked.rows["league"][0][0] if "league" in checked.rows else None
        checked.rows[section] = _check_section(
            section, model, document, counts, catalog, named_users, version=checked.version, league=league
        )

    # Users: exactly those the rows name, each a valid username, none already on the site (a restore).
    not_named = sorted(set(listed) - named_users)
    if not_named:
        raise ImportRefused(f"users: {not_named[0][:60]!r} is named by no row of the document.")
    username_field = User._meta.get_field("username")
    for username in sorted(named_users):
        try:
            username_field.clean(username, None)
        except ValidationError as exc:
            raise ImportRefused(f"users: {username[:60]!r} is not a username ({' '.join(exc.messages)})") from None
    if owner is None:
        taken = User.objects.filter(username__in=named_users).values_list("username", flat=True).first()
        if taken is not None:
            raise ImportRefused(f"users: {taken!r} already has an account on this site.")
    checked.usernames = sorted(named_users)

    _check_uniqueness(checked)
    _check_ledgers(checked, document)
    league = checked.rows["league"][0][0]
    if owner is not None:
        league.name = name if name is not None else league.name
        league.slug = slug if slug is not None else league.slug
    checked.league_name, checked.league_slug = league.name, league.slug
    try:
        _clean_league(league)
    except ImportRefused as exc:
        exc.checked = checked
        raise
    return checked


def _own_rules_moved(row: dict, game: Any) -> dict:
    """A league's or season's row of a document made while a game's own house rules were fields
    of the core's (Ninjutsu's time limit, Kage Masters' place points: league.0023): those fields
    moved into its ``game_rules``, as the migration moved them; the document's ``game_rules``, if
    any, wins. Any other field stays where it is (and is refused as unknown)."""
    if not isinstance(game, str) or game not in games_registry.GAMES:
        return row
    own = {rule.key for rule in games_registry.game_of(game).house_rules}
    moved = {key: row[key] for key in row if key in own}
    rules = row.get("game_rules", {})
    if not moved or not isinstance(rules, dict):
        return row  # nothing moved, or game_rules is refused by its own check
    return {**{k: v for k, v in row.items() if k not in moved}, "game_rules": {**moved, **rules}}


def _check_section(section, model, document, counts, catalog, named_users, *, version: int, league) -> list:
    from newsletters.services import render_markdown, sanitize_sections

    fields = _fields(model)
    by_name = {f.name: f for f in fields}
    m2m_fields = {f.name: f for f in _m2m(model)}
    out = []
    for place, row in enumerate(document.get(section, []), start=1):
        where = _row_name(section, place)
        if model in (League, Season) and isinstance(row, dict):
            row = _own_rules_moved(row, row.get("game") if model is League else getattr(league, "game", None))
        extra = sorted(str(k) for k in row if k not in by_name and k not in m2m_fields)
        if extra:
            raise ImportRefused(f"{where}: {extra[0][:60]!r} is not a field of this section.")
        values: dict[str, Any] = {}
        refs: dict[str, tuple] = {}
        for f in fields:
            if f.name not in row:
                if f.has_default():
                    # a column added after the document was made (a league's and a team's game,
                    # issue 17): its default, as the migration that added it gave existing rows
                    values[f.attname] = f.get_default()
                    continue
                if not f.null:
                    raise ImportRefused(f"{where}: its {f.name} is missing.")
            value = row.get(f.name)
            if value is None and not f.null:
                raise ImportRefused(f"{where}: its {f.name} is missing.")
            if not f.is_relation:
                problem = _type_problem(f, value)
                if problem:
                    raise ImportRefused(f"{where}: {problem}.")
                values[f.attname] = value
                continue
            values[f.attname] = None
            if value is None:
                continue
            target = f.remote_field.model
            if target is User:
                if not isinstance(value, str):
                    raise ImportRefused(f"{where}: its {f.name} is not a username.")
                named_users.add(value)
                refs[f.name] = ("user", value)
            elif target in CATALOG:
                key = _catalog_key(value)
                if key is None or key not in catalog[target]:
                    raise ImportRefused(
                        f"{where}: its {f.name} names {target._meta.verbose_name} {str(value)[:60]!r}, "
                        "which the rules catalog does not have."
                    )
                values[f.attname] = catalog[target][key]
            elif target in SECTION_OF:
                target_section = SECTION_OF[target]
                if [s for s, _ in SECTIONS].index(target_section) > [s for s, _ in SECTIONS].index(section):
                    raise ImportRefused(f"{where}: its {f.name} points at a later section.")  # pragma: no cover
                if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= counts[target_section]:
                    raise ImportRefused(
                        f"{where}: its {f.name} points at {target_section.replace('_', ' ')} row "
                        f"{str(value)[:20]}, which the document does not have."
                    )
                if target is model and value == place:
                    raise ImportRefused(f"{where}: its {f.name} points at the row itself.")
                refs[f.name] = ("ref", target, value)
            else:
                raise ImportRefused(f"{where}: its {f.name} points outside the league.")
        m2m: dict[str, list[int]] = {}
        for field_name, f in m2m_fields.items():
            keys = row.get(field_name, [])
            target = f.remote_field.model
            if not isinstance(keys, list):
                raise ImportRefused(f"{where}: its {field_name} is not a list.")
            pks = []
            for value in keys:
                key = _catalog_key(value)
                if key is None or key not in catalog[target]:
                    raise ImportRefused(
                        f"{where}: its {field_name} names {target._meta.verbose_name} {str(value)[:60]!r}, "
                        "which the rules catalog does not have."
                    )
                pks.append(catalog[target][key])
            if len(set(pks)) != len(pks):
                raise ImportRefused(f"{where}: its {field_name} names the same one twice.")
            m2m[field_name] = pks
        obj = model(**values)
        if version >= 2:
            for field_name in {name for (m, name) in JSON_REFS if m is model}:
                _check_json_refs(model, field_name, getattr(obj, field_name), counts, where)
        if model is Newsletter:
            # The HTML the pages show unescaped is not taken from the document: the editorial's is
            # made from its Markdown (as every save makes it), the sections' from the sections by
            # the build's template, once their ids are this site's (_write); both through the
            # newsletters' own sanitiser. (A document of version 1: its sections' HTML, sanitised.)
            obj.editorial_html = render_markdown(obj.editorial) if isinstance(obj.editorial, str) else ""
            if version >= 2:
                obj.content_html = obj.content_text = ""
                _lay_out(obj, league, where)
            else:
                obj.content_html = sanitize_sections(obj.content_html) if isinstance(obj.content_html, str) else ""
        if model is not League:
            _clean(obj, where)
        out.append((obj, refs, m2m))
    return out


def _check_json_refs(model, field_name: str, value: Any, counts: dict[str, int], where: str) -> None:
    """Every id inside a JSON field (JSON_REFS) is a row of the document (or empty)."""

    def check(target, raw):
        if raw is None:
            return raw
        target_section = SECTION_OF[target]
        if not isinstance(raw, int) or isinstance(raw, bool) or not 1 <= raw <= counts[target_section]:
            raise ImportRefused(
                f"{where}: its {field_name} names {target_section.replace('_', ' ')} row {str(raw)[:20]}, "
                "which the document does not have."
            )
        return raw

    if value is not None:
        _map_refs(model, field_name, value, check)


def _lay_out(newsletter: Newsletter, league: League, where: str) -> None:
    """A newsletter's sections laid out by the build's template (newsletters.services), sanitised;
    a document whose sections the template cannot lay out is refused."""
    from django.template.loader import render_to_string

    from newsletters.services import sanitize_sections

    if not newsletter.sections:
        newsletter.content_html = newsletter.content_text = ""
        return
    context = {"newsletter": newsletter, "league": league, "sections": newsletter.sections}
    try:
        html = render_to_string("newsletters/includes/_sections.html", context)
        text = render_to_string("newsletters/email/sections.txt", context)
    except Exception as exc:  # the document's facts are untrusted: any failure to lay them out is a refusal
        raise ImportRefused(
            f"{where}: its sections cannot be laid out as a newsletter ({type(exc).__name__})."
        ) from None
    newsletter.content_html, newsletter.content_text = sanitize_sections(html), text


def _clean(obj: models.Model, where: str) -> None:
    """The model's own validation (fields, lengths, choices, ranges, names, check constraints),
    without the references (resolved by place above) and without uniqueness (checked in the
    document below). Check constraints are evaluated here, in Python, where their conditions are
    plain comparisons (all but one are): Django's own check runs a query for each row."""
    model = type(obj)
    relations = [f.name for f in _fields(model) if f.is_relation]
    outside = [f.name for f in _fields(model) if f.is_relation and f.remote_field.model not in CATALOG]
    # An empty JSON value is what the services store for "none yet" (a simulation's dice), blank or not.
    empty_json = [
        f.name for f in _fields(model) if isinstance(f, models.JSONField) and getattr(obj, f.attname) in ([], {})
    ]
    try:
        obj.full_clean(exclude=relations + empty_json, validate_unique=False, validate_constraints=False)
        values = {f.name: getattr(obj, f.attname) for f in _fields(model)}
        for constraint in model._meta.constraints:
            if not isinstance(constraint, models.CheckConstraint):
                continue
            if any(name in outside for name in _condition_fields(constraint.condition)):
                continue
            held = _evaluate(constraint.condition, values)
            if held is _UNKNOWN_FORM:
                constraint.validate(model, obj, exclude=outside)
            elif held is False:
                raise ValidationError(constraint.get_violation_error_message())
    except ValidationError as exc:
        raise ImportRefused(f"{where}: {_sentence(exc)}") from None


_UNKNOWN_FORM = object()  # a condition this evaluator does not read: Django's check decides
_COMPARE = {
    "exact": lambda a, b: a == b,
    "gte": lambda a, b: a >= b,
    "lte": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "lt": lambda a, b: a < b,
}


def _condition_fields(condition: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(condition, Q):
        for child in condition.children:
            if isinstance(child, Q):
                names |= _condition_fields(child)
            else:
                names.add(child[0].split("__")[0])
                if isinstance(child[1], models.F):
                    names.add(child[1].name)
    return names


def _evaluate(condition: Any, values: dict[str, Any]) -> Any:
    """A check constraint's condition for one row, as SQL reads it: True, False or None (unknown,
    which passes a check), or _UNKNOWN_FORM for anything but comparisons of fields and values."""
    if not isinstance(condition, Q):
        return _UNKNOWN_FORM
    results = []
    for child in condition.children:
        if isinstance(child, Q):
            result = _evaluate(child, values)
        else:
            lookup, expected = child
            name, _, op = lookup.partition("__")
            op = op or "exact"
            if name not in values or "__" in op:
                return _UNKNOWN_FORM
            value = values[name]
            if isinstance(expected, models.F):
                if expected.name not in values:
                    return _UNKNOWN_FORM
                expected = values[expected.name]
            elif not isinstance(expected, str | int | float | bool | type(None) | list | tuple):
                return _UNKNOWN_FORM
            if op == "isnull":
                result = (value is None) == expected
            elif op == "in":
                result = None if value is None else value in expected
            elif op in _COMPARE:
                result = None if value is None or expected is None else _COMPARE[op](value, expected)
            else:
                return _UNKNOWN_FORM
        if result is _UNKNOWN_FORM:
            return _UNKNOWN_FORM
        results.append(result)
    if condition.connector == Q.AND:
        result = False if False in results else (None if None in results else True)
    else:
        result = True if True in results else (None if None in results else False)
    if condition.negated and result is not None:
        result = not result
    return result


def _sentence(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        parts = []
        for field_name, errors in exc.error_dict.items():
            text = " ".join(m for e in errors for m in e.messages)
            parts.append(text if field_name == "__all__" else f"its {field_name}: {text}")
        return "; ".join(parts)
    return " ".join(exc.messages)


def _clean_league(league: League) -> None:
    """The league row as the league's form checks it: name, slug (a slug, not a path), house rules,
    and no other league with this name (or one that looks the same) or slug."""
    try:
        league.full_clean(exclude=["master"])
    except ValidationError as exc:
        raise ImportRefused(f"league: {_sentence(exc)}") from None


def _check_uniqueness(checked: Checked) -> None:
    """Every uniqueness the database enforces, inside the document (the league's new rows can
    collide only with each other; the league itself is checked against the site)."""
    for section, model in SECTIONS:
        if model is League:
            continue
        rows = checked.rows[section]
        for fields, condition, what in _unique_sets(model):
            seen: dict[tuple, int] = {}
            for place, (obj, refs, _) in enumerate(rows, start=1):
                values = {}
                for name in fields:
                    f = model._meta.get_field(name)
                    values[name] = refs[name][1:] if name in refs else getattr(obj, f.attname)
                if condition is not None:
                    # a partial unique index holds the rows its condition is true for (when the
                    # evaluator cannot read a condition, every row counts: the stricter reading)
                    plain = {f.name: getattr(obj, f.attname) for f in _fields(model) if not f.is_relation}
                    plain.update(values)
                    if _evaluate(condition, plain) in (False, None):
                        continue
                key = tuple(values[n] for n in fields)
                if any(v is None for v in key):
                    continue
                if key in seen:
                    raise ImportRefused(
                        f"{_row_name(section, place)}: its {what.replace('_', ' ')} repeats row {seen[key]}'s."
                    )
                seen[key] = place


def _check_ledgers(checked: Checked, document: dict) -> None:
    """Each team's ledger adds up, row by row, to its balance, and in the end to its treasury."""
    balance: dict[int, int] = defaultdict(int)
    for place, (entry, refs, _) in enumerate(checked.rows["treasury_entries"], start=1):
        team = refs["team"][2]
        balance[team] += entry.amount
        if entry.balance_after != balance[team]:
            raise ImportRefused(
                f"{_row_name('treasury_entries', place)}: its balance after ({entry.balance_after}) is not the "
                f"ledger's sum up to it ({balance[team]})."
            )
    for place, (team, _, _) in enumerate(checked.rows["teams"], start=1):
        if team.treasury != balance[place]:
            raise ImportRefused(
                f"{_row_name('teams', place)}: its treasury ({team.treasury}) is not the sum of its ledger "
                f"({balance[place]})."
            )


# --- writing ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def _stored_timestamps() -> Iterator[None]:
    """Keep the document's creation times: auto_now(_add) fields would stamp the import's time."""
    changed = []
    for _, model in SECTIONS:
        for f in _fields(model):
            if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
                changed.append((f, f.auto_now, f.auto_now_add))
                f.auto_now = f.auto_now_add = False
    try:
        yield
    finally:
        for f, now, now_add in changed:
            f.auto_now, f.auto_now_add = now, now_add


def league_import(document: Any, *, owner: Any = None, name: str | None = None, slug: str | None = None) -> League:
    """Check ``document`` (:func:`league_check`, which says what ``owner``, ``name`` and ``slug``
    mean), then create its league in one transaction; afterwards the strength ratings are computed
    again from the history (after commit, as after any result)."""
    checked = league_check(document, owner=owner, name=name, slug=slug)
    with transaction.atomic(), _stored_timestamps():
        league = _write(checked, owner=owner)
        _refresh_derived(league)
        transaction.on_commit(_recompute_ratings)
    return league


def _write(checked: Checked, *, owner: Any) -> League:
    users: dict[str, int] = {}
    if owner is None:
        for username in checked.usernames:
            user = User(username=username)
            user.set_unusable_password()
            user.save()
            users[username] = user.pk
    pks: dict[type[models.Model], dict[int, int]] = {}
    deferred: list[tuple[type[models.Model], str, list]] = []
    league = None
    for section, model in SECTIONS:
        rows = checked.rows[section]
        # References to rows of the same section (a replay's ``replay_of``: the voided match),
        # set once the section's rows exist.
        later: list[tuple[models.Model, models.Field, int]] = []
        for obj, refs, _ in rows:
            for field_name, ref in refs.items():
                f = model._meta.get_field(field_name)
                if ref[0] == "user":
                    setattr(obj, f.attname, owner.pk if owner is not None else users[ref[1]])
                elif ref[1] is model:
                    later.append((obj, f, ref[2]))
                else:
                    setattr(obj, f.attname, pks[ref[1]][ref[2]])
            if owner is not None:
                _fresh_secrets(obj)
        # Ids inside JSON fields: places of rows written before this section are this site's ids
        # now; the others (a finished season's table names teams, written after it) once they are.
        for field_name in sorted({name for (m, name) in JSON_REFS if m is model} if checked.version >= 2 else ()):
            targets = {target for _, target in JSON_REFS[(model, field_name)]}
            if targets <= set(pks):
                for obj, _, _ in rows:
                    setattr(obj, field_name, _to_pks(model, field_name, getattr(obj, field_name), pks))
            else:
                deferred.append((model, field_name, rows))
        if model is Newsletter and checked.version >= 2:
            for obj, _, _ in rows:
                _lay_out(obj, league, "newsletters")
        created = model.objects.bulk_create([obj for obj, _, _ in rows])
        if model is League:
            league = created[0]
        pks[model] = {i: obj.pk for i, obj in enumerate(created, start=1)}
        for obj, f, points_at in later:
            setattr(obj, f.attname, pks[model][points_at])
        if later:
            model.objects.bulk_update([obj for obj, _, _ in later], sorted({f.name for _, f, _ in later}))
        for f in _m2m(model):  # one insert a field for the whole section
            through = f.remote_field.through
            source, target = f.m2m_field_name(), f.m2m_reverse_field_name()
            through.objects.bulk_create(
                [
                    through(**{f"{source}_id": obj.pk, f"{target}_id": pk})
                    for obj, (_, _, m2m) in zip(created, rows, strict=True)
                    for pk in m2m[f.name]
                ]
            )
    for model, field_name, rows in deferred:
        objs = [obj for obj, _, _ in rows if getattr(obj, field_name) is not None]
        for obj in objs:
            setattr(obj, field_name, _to_pks(model, field_name, getattr(obj, field_name), pks))
        if objs:
            model.objects.bulk_update(objs, [field_name])
    return League.objects.get(pk=pks[League][1])


def _to_pks(model, field_name: str, value: Any, pks: dict) -> Any:
    if value is None:
        return None
    return _map_refs(model, field_name, value, lambda target, place: None if place is None else pks[target][place])


def _fresh_secrets(obj: models.Model) -> None:
    """A copy on a site that may hold the original: its invitation links and task ids are new."""
    if isinstance(obj, LeagueInvitation):
        obj.code = secrets.token_urlsafe(16)
    elif isinstance(obj, ScheduleRun):
        obj.task_id = str(uuid.uuid4())
    elif isinstance(obj, Newsletter) and obj.build_task_id:
        obj.build_task_id = uuid.uuid4().hex


def _refresh_derived(league: League) -> None:
    """The league table's stored standings, from the imported matches (not from the document)."""
    from league.readmodel import standings_refresh

    for season in Season.objects.filter(league=league).order_by("pk"):
        standings_refresh(season=season)


def _recompute_ratings() -> None:
    from outbox.dispatch import dispatch_now
    from stats.tasks import ratings_recompute_task

    dispatch_now(ratings_recompute_task, kwargs={}, description="Recompute strength ratings")
