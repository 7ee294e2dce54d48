"""Rosters for the simulator's tests, built from the catalog (rules/data/catalog.json)."""

from __future__ import annotations

import json
from pathlib import Path

from rules.engine.simulator import SimNinja, SimTeam

CATALOG = json.loads(
    (Path(__file__).resolve().parents[2] / "rules" / "data" / "catalog.json").read_text(encoding="utf-8")
)
PROFILES = {p["slug"]: p for c in CATALOG["clans"] for p in c["profiles"]}
RONIN = {r["slug"]: r for r in CATALOG["ronin"]}


def sim_team(team_id: int, picks, *, name: str | None = None, extra=()) -> SimTeam:
    """picks: (profile or ronin slug, count, chosen ability or None, advancements for
    ``SimNinja.from_profile``); ninja ids ``team_id * 100 + n``, names "<profile> <team>.<n>";
    ``extra``: more SimNinja at the end."""
    ninjas, n = [], 0
    for slug, count, ability, changes in picks:
        entry = PROFILES.get(slug) or RONIN[slug]
        for _ in range(count):
            n += 1
            ninjas.append(
                SimNinja.from_profile(
                    entry,
                    ninja_id=team_id * 100 + n,
                    name=f"{entry['name']} {team_id}.{n}",
                    abilities=[ability] if ability else None,
                    **changes,
                )
            )
    ninjas.extend(extra)
    return SimTeam(team_id, tuple(ninjas), name or f"team {team_id}")
