"""games/'s pure parts are standard library only, no Django (as rules/engine): the description,
protocol, registry, tables and engines. Each game's Django side (``games/<key>/site.py``,
``games/players/``) and the start-up registration (``games/apps.py``, Django only) are not, and
sit above the core apps instead (tests/test_import_direction.py)."""

from pathlib import Path

import pytest

from tests.purity import SERVICES, assert_imports_without, foreign_imports
from tests.test_import_direction import is_game_side

ROOT = Path(__file__).resolve().parents[2]
ALL_MODULES = sorted((ROOT / "games").rglob("*.py"))


def _pure(path: Path) -> bool:
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    return module != "games.apps" and not is_game_side(module)


MODULES = [p for p in ALL_MODULES if _pure(p)]


def test_the_packages_exist():
    names = {str(p.relative_to(ROOT)) for p in MODULES}
    assert {
        "games/protocol.py",
        "games/registry.py",
        "games/base.py",
    } <= names
    assert {
        "games/__init__.py",
        "games/ninjutsu/__init__.py",
        "games/ninjutsu/engine/battle.py",
        "games/ninjutsu/engine/results.py",
        "games/kage_masters/engine/results.py",
        "games/tables.py",
    } <= names


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_only_stdlib_and_own_imports(path):
    bad = foreign_imports(path, {"games"})
    assert not bad, "non-stdlib imports in games/: " + ", ".join(bad)


def test_games_import_without_django():
    assert_imports_without(
        ["games.ninjutsu.engine", "games.kage_masters.engine", "games.tables", "games.registry", "games.protocol"],
        forbidden=(*SERVICES, "league"),
        cwd=ROOT,
    )
