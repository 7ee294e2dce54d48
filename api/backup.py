"""A whole league as one JSON document, and back (``manage.py export_league`` / ``import_league``,
the master's download).

The document holds the league, its seasons, entries, schedule runs, byes and bracket; every team
that played in it or belongs to it, with its ninjas, advancements, rolls, XP events and koban
ledger; every match with its sides, feats, dice, downtime and upkeep; and its newsletters (strength ratings are not in it: they are recomputed from the matches). Rules
catalog rows are named by their natural keys (a clan's slug, a keyword's name), users by username
(no email, no password: an imported user must set one). Rows are numbered in the document by their
place (oldest first), never by database id, and written with sorted keys: exporting a league,
importing it into an empty database and exporting it again gives the same bytes
(tests/api/test_backup.py).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q

from common.text import unstorable
from league.models import BracketSlot, Bye, League, Round, ScheduleRun, Season, SeasonEntry
from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from newsletters.models import Newsletter
from rules.models import Challenge, Clan, Keyword, Profile, SpecialAbility
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent

FORMAT = "moonlight-league-export"
VERSION = 1
User = get_user_model()

#: Catalog models, named by natural key.
CATALOG: dict[type[models.Model], Callable[[Any], Any]] = {
    Clan: lambda o: o.slug,
    Profile: lambda o: o.slug,
    Challenge: lambda o: o.slug,
    Keyword: lambda o: o.name,
    SpecialAbility: lambda o: [o.profile.slug, o.name],
}


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
        ("schedule_runs", ScheduleRun, ScheduleRun.objects.filter(season__in=seasons)),
        ("byes", Bye, Bye.objects.filter(season__in=seasons)),
        ("rounds", Round, Round.objects.filter(season__in=seasons)),
        ("bracket_slots", BracketSlot, BracketSlot.objects.filter(season__in=seasons)),
        ("newsletters", Newsletter, Newsletter.objects.filter(league=league)),
    ]


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


def league_export(league: League) -> dict:
    """The league as a document (see the module's docstring)."""
    sections = _sections(league)
    exported = {model for _, model, _ in sections}
    refs: dict[type[models.Model], dict[int, int]] = {}
    users: set[str] = set()
    usernames = _Usernames()
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    for name, model, queryset in sections:
        related = [f.name for f in _fields(model) if f.is_relation and f.remote_field.model in CATALOG]
        rows = list(queryset.order_by("pk").select_related(*related).prefetch_related(*(f.name for f in _m2m(model))))
        refs[model] = {obj.pk: i for i, obj in enumerate(rows, start=1)}
        table = []
        for obj in rows:
            row: dict[str, Any] = {}
            for field in _fields(model):
                raw = getattr(obj, field.attname)
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
                elif target in exported and raw in refs.get(target, {}):
                    row[field.name] = refs[target][raw]
                elif field.null:
                    row[field.name] = None  # points outside the league (a team's other league)
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


# --- import -----------------------------------------------------------------------------------------


@contextlib.contextmanager
def _stored_timestamps() -> Iterator[None]:
    """Keep the document's creation times: auto_now(_add) fields would stamp the import's time."""
    changed = []
    for _, model, _ in _sections(League(pk=0)):
        for field in _fields(model):
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                changed.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, now, now_add in changed:
            field.auto_now, field.auto_now_add = now, now_add


def _catalog_lookup() -> dict[type[models.Model], dict]:
    return {
        model: {
            (tuple(key(o)) if isinstance(key(o), list) else key(o)): o.pk
            for o in model.objects.select_related(*(["profile"] if model is SpecialAbility else []))
        }
        for model, key in CATALOG.items()
    }


def league_import(document: dict) -> League:
    """Create the league of ``document`` in an empty database (no league, team or match yet)."""
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ValidationError(f"Not a {FORMAT} document of version {VERSION}.")
    problem = unstorable(document)
    if problem:
        raise ValidationError(f"The document holds {problem}, which no field may hold.")
    if League.objects.exists() or Team.objects.exists() or Match.objects.exists():
        raise ValidationError("Import into an empty database: this one already holds leagues, teams or matches.")
    catalog = _catalog_lookup()
    with transaction.atomic(), _stored_timestamps():
        users = {}
        for username in document["users"]:
            user = User(username=username)
            user.set_unusable_password()
            user.save()
            users[username] = user.pk
        pks: dict[type[models.Model], dict[int, int]] = {}
        for name, model, _ in _sections(League(pk=0)):
            objects, m2m_values = [], []
            # References to rows of the same section (a replay's ``replay_of``: the voided match),
            # set once the section's rows exist: (the row's place, the field, the place pointed at).
            later: list[tuple[int, models.Field, int]] = []
            for place, row in enumerate(document.get(name, []), start=1):
                values = {}
                for field in _fields(model):
                    if field.name not in row and field.has_default():
                        # a column added after the document was made (a league's and a team's game,
                        # issue 17): its default, as the migration that added it gave existing rows
                        values[field.attname] = field.get_default()
                        continue
                    value = row.get(field.name)
                    if field.is_relation and value is not None:
                        target = field.remote_field.model
                        if target is User:
                            value = users[value]
                        elif target in CATALOG:
                            value = catalog[target][tuple(value) if isinstance(value, list) else value]
                        elif target is model and field.null:
                            later.append((place, field, value))
                            value = None
                        else:
                            value = pks[target][value]
                    values[field.attname] = value
                objects.append(model(**values))
                m2m_values.append({f.name: row.get(f.name, []) for f in _m2m(model)})
            created = model.objects.bulk_create(objects)
            pks[model] = {i: obj.pk for i, obj in enumerate(created, start=1)}
            for place, field, points_at in later:
                setattr(created[place - 1], field.attname, pks[model][points_at])
            if later:
                model.objects.bulk_update(
                    [created[place - 1] for place, _, _ in later], sorted({f.name for _, f, _ in later})
                )
            for obj, m2m in zip(created, m2m_values):
                for field_name, keys in m2m.items():
                    target = model._meta.get_field(field_name).remote_field.model
                    getattr(obj, field_name).set(
                        [catalog[target][tuple(k) if isinstance(k, list) else k] for k in keys]
                    )
    return League.objects.get(pk=pks[League][1])
