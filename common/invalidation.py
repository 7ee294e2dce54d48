"""Cache invalidation by what a write changed (issue 29, part 1): the versions that the anonymous
page cache (common/pagecache.py) and the fragments (common/fragments.py) are checked against, and
how a committed write moves the versions of what it changed.

**Scopes.** A cached page or block depends on a few *scopes*, each with a version kept as one small
integer key in the cache (``moonlight:v:<scope>``):

* ``league:<id>`` what a league's page shows (its seasons, current table, entrants, newsletters);
* ``league-meta:<id>`` the league itself (name, master, house rules; its seasons' names and
  rules): shown on every page of the league, moved only by a write to the league or a season;
* ``season:<id>`` a season's table, fixtures, bracket and schedule runs;
* ``team:<id>`` a team's scroll, ledger, history, rating and name (owner's name too);
* ``match:<id>`` a match's page and pre-match sheet;
* ``site`` the coarse pages (home, lists, rules): moved by every committed write of site data;
* ``all`` every page and block depends on it: moved by a write nobody attributed (below).

A cache entry is stored *with the versions it was built under* (one key per page or block,
overwritten when rebuilt, expiring by its TTL) and is served only while every one of those
versions is unchanged: one Redis round trip (a server-side script reads the entry and compares
the versions). The number of version keys is bounded by the number of leagues, seasons, teams and
matches (two for a league, one for the others, two for the site), never by the number of writes.

**Writes.** The database execute-wrapper (``LeagueConfig.ready`` installs it on every
connection) notices each INSERT, UPDATE or DELETE on a table of the site's apps (or the users
table). The statement is attributed to what it changed:

* a model ``save()`` or ``delete()`` (the pre/post signals say which instance is being written:
  its *seeds*, e.g. ``("team", 7)`` for a ninja of team 7), or an m2m change;
* a service's ``with changing(...)`` block around bulk writes (``bulk_create``, ``update()``).

A statement that nothing attributes moves ``all``: every cached page goes stale, as before this
scheme, so a forgotten path costs speed, never a stale page. The seeds of a transaction are
gathered and, when it commits (``on_commit``; at once in autocommit), expanded (a team's seasons
and leagues, a match's sides, a user's teams) and bumped once each. A rolled-back transaction
drops them; a transaction that writes nothing (a no-op edit: the services save only changed
fields, and only when one changed) moves nothing.

A version missing from the cache (never set, expired after ``VERSION_SECONDS``, or evicted) is
started at ``time.time_ns()``, never at a number an old entry may hold, so a lost version cannot
make a stale entry valid again.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache as cache_per_model
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

VERSION_PREFIX = "moonlight:v:"
#: A version key lives a day from when it was started (a bump keeps its deadline), then starts
#: again: the keys of deleted objects go, and the entries stored under the old number go cold once.
VERSION_SECONDS = 24 * 3600
ALL = "all"
SITE = "site"

Seed = tuple[str, int]


def league(pk) -> str:
    return f"league:{pk}"


def league_meta(pk) -> str:
    return f"league-meta:{pk}"


def season(pk) -> str:
    return f"season:{pk}"


def team(pk) -> str:
    return f"team:{pk}"


def match(pk) -> str:
    return f"match:{pk}"


def version_key(scope: str) -> str:
    return VERSION_PREFIX + scope


# --- versions ------------------------------------------------------------------------------------


def _redis():
    """Django's RedisCache backend when the cache is one (for the one-round-trip script), else None."""
    backend = getattr(cache, "_cache", None)
    if backend is not None and hasattr(backend, "get_client") and hasattr(backend, "_serializer"):
        return backend
    return None


def versions(scopes: Iterable[str]) -> dict[str, int]:
    """The current version of each scope (``all`` always among them), starting missing ones."""
    wanted = sorted({ALL, *scopes})
    keys = {version_key(s): s for s in wanted}
    found = cache.get_many(list(keys))
    missing = [keys[k] for k in keys if k not in found]
    current = {keys[k]: int(v) for k, v in found.items()}
    if missing:
        current.update(_start(missing))
    return current


