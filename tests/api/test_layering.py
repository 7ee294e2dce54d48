"""The API app is the top of the core's import direction: it may import any app; no app imports
it. Above it only the games' Django sides (``games/<key>/site.py``, ``games/players/``: issue 28,
tests/test_import_direction.py), which may give the API their result documents."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_direction import _module_name, is_game_side

ROOT = Path(__file__).resolve().parents[2]
APPS = ("rules", "teams", "matches", "league", "newsletters", "outbox", "common", "games", "ratings")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_no_app_imports_the_api():
    offenders = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if is_game_side(_module_name(path)):
                continue  # a game's Django side sits above the API
            bad = sorted(m for m in _imports(path) if m == "api" or m.startswith("api."))
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {', '.join(bad)}")
    assert not offenders, "only the api app (and tests) may import api:\n" + "\n".join(offenders)


def test_the_check_sees_an_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from api import views\nimport api.serializers\n")
    assert {"api", "api.serializers"} <= _imports(module)
