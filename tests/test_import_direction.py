"""Dependencies point one way (docs/architecture.md, "Dependencies"):

    rules <- teams <- matches <- league <- newsletters <- notifications, stats <- api
                                                    (common, outbox, games, ratings beneath all)

Every module of the project's packages is parsed with ``ast`` (no import is run), and every import
in it, at the top, inside a function, under ``if TYPE_CHECKING:``, relative or absolute, is checked:
a package may import itself and the packages beneath it, never one above it or beside it. So a lazy
``from league import services`` inside a function of ``matches`` fails here as surely as one at the
top of the module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Each package's layer: a package may import those of a lower layer (and itself), nothing else.
LAYERS = {
    "common": 0,
    "outbox": 0,
    "games": 0,
    "ratings": 0,
    "rules": 1,
    "teams": 2,
    "matches": 3,
    "league": 4,
    "newsletters": 5,
    "notifications": 6,
    "stats": 6,
    "api": 7,
}


def _modules(package: str):
    for path in sorted((ROOT / package).rglob("*.py")):
        if "migrations" in path.relative_to(ROOT).parts:
            continue  # generated; their dependencies are Django's (string model references)
        yield path


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_packages(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import in the file, wherever it stands."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = _module_name(path).split(".")
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return found


def violations(package: str) -> list[str]:
    problems = []
    for path in _modules(package):
        for line, target in imported_packages(path):
            top = target.split(".")[0]
            if top not in LAYERS or top == package:
                continue  # the standard library, Django, other libraries; or itself
            if LAYERS[top] >= LAYERS[package]:
                problems.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({package} may not import {top})")
    return problems


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_imports_point_down(package):
    assert violations(package) == []


def test_the_check_sees_lazy_relative_and_type_checking_imports(tmp_path, monkeypatch):
    """The checker itself: an upward import is found wherever it hides."""
    pkg = tmp_path / "teams"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "lazy.py").write_text("def f():\n    from league import services\n    return services\n")
    (pkg / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from matches.models import Match\n"
    )
    (pkg / "plain.py").write_text("import newsletters.tasks\nfrom rules.engine import league\nfrom . import lazy\n")
    (pkg / "fine.py").write_text("from common import text\nfrom rules.models import Clan\nimport django\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    found = violations("teams")
    assert [p.split(" imports ")[1].split(" (")[0] for p in found] == [
        "league",
        "newsletters.tasks",
        "matches.models",
    ]
    assert all("(teams may not import" in p for p in found)