#: One round trip that starts missing versions: each key's version, a missing one set to ARGV[1]
#: (time_ns) for ARGV[2] seconds first (a script runs alone: no other client starts it between).
_START_SCRIPT = """
local out = {}
for i, key in ipairs(KEYS) do
  out[i] = redis.call('GET', key)
  if not out[i] then redis.call('SET', key, ARGV[1], 'EX', ARGV[2]); out[i] = ARGV[1] end
end
return out
"""


def _start(scopes: list[str]) -> dict[str, int]:
    """The versions of ``scopes``, each missing one started now: one round trip on Redis (after an
    eviction or a restart every block a page shows finds its versions missing), else one
    ``cache.add`` each."""
    start = time.time_ns()
    backend = _redis()
    if backend is not None:
        made = [cache.make_key(version_key(s)) for s in scopes]
        client = backend.get_client(made[0], write=True)
        current = client.eval(_START_SCRIPT, len(made), *made, start, VERSION_SECONDS)
        return {s: int(v) for s, v in zip(scopes, current, strict=True)}
    for s in scopes:
        cache.add(version_key(s), start, timeout=VERSION_SECONDS)
    found = cache.get_many([version_key(s) for s in scopes])
    return {s: int(found[version_key(s)]) for s in scopes if version_key(s) in found}


def version(scope: str) -> int:
    return versions([scope])[scope]


def bump(scopes: Iterable[str]) -> None:
    """Move the versions of ``scopes`` (``site`` with them). Never fails the caller: with the cache
    unreachable there is nothing to invalidate (and nothing is served from it)."""
    wanted = {SITE, *scopes}
    try:
        backend = _redis()
        if backend is not None:
            made = [cache.make_key(version_key(s)) for s in sorted(wanted)]
            client = backend.get_client(made[0], write=True)
            client.eval(_BUMP_SCRIPT, len(made), *made, time.time_ns(), VERSION_SECONDS)
            return
        for s in wanted:
            try:
                cache.incr(version_key(s))
            except ValueError:  # missing: whatever was stored under it is already stale
                cache.add(version_key(s), time.time_ns(), timeout=VERSION_SECONDS)
    except Exception:
        logger.warning("cache unreachable: could not bump %s", ", ".join(sorted(wanted)))


#: One round trip for a bump: each version moves by one, a missing one starts at ARGV[1] (time_ns)
#: for ARGV[2] seconds.
_BUMP_SCRIPT = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('INCR', key) else redis.call('SET', key, ARGV[1], 'EX', ARGV[2]) end
end
return 1
"""


# --- entries stored with their versions ----------------------------------------------------------

#: One Redis round trip: the versions asked for (KEYS), and the entry (ARGV[1]) if every version it
#: was stored under is still current. An entry is "<key> <version> ...\n" then the serialised value.
_LOOKUP_SCRIPT = """
local current = {}
for i, key in ipairs(KEYS) do current[i] = redis.call('GET', key) or false end
local entry = redis.call('GET', ARGV[1])
if entry then
  local nl = string.find(entry, "\\n", 1, true)
  if nl then
    local fresh = true
    for key, v in string.gmatch(string.sub(entry, 1, nl - 1), "(%S+) (%S+)") do
      if redis.call('GET', key) ~= v then fresh = false break end
    end
    if fresh then return {1, string.sub(entry, nl + 1), current} end
  end
