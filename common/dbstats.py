"""Count the rows a block of code fetches from the database, not only its queries.

A page can run a fixed number of queries and still fetch rows in proportion to the league's size
or history (a whole season of fixtures to show each team's next one). ``count_rows()`` wraps the
fetch methods of Django's cursor wrapper, which every ORM read goes through, so it sees every row
read in this thread (``list(qs)``, ``.get()``, ``values()``, prefetches, raw cursors). Used by the
tests that bound the pages' rows and by benchmarks/pages.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db.backends import utils

_local = threading.local()
_patched = False
_lock = threading.Lock()


@dataclass
class RowCount:
    rows: int = 0
    by_fetch: list[int] = field(default_factory=list)


def _install() -> None:
    global _patched
    with _lock:
        if _patched:
            return
        # The wrapper forwards fetch* to the driver's cursor through __getattr__; methods defined
        # on the class come first, and keep the wrapper's translation of database errors.
        cls = utils.CursorWrapper

        def fetchone(self):
            with self.db.wrap_database_errors:
                return self.cursor.fetchone()

        def fetchmany(self, *args, **kwargs):
            with self.db.wrap_database_errors:
                return self.cursor.fetchmany(*args, **kwargs)

        def fetchall(self):
            with self.db.wrap_database_errors:
                return self.cursor.fetchall()

        def _add(n: int) -> None:
            for counter in getattr(_local, "counters", ()):
                counter.rows += n
                counter.by_fetch.append(n)

        def counted_fetchone(self):
            row = fetchone(self)
            if row is not None:
                _add(1)
            return row

        def counted_fetchmany(self, *args, **kwargs):
            rows = fetchmany(self, *args, **kwargs)
            _add(len(rows))
            return rows

        def counted_fetchall(self):
            rows = fetchall(self)
            _add(len(rows))
            return rows

        cls.fetchone, cls.fetchmany, cls.fetchall = counted_fetchone, counted_fetchmany, counted_fetchall
        _patched = True


@contextmanager
def count_rows() -> Iterator[RowCount]:
    """``with count_rows() as counted: ...`` then ``counted.rows``: rows fetched in this thread."""
    _install()
    counter = RowCount()
    counters = getattr(_local, "counters", [])
    _local.counters = [*counters, counter]
    try:
        yield counter
    finally:
        _local.counters = counters
