"""stats sits above league in the import direction: it may import league, matches, teams and rules,
and none of the apps below it may import stats."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BELOW = ("rules", "teams", "matches", "league", "outbox", "common", "ratings", "games")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_no_app_below_stats_imports_it():
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for package in BELOW
        for path in sorted((ROOT / package).rglob("*.py"))
        for module in sorted(imported_modules(path))
        if module == "stats" or module.startswith("stats.")
    ]
    assert not offenders, "\n".join(offenders)


def test_the_check_sees_an_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from stats.selectors import history\nimport stats.views\n", encoding="utf-8")
    assert imported_modules(sample) == {"stats.selectors", "stats.views"}
