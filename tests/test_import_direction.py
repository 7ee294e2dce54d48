"""Dependencies point one way (docs/architecture.md, "Dependencies"):

    rules <- teams <- matches <- league <- newsletters <- notifications, stats <- api <- the games' Django sides
                                                    (common, outbox, games' pure parts, ratings beneath all)

The ``games`` package has two layers (issue 28): its pure parts (``games/base.py``, ``protocol``,
``registry``, ``tables``, each game's ``GAME`` and ``engine/``) lie beneath everything and import no
app; each game's Django side (``games/<key>/site.py`` and what it is made of, ``games/players/``)
lies above every core app: it may import them, and none of them may import it (the core reaches a
game only through ``games.registry``).

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

#: The games' Django sides: above every core app (tests/games/test_protocol_boundary.py keeps the
#: core from naming them otherwise).
GAME_SIDES_LAYER = 8
GAME_SIDE_MODULES = ("games.players", "games.allstars.site", "games.ninjutsu.site", "games.kage_masters.site")
#: The modules of a game's package that are its Django side (``games/<key>/<name>.py``): its site
#: and what the site is made of (its demo league, seeded by ``manage.py seed_demo``; its rules pages;
#: its result form, records, statistics, newsletter report and API result document).
GAME_SIDE_NAMES = ("site", "demo", "views", "forms", "results", "statistics", "newsletter", "api", "simulation")


def is_game_side(module: str) -> bool:
    """A module of a game's Django side (a ``site``, ``demo`` or ``views`` module of a game's package, or
    games.players)."""
    parts = module.split(".")
    return any(module == m or module.startswith(m + ".") for m in GAME_SIDE_MODULES) or (
        len(parts) >= 3 and parts[0] == "games" and parts[2] in GAME_SIDE_NAMES
    )


def layer_of(module: str) -> int | None:
    """The layer of a project module (None: the standard library, Django, other libraries)."""
    top = module.split(".")[0]
    if top not in LAYERS:
        return None
    if top == "games" and is_game_side(module):
        return GAME_SIDES_LAYER
    return LAYERS[top]


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
            # ``from games.ninjutsu import site``: the name imported is the module that counts.
            sides = [f"{target}.{a.name}" for a in node.names if is_game_side(f"{target}.{a.name}")]
            if sides and not is_game_side(target):
                found.extend((node.lineno, side) for side in sides)
            else:
                found.append((node.lineno, target))
    return found


def violations(package: str) -> list[str]:
    problems = []
    for path in _modules(package):
        here = layer_of(_module_name(path))
        side = here == GAME_SIDES_LAYER
        for line, target in imported_packages(path):
            top = target.split(".")[0]
            there = layer_of(target)
            if there is None:
                continue  # the standard library, Django, other libraries
            if top == package and (side or there != GAME_SIDES_LAYER):
                continue  # itself (a pure part of games importing a Django side is not "itself")
            if there >= here and not (side and there == GAME_SIDES_LAYER):
                what = f"{top}'s Django side" if there == GAME_SIDES_LAYER else top
                problems.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({package} may not import {what})")
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


def test_a_core_app_importing_a_games_django_side_is_found(tmp_path, monkeypatch):
    """The games' two layers: a core app may import a game's pure parts, not its Django side; the
    pure parts import no app; the Django side imports the core apps."""
    for pkg in ("matches", "games", "games/players", "games/ninjutsu"):
        (tmp_path / pkg).mkdir(parents=True, exist_ok=True)
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "matches" / "bad.py").write_text(
        "from games.ninjutsu import site\nfrom games.players import results\nfrom games import registry\n"
        "from games.ninjutsu.engine import Card\n"
    )
    (tmp_path / "games" / "pure.py").write_text("from matches.models import Match\nfrom games import players\n")
    (tmp_path / "games" / "players" / "side.py").write_text(
        "from api import serializers\nfrom games.ninjutsu import engine\nfrom games.ninjutsu import site\n"
    )
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    assert [p.split(" imports ")[1] for p in violations("matches")] == [
        "games.ninjutsu.site (matches may not import games's Django side)",
        "games.players (matches may not import games's Django side)",
    ]
    assert [p.split(" imports ")[1] for p in violations("games")] == [
        "matches.models (games may not import matches)",
        "games.players (games may not import games's Django side)",
    ]