end
return {0, false, current}
"""


def lookup(key: str, scopes: Iterable[str] = ()) -> tuple[object | None, dict[str, int]]:
    """(the entry stored under ``key`` if still current else None, the current versions of
    ``scopes``, ``all`` among them, as far as known). Raises what the cache raises when down."""
    wanted = sorted({ALL, *scopes})
    backend = _redis()
    if backend is not None:
        made = [cache.make_key(version_key(s)) for s in wanted]
        hit, value, current = backend.get_client(made[0]).eval(_LOOKUP_SCRIPT, len(made), *made, cache.make_key(key))
        known = {s: int(v) for s, v in zip(wanted, current, strict=True) if v is not None}
        if len(known) < len(wanted):
            known.update(_start([s for s in wanted if s not in known]))
        return (backend._serializer.loads(value) if hit else None), known
    entry = cache.get(key)
    value = None
    if entry is not None:
        stored_under, stored_value = entry
        current = cache.get_many([version_key(s) for s in stored_under])
        if all(current.get(version_key(s)) == v for s, v in stored_under.items()):
            value = stored_value
    return value, versions(wanted)


def store(key: str, under: dict[str, int], value, seconds: int) -> None:
    """Keep ``value`` under ``key`` with the versions it was built under (read before it was built)."""
    backend = _redis()
    if backend is not None:
        header = " ".join(f"{cache.make_key(version_key(s))} {v}" for s, v in sorted(under.items()))
        made = cache.make_key(key)
        payload = header.encode() + b"\n" + backend._serializer.dumps(value)
        backend.get_client(made, write=True).set(made, payload, ex=seconds)
        return
    cache.set(key, (dict(under), value), timeout=seconds)


# --- noticing writes -----------------------------------------------------------------------------

#: Apps whose tables hold what the public pages show; the users table is added (names on pages).
#: Bookkeeping (sessions, django-axes, the outbox, django-celery-beat, the admin log) is not.
PAGE_DATA_APPS = ("rules", "teams", "matches", "league", "newsletters")
_WRITE = re.compile(
    r"\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO|TRUNCATE(?:\s+TABLE)?)\s+[\"`]?([\w.]+)",
    re.IGNORECASE,
)
#: User fields no page shows: a log-in's ``last_login``, a password change.
INVISIBLE_USER_FIELDS = frozenset({"last_login", "password"})


@lru_cache(maxsize=1)
def page_data_tables() -> frozenset[str]:
    from django.apps import apps
    from django.contrib.auth import get_user_model

    tables = {
        model._meta.db_table
        for label in PAGE_DATA_APPS
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
    }
    tables.add(get_user_model()._meta.db_table)
    return frozenset(tables)


def written_table(sql: str) -> str | None:
    """The site-data table a statement writes, or None."""
    found = _WRITE.match(sql)
    if found is None:
        return None
    table = found.group(1).rsplit(".", 1)[-1]
    return table if table in page_data_tables() else None


def writes_page_data(sql: str) -> bool:
    return written_table(sql) is not None


class _State(threading.local):
    def __init__(self):
        self.changing: list[set[Seed]] = []  # the open ``changing`` blocks
        self.saving: tuple[frozenset[str], set[Seed]] | None = None  # the save (or m2m change) under way
        self.deleting: list = [0, set(), set()]  # instances announced, their tables, their seeds


_state = _State()


@contextmanager
def changing(*seeds: Seed) -> Iterator[None]:
    """Attribute the writes inside to ``seeds`` (``("season", 3)``, ``("team", 7)``...): for a
    service's bulk writes, which no model signal announces."""
    _state.changing.append(set(seeds))
    try:
        yield
    finally:
        _state.changing.pop()


def _seeds_for(table: str, sql: str = "") -> set[Seed]:
    seeds: set[Seed] = set()
    attributed = False
    if _state.saving is not None and table in _state.saving[0]:
        seeds |= _state.saving[1]
        attributed = True
    if _state.deleting[0] and table in _state.deleting[1]:
        seeds |= _state.deleting[2]
        attributed = True
    for frame in _state.changing:
        seeds |= frame
        attributed = True
    if not attributed:
        logger.debug("a write to %s nobody attributed, every cached page goes stale: %.120s", table, sql)
        seeds.add((ALL, 0))
    return seeds


def caching() -> bool:
    """Whether any cache reads the versions (``PAGE_CACHE_SECONDS``, ``FRAGMENT_CACHE_SECONDS``): if
    neither, writes need no invalidation (and cost no query for it)."""
    return bool(getattr(settings, "PAGE_CACHE_SECONDS", 0) or getattr(settings, "FRAGMENT_CACHE_SECONDS", 0))


class _Pending:
    """The seeds a transaction's writes gathered; run once, when it commits."""

    def __init__(self):
        self.seeds: set[Seed] = set()

    def __call__(self):
        if self.seeds:
            bump(expand_or_all(self.seeds))


