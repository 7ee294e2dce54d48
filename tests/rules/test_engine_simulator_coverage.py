"""Every keyword, special ability and status effect of the rules catalog has an effect in the simulator
or a documented reason why not (docs/simulation.md, the three tables "Keyword abilities", "Special
abilities", "Status effects").

A row's status is one of:

* ``modelled exactly`` / ``approximated``: the engine (``rules/engine``) names the entry in its code
  (a string literal or a ``KW``/``AB`` constant that is used, not only defined) and an engine test in
  ``tests/rules`` names it too (the test that sets up the situation and checks the effect);
* ``outside the match``: the rule acts in the league sequence, not in a game (the row says where);
* ``out of reach``: the rule depends on something the simulator cannot represent; the row gives the
  reason (and docs/rulings.md or the table says what stands in for it).

Any other status, an empty reason, or an entry without a row fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.rules.simulator_rosters import CATALOG, PROFILES, RONIN

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "simulation.md").read_text(encoding="utf-8")
IMPLEMENTED = ("modelled exactly", "approximated")
REASONED = ("outside the match", "out of reach")

KEYWORDS = [k["name"] for k in CATALOG["keywords"]]
ABILITIES = list(dict.fromkeys(a["name"] for p in [*PROFILES.values(), *RONIN.values()] for a in p["abilities"]))
STATUS_EFFECTS = [s["name"] for s in CATALOG["status_effects"]]


def _names_used(paths) -> set[str]:
    """String literals in ``paths`` plus the values of the ``KW``/``AB`` constants they use (a
    constant's definition alone does not count) and of the ``MASTERIES`` keys when it is used."""
    from rules.engine.keywords import AB, KW, MASTERIES

    constants = {
        **{k: v for k, v in vars(KW).items() if k.isupper()},
        **{k: v for k, v in vars(AB).items() if k.isupper()},
    }
    used: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = {
            id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name in ("KW", "AB") for n in ast.walk(c)
        }
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.add(node.value)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("KW", "AB"):
                if node.attr in constants:
                    used.add(constants[node.attr])
            elif isinstance(node, ast.Name) and node.id == "MASTERIES":
                used.update(MASTERIES)
    return used


ENGINE_USES = _names_used(sorted((ROOT / "rules" / "engine").rglob("*.py")))
TESTS_USE = _names_used(
    p for p in sorted((ROOT / "tests" / "rules").glob("test_engine_*.py")) if p.name != Path(__file__).name
)


def _row(table: str, name: str) -> list[str]:
    """The cells of ``name``'s row in the table under the heading ``table``."""
    section = DOC.split(f"## {table}", 1)
    assert len(section) == 2, f"docs/simulation.md has no section '{table}'"
    body = section[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith(f"| {name} |")]
    assert len(rows) == 1, f"{name}: {len(rows)} rows in '{table}' (one expected)"
    return [c.strip() for c in rows[0].strip().strip("|").split("|")]


ENTRIES = (
    [("Keyword abilities", n) for n in KEYWORDS]
    + [("Special abilities", n) for n in ABILITIES]
    + [("Status effects", n) for n in STATUS_EFFECTS]
)


def test_catalog_sizes():
    assert (len(KEYWORDS), len(ABILITIES), len(STATUS_EFFECTS)) == (50, 59, 9)


@pytest.mark.parametrize(("table", "name"), ENTRIES, ids=[n for _, n in ENTRIES])
def test_entry_has_an_effect_or_a_reason(table, name):
    cells = _row(table, name)
    status, how = cells[-2], cells[-1]
    assert status in IMPLEMENTED + REASONED, f"{name}: status '{status}'"
    assert len(how) >= 15, f"{name}: no explanation"
    if status in IMPLEMENTED:
        assert name in ENGINE_USES, f"{name} is '{status}' but rules/engine never names it"
        assert name in TESTS_USE, f"{name} is '{status}' but no engine test in tests/rules names it"


def test_the_checks_can_fail():
    """The source scan sees a used constant, ignores a definition alone, and the tables are read."""
    assert "Healing" not in _names_used([ROOT / "rules" / "engine" / "keywords.py"]) or "Healing" in ENGINE_USES
    assert "Close Combat Master" in ENGINE_USES
    assert "No Such Keyword" not in ENGINE_USES
    with pytest.raises(AssertionError):
        _row("Keyword abilities", "No Such Keyword")
