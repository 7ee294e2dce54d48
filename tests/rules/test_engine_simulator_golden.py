"""The match simulator plays the same match, move for move, for the same seed: a golden fingerprint.

288 matches (every challenge; two, three and four teams; starting rosters, rosters at the allowance
maximum, short rosters with absent and Healing House models, every hero and ronin, veterans with
gained keywords and affinities; with and without underdog bonuses; other Geometry and FightPolicy
settings) are played, and each one's whole result (the record, every log line, every die with its
round and purpose, every Injury, rounds played, early end) is reduced to a SHA-256 digest. The digests
are stored in ``golden/simulator_matches.json`` with each match's points and rounds (to read a
difference at a glance).

It guards refactoring of ``rules/engine/simulation`` (the split of the old single-module simulator was
committed after this test, so the test proves the split changed nothing). A deliberate change of the
simulator's play changes digests: check that only the expected cases moved (``--diff`` prints them),
then regenerate the file and commit it with the change:

    .venv/bin/python tests/rules/test_engine_simulator_golden.py --diff
    .venv/bin/python tests/rules/test_engine_simulator_golden.py --write
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from rules.engine.keywords import FightPolicy  # noqa: E402
from rules.engine.league import underdog_bonuses  # noqa: E402
from rules.engine.simulator import CHALLENGES, Geometry, SimTeam, simulate_match  # noqa: E402
from tests.rules.simulator_rosters import CATALOG, sim_team  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "simulator_matches.json"

# A roster: (profile or ronin slug, count, chosen ability or None, advancements for SimNinja.from_profile)
ROSTERS: dict[str, list[tuple]] = {
    "tora": [
        ("tora-chunin", 1, "Tiger Strike", {}),
        ("tora-kaiken", 4, None, {}),
        ("tora-yajiri", 1, None, {}),
        ("tora-madoushi", 1, "Metal to Dust", {}),
        ("tora-kunoichi", 1, None, {}),
    ],
    "ika": [
        ("ika-chunin", 1, "Net", {}),
        ("ika-kaiken", 4, None, {}),
        ("ika-yajiri", 1, None, {}),
        ("ika-madoushi", 1, "Undertow", {}),
        ("ika-oni", 1, None, {}),
    ],
    "kitsune": [
        ("kitsune-chunin", 1, "Poisoned Weapons", {}),
        ("kitsune-kaiken", 3, None, {}),
        ("kitsune-yajiri", 2, None, {}),
        ("kitsune-oni", 1, None, {}),
        ("kitsune-madoushi", 1, "Healing Mist", {}),
    ],
    "ijin": [
        ("ijin-chunin", 1, "Tyrant", {}),
        ("ijin-kaiken", 3, None, {}),
        ("ijin-kunoichi", 2, None, {}),
        ("ijin-oni", 1, None, {}),
        ("ijin-madoushi", 1, "Blood Frenzy", {}),
    ],
    "yamazaru-veterans": [
        ("yamazaru-chunin", 1, "Yama Fist", dict(attack=1, extra_keywords=["Dauntless"])),
        ("yamazaru-kaiken", 1, None, dict(attack=1, extra_keywords=["Guard"])),
        ("yamazaru-kaiken", 1, None, dict(defense=1, extra_keywords=["Close Combat Master"])),
        ("yamazaru-kaiken", 2, None, dict(extra_keywords=["Focus"])),
        ("yamazaru-madoushi", 1, "Healing Herbs", dict(extra_keywords=["Tough"])),
        ("yamazaru-madoushi", 1, "Mountain Flute", {}),
        ("yamazaru-kunoichi", 1, None, dict(defense=1)),
        ("yamazaru-yajiri", 1, None, {}),
    ],
    "tanchyo": [
        ("tanchyo-chunin", 1, "Wind of Blades", {}),
        ("tanchyo-kaiken", 2, None, {}),
        ("tanchyo-yajiri", 2, None, {}),
        ("tanchyo-madoushi", 1, "Wind Walk", {}),
        ("tanchyo-karura", 1, None, {}),
        ("tanchyo-zenyo-ryu", 1, None, {}),
    ],
    "clan-heroes": [
        ("yamazaru-chunin", 1, "Back Flip", {}),
        ("ijin-chunin", 1, "Soul Capture", {}),
        ("tora-byakko", 1, None, {}),
        ("tora-ryu", 1, None, {}),
        ("yamazaru-son-goku", 1, None, {}),
        ("yamazaru-mizaru", 1, None, {}),
        ("kitsune-tamamo-no-mae", 1, None, {}),
    ],
    "clan-heroes-b": [
        ("tora-chunin", 1, "Pounce", {}),
        ("kitsune-uzumaki", 1, None, {}),
        ("ika-mizuchi", 1, None, {}),
        ("ika-akkorokamui", 1, None, {}),
        ("ijin-yobuko", 1, None, {}),
        ("ijin-bomechan", 1, None, {}),
    ],
    "ronin-a": [
        ("miyamoto-musashi", 1, None, {}),
        ("moon-princess", 1, None, {}),
        ("kappa", 1, None, {}),
        ("benkei", 1, None, {}),
        ("blind-swordsman", 1, None, {}),
        ("dark-kitsune", 1, None, {}),
        ("howl-yip", 1, None, {}),
    ],
    "ronin-b": [
        ("komuso", 1, None, {}),
        ("momotaro", 1, None, {}),
        ("shojo", 1, None, {}),
        ("tengu", 1, None, {}),
        ("yagyu-jubei", 1, None, {}),
        ("mochizuki", 1, None, {}),
        ("sun-empire-wandering-samurai", 1, None, {}),
    ],
    "ronin-c": [
        ("ijin-kaiken", 2, None, {}),
        ("onibaba", 1, None, {}),
        ("inu-clan-kaiken", 1, None, {}),
        ("ondori-clan-kaiken", 1, None, {}),
        ("jorogumo", 1, None, {}),
    ],
    "keywords": [
        ("ika-kaiken", 1, None, dict(attack=2, extra_keywords=["Sprint", "Blink", "Frenzy"])),
        ("ika-kaiken", 1, None, dict(attack=1, extra_keywords=["Ika's Tentacles", "Vigilance", "Sneaky"])),
        ("ika-kaiken", 1, None, dict(extra_keywords=["Regeneration", "Tough", "Fortune"], extra_affinities=["Air"])),
        ("ika-kaiken", 1, None, dict(attack=1, extra_keywords=["Blood Lust", "Sensei", "Gale of Blows"])),
        ("ika-kaiken", 1, None, dict(extra_keywords=["Combined Attack", "Guard", "Precision Strike"])),
        ("ika-kunoichi", 1, None, dict(attack=1, extra_keywords=["Dirty Fighter", "Kitsune's Bite", "Backstab"])),
        ("ika-yajiri", 1, None, dict(extra_keywords=["Ranged Master", "Accurate", "Tidal Wave"])),
        ("ika-oni", 1, None, dict(attack=1, defense=1, extra_keywords=["Emptiness", "Engulf", "Tora's Claws"])),
    ],
    # three models (below every challenge's ninjas allowed), one absent, one in the Healing House
    "short": [
        ("kitsune-kaiken", 2, None, {}),
        ("kitsune-chunin", 1, "Poisoned Weapons", {}),
        ("kitsune-kaiken", 1, None, dict(available=False)),
        ("kitsune-oni", 1, None, dict(starts_in_healing_house=True)),
    ],
    # nobody can play
    "absent": [("tora-kaiken", 2, None, dict(available=False))],
}


def _max_roster(clan_slug: str) -> list[tuple]:
    """Every profile of the clan up to its allowance maximum (the chunin with its first ability)."""
    clan = next(c for c in CATALOG["clans"] if c["slug"] == clan_slug)
    return [(p["slug"], p["allowance_max"], None, {}) for p in clan["profiles"] if p["allowance_max"]]


ROSTERS["tora-max"] = _max_roster("tora")
ROSTERS["ika-max"] = _max_roster("ika")
ROSTERS["ijin-max"] = _max_roster("ijin")
ROSTERS["tanchyo-max"] = _max_roster("tanchyo")


def team(team_id: int, roster: str) -> SimTeam:
    return sim_team(team_id, ROSTERS[roster], name=f"{roster} {team_id}")


# (label, rosters in team order, underdog ratings or None, extra keyword arguments of simulate_match)
MATCHUPS: list[tuple[str, tuple[str, ...], tuple[int, ...] | None, dict]] = [
    ("tora-ika", ("tora", "ika"), None, {}),
    ("kitsune-ijin", ("kitsune", "ijin"), None, {}),
    ("veterans-tanchyo", ("yamazaru-veterans", "tanchyo"), None, {}),
    ("heroes-ronin-a", ("clan-heroes", "ronin-a"), None, {}),
    ("ronin-b-keywords", ("ronin-b", "keywords"), None, {}),
    ("tora-max-ika-max", ("tora-max", "ika-max"), None, {}),
    ("ijin-max-tanchyo-max", ("ijin-max", "tanchyo-max"), None, {}),
    ("short-tora", ("short", "tora"), None, {}),
    ("underdog-veterans-kitsune", ("yamazaru-veterans", "kitsune"), (25, 12), {}),
    ("underdog-keywords-heroes", ("keywords", "clan-heroes-b"), (9, 30), {}),
    ("three-teams", ("ijin", "ronin-a", "ika"), None, {}),
    ("three-teams-underdog", ("tora", "keywords", "short"), (20, 24, 12), {}),
    ("four-teams", ("tanchyo", "kitsune", "clan-heroes", "ronin-b"), None, {}),
    (
        "geometry",
        ("tora", "ijin"),
        None,
        {"geometry": Geometry(crowd=0.6, near=0.5, back_on_approach=0.9, back_on_turn=0.6, lantern=0.5)},
    ),
    ("policy", ("ika", "ronin-a"), (10, 20), {"policy": FightPolicy(stun_value=0.6, use_tokens=False)}),
    ("four-teams-max", ("tora-max", "ijin-max", "ika-max", "keywords"), None, {}),
    ("heroes-b-ronin-c", ("clan-heroes-b", "ronin-c"), None, {}),
    ("absent-team", ("tora", "absent"), None, {}),
]
SEEDS = (1, 2)


def cases() -> Iterator[tuple[str, str, str, tuple, tuple | None, dict, int]]:
    for slug in sorted(CHALLENGES):
        for label, rosters, ratings, kwargs in MATCHUPS:
            for seed in SEEDS:
                # the seed mixes in the challenge and the matchup so no two cases share a dice stream
                mixed = f"{slug}|{label}|{seed}"
                yield f"{slug}/{label}/{seed}", slug, mixed, rosters, ratings, kwargs, seed


def fingerprint(result) -> dict:
    """Points, rounds and a digest of everything the match produced."""
    whole = {
        "record": dataclasses.asdict(result.record),
        "log": list(result.log),
        "dice": [[d.round, d.kind, d.model, list(d.faces)] for d in result.dice],
        "injuries": [[i.round, i.victim_id, i.by_id, i.points] for i in result.injuries],
        "rounds_played": result.rounds_played,
        "ended_early": result.ended_early,
        "winners": list(result.winner_team_ids),
    }
    blob = json.dumps(whole, sort_keys=True, separators=(",", ":")).encode()
    return {
        "points": [t.points for t in result.record.teams],
        "rounds": result.rounds_played,
        "log_lines": len(result.log),
        "dice": len(result.dice),
        "sha256": hashlib.sha256(blob).hexdigest(),
    }


def play(slug: str, mixed: str, rosters: tuple, ratings: tuple | None, kwargs: dict) -> dict:
    teams = [team(i + 1, r) for i, r in enumerate(rosters)]
    underdog = underdog_bonuses(list(ratings)) if ratings else None
    result = simulate_match(teams, CHALLENGES[slug], rng=random.Random(mixed), underdog=underdog, **kwargs)
    return fingerprint(result)


def compute(slug: str | None = None) -> dict[str, dict]:
    return {
        case_id: play(s, mixed, rosters, ratings, kwargs)
        for case_id, s, mixed, rosters, ratings, kwargs, _seed in cases()
        if slug is None or s == slug
    }


def load_golden() -> dict[str, dict]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_case():
    golden = load_golden()
    assert sorted(golden) == sorted(case[0] for case in cases())
    assert len(golden) >= 200
    assert {case_id.split("/")[0] for case_id in golden} == set(CHALLENGES)


@pytest.mark.parametrize("slug", sorted(CHALLENGES))
def test_same_seed_same_match_as_the_golden_file(slug):
    golden = load_golden()
    now = compute(slug)
    moved = {case_id: (golden.get(case_id), fp) for case_id, fp in now.items() if golden.get(case_id) != fp}
    assert not moved, f"{len(moved)} of {len(now)} {slug} matches differ from the golden file: " + "; ".join(
        f"{case_id}: was {was}, now {fp}" for case_id, (was, fp) in list(moved.items())[:5]
    )


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        new = compute()
        lines = [f"  {json.dumps(k)}: {json.dumps(new[k], sort_keys=True)}" for k in sorted(new)]
        GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")  # one case a line
        print(f"wrote {GOLDEN}")
    elif "--diff" in sys.argv:
        old, new = load_golden(), compute()
        changed = sorted(k for k in new.keys() | old.keys() if old.get(k) != new.get(k))
        for k in changed:
            print(f"{k}: {old.get(k)} -> {new.get(k)}")
        print(f"{len(changed)} of {len(new)} cases differ")
    else:
        print(__doc__)