def expand_or_all(seeds: set[Seed]) -> set[str]:
    """:func:`expand`, or ``all`` when its queries fail (the database gone after the commit): a
    write must never leave a page cached stale."""
    try:
        return expand(seeds)
    except Exception:
        logger.exception("could not tell what a write changed: every cached page goes stale")
        return {ALL}


def noticed(connection, table: str, sql: str = "") -> None:
    seeds = _seeds_for(table, sql)
    if not seeds:  # attributed to nothing any page shows (a result draft, a log-in's last_login)
        return
    if not connection.in_atomic_block:
        bump(expand_or_all(seeds))
        return
    pending = next((entry[1] for entry in connection.run_on_commit if isinstance(entry[1], _Pending)), None)
    if pending is None:
        pending = _Pending()
        connection.on_commit(pending, robust=True)
    pending.seeds |= seeds


def notice_writes(execute, sql, params, many, context):
    """Database execute-wrapper: after a statement that wrote site data, note what it changed."""
    try:
        result = execute(sql, params, many, context)
    except Exception:
        # A save or delete that fails sends no post signal: forget it, so that no later write is
        # taken for it (its transaction is usually rolled back, and its seeds with it).
        _state.saving, _state.deleting = None, [0, set(), set()]
        raise
    if isinstance(sql, str) and caching():
        table = written_table(sql)
        if table is not None and not sets_only_invisible_columns(sql):
            noticed(context["connection"], table, sql)
    return result


def watch_writes(sender=None, connection=None, **kwargs) -> None:
    """``connection_created`` receiver: wrap the new connection's statements (once). First in the
    list, so a ``with connection.execute_wrapper(...)`` block around a reconnect pops its own."""
    if notice_writes not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, notice_writes)


# --- what an instance's write changes ------------------------------------------------------------

#: Foreign keys that say what a row belongs to, and the seed kind of the row they point at.
_OWNER_FIELDS = (
    ("team_id", "team"),
    ("home_id", "team"),
    ("away_id", "team"),
    ("winner_id", "team"),
    ("match_id", "match"),
    ("season_id", "season"),
    ("league_id", "league"),
    ("ninja_id", "ninja"),
    ("side_id", "side"),
    ("newsletter_id", "newsletter"),
    ("coach_id", "user"),
)


@cache_per_model
def _tables(model) -> frozenset[str]:
    return frozenset({model._meta.db_table, *(parent._meta.db_table for parent in model._meta.get_parent_list())})


#: Seeds of the instances of a model, where its foreign keys do not say it (registered by the apps
#: that know the model: ``LeagueConfig.ready``); a function of (instance, update_fields).
_SEEDERS: dict[type, object] = {}
#: Functions that widen a transaction's seeds, by kind, into scopes (``LeagueConfig.ready``).
_EXPANSIONS: list = []
#: Columns no page shows: an UPDATE that sets only these (a job's heartbeat) invalidates nothing.
INVISIBLE_COLUMNS = frozenset({"heartbeat_at"})
_SET_CLAUSE = re.compile(r"^\s*UPDATE\s+\S+\s+SET\s+(.*?)\s+WHERE\s", re.IGNORECASE | re.DOTALL)
_SET_COLUMN = re.compile(r'(?:^|,)\s*"(\w+)"\s*=')


def register_seeds(model, seeder) -> None:
    _SEEDERS[model] = seeder


def register_expansion(expansion) -> None:
    """``expansion(by_kind) -> set[str]``: adds ids to ``by_kind`` (a dict of sets, by seed kind) and
    returns scopes; run in the order registered, after the commit."""
    if expansion not in _EXPANSIONS:
        _EXPANSIONS.append(expansion)


def sets_only_invisible_columns(sql: str) -> bool:
    found = _SET_CLAUSE.match(sql)
    if found is None:
        return False
    columns = set(_SET_COLUMN.findall(found.group(1)))
    return bool(columns) and columns <= INVISIBLE_COLUMNS


