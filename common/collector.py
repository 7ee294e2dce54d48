"""Python's cyclic garbage collector, tuned for a long batch of allocation-heavy work.

The match simulator makes many short-lived objects a fight (contexts, snapshots, dice pools),
almost all freed by reference counting as soon as they go out of use. At CPython's default
threshold (a generation-0 collection every 700 net allocations) the cyclic collector still runs
every few fights, each time walking the young objects, and now and then the older generations with
every Django object the job has loaded: measured at about 8% of a persisted season
(docs/performance.md, "Fifth pass"). :func:`fewer_collections` raises the generation-0 threshold
for the length of a block and restores it after, so the collector runs about seventy times less
often; cycles are still collected, later.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Generation-0 threshold inside :func:`fewer_collections` (CPython's default is 700).
BATCH_THRESHOLD = 50_000


@contextmanager
def fewer_collections(threshold: int = BATCH_THRESHOLD) -> Iterator[None]:
    """Run the block with the collector's generation-0 threshold at ``threshold`` (never lowered);
    the thresholds as they were are restored when it ends, also on an error."""
    before = gc.get_threshold()
    gc.set_threshold(max(threshold, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
