"""A legal starting roster for each clan, spending close to the 100 koban a new team starts with:
(profile slug, count) pairs. The demo league, the test factories and the benchmarks recruit
these (through the services, which check them against the recruitment rules)."""

from __future__ import annotations

STARTING_ROSTERS: dict[str, list[tuple[str, int]]] = {
    "tora": [("tora-chunin", 1), ("tora-kaiken", 3), ("tora-byakko", 1), ("tora-yajiri", 1), ("tora-kunoichi", 2)],
    "yamazaru": [("yamazaru-chunin", 1), ("yamazaru-kaiken", 4), ("yamazaru-yajiri", 2), ("yamazaru-son-goku", 1)],
    "kitsune": [
        ("kitsune-chunin", 1),
        ("kitsune-kaiken", 3),
        ("kitsune-yajiri", 2),
        ("kitsune-kunoichi", 2),
        ("kitsune-tamamo-no-mae", 1),
    ],
    "ika": [("ika-chunin", 1), ("ika-kaiken", 4), ("ika-yajiri", 2), ("ika-kunoichi", 2), ("ika-madoushi", 1)],
    "tanchyo": [
        ("tanchyo-chunin", 1),
        ("tanchyo-yajiri", 4),
        ("tanchyo-kaiken", 1),
        ("tanchyo-karura", 1),
        ("tengu", 1),
        ("tanchyo-kunoichi", 1),
    ],
    "ijin": [("ijin-chunin", 1), ("ijin-kaiken", 2), ("ijin-kunoichi", 2), ("ijin-bomechan", 1), ("ijin-yajiri", 2)],
}