def seeds_of(instance, update_fields=None) -> set[Seed]:
    """What a write of ``instance`` changes, from its own attributes (no query)."""
    from django.contrib.auth import get_user_model

    model = type(instance)
    seeder = _SEEDERS.get(model)
    if seeder is not None:
        return seeder(instance, update_fields)
    if model._meta.app_label == "rules":
        return {(ALL, 0)}  # the catalog is on every page
    if isinstance(instance, get_user_model()):
        if update_fields is not None and set(update_fields) <= INVISIBLE_USER_FIELDS:
            return set()
        return {("user", instance.pk)}
    seeds = set()
    deferred = instance.get_deferred_fields()  # never a query per row: a deferred column is not read
    for attname, kind in _OWNER_FIELDS:
        if attname in deferred:
            continue
        value = getattr(instance, attname, None)
        if value is not None and isinstance(value, int):
            seeds.add((kind, value))
    return seeds or {(ALL, 0)}


def _pre_save(sender, instance, raw=False, update_fields=None, **kwargs):
    if _tables(sender) & page_data_tables():
        _state.saving = (_tables(sender), seeds_of(instance, update_fields))


def _post_save(sender, **kwargs):
    _state.saving = None


def _pre_delete(sender, instance, **kwargs):
    if _tables(sender) & page_data_tables():
        count, tables, seeds = _state.deleting
        _state.deleting = [count + 1, tables | _tables(sender), seeds | seeds_of(instance)]


def _post_delete(sender, instance, **kwargs):
    if _tables(sender) & page_data_tables():
        count, tables, seeds = _state.deleting
        _state.deleting = [count - 1, tables, seeds] if count > 1 else [0, set(), set()]


def _m2m_changed(sender, instance, action, **kwargs):
    if action.startswith("pre_"):
        _state.saving = (frozenset({sender._meta.db_table}), seeds_of(instance))
    else:
        _state.saving = None


def seeds_of_rows(objs) -> set[Seed]:
    """What writing ``objs`` (rows of one table, by ``bulk_create``, ``bulk_update``, ``update_rows``) changes."""
    seeds: set[Seed] = set()
    for obj in objs:
        seeds |= seeds_of(obj)
        if (ALL, 0) in seeds:
            break
    return seeds


def _attributing_bulk(method):
    """``QuerySet.bulk_create``/``bulk_update`` with their rows' seeds: no signal announces them."""

    def bulk(self, objs, *args, **kwargs):
        objs = list(objs)
        if not objs or not _tables(self.model) & page_data_tables():
            return method(self, objs, *args, **kwargs)
        with changing(*seeds_of_rows(objs)):
            return method(self, objs, *args, **kwargs)

    bulk.__wrapped__ = method
    return bulk


def connect_signals() -> None:
    """The model signals that say what a ``save()``, ``delete()`` or m2m change writes, and the
    bulk writes that send none (``bulk_create``, ``bulk_update``: their rows say it)."""
    from django.db.models import QuerySet
    from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save

    for name in ("bulk_create", "bulk_update"):
        method = getattr(QuerySet, name)
        if not hasattr(method, "__wrapped__"):
            setattr(QuerySet, name, _attributing_bulk(method))

    pre_save.connect(_pre_save, dispatch_uid="common.invalidation.pre_save")
    post_save.connect(_post_save, dispatch_uid="common.invalidation.post_save")
    pre_delete.connect(_pre_delete, dispatch_uid="common.invalidation.pre_delete")
    post_delete.connect(_post_delete, dispatch_uid="common.invalidation.post_delete")
    m2m_changed.connect(_m2m_changed, dispatch_uid="common.invalidation.m2m_changed")


# --- from seeds to scopes, after the commit ------------------------------------------------------


def expand(seeds: Iterable[Seed]) -> set[str]:
    """The scopes to bump for what a transaction changed: the registered expansions (a team's
    seasons and leagues, a match's season and sides, a user's teams...) in a handful of indexed
    queries; ``all`` alone when something nobody attributed was written."""
    by_kind: dict[str, set[int]] = {}
    for kind, pk in seeds:
        if pk is not None:
            by_kind.setdefault(kind, set()).add(pk)
    if ALL in by_kind:
        return {ALL}
    scopes: set[str] = set()
    for expansion in _EXPANSIONS:
        scopes |= expansion(by_kind)
    for kind in ("league", "league-meta", "season", "team", "match"):
        scopes |= {f"{kind}:{pk}" for pk in by_kind.get(kind, ()) if pk is not None}
    return scopes
