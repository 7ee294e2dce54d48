"""games/ is pure Python for now: standard library only, no Django (as rules/engine)."""

from pathlib import Path

import pytest

from tests.purity import SERVICES, assert_imports_without, foreign_imports

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "games").rglob("*.py"))


def test_the_packages_exist():
    names = {str(p.relative_to(ROOT)) for p in MODULES}
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
        ["games.ninjutsu.engine", "games.kage_masters.engine", "games.tables"],
        forbidden=(*SERVICES, "league"),
        cwd=ROOT,
    )
