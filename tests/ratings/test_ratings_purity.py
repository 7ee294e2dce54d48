"""ratings/ is pure Python, not a Django app: glicko2.py uses the standard library only, and the
package imports nothing but the standard library and openskill (the multi-player model)."""

from pathlib import Path

import pytest

from tests.purity import SERVICES, assert_imports_without, foreign_imports

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "ratings").glob("*.py"))
ALLOWED = {"glicko2.py": set(), "multiplayer.py": {"openskill"}, "history.py": {"ratings"}, "__init__.py": set()}


def test_modules_exist_and_are_listed():
    assert {p.name for p in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_only_allowed_imports(path):
    bad = foreign_imports(path, ALLOWED[path.name])
    assert not bad, "imports not allowed in ratings/: " + ", ".join(bad)


def test_ratings_import_without_django():
    assert_imports_without(
        ["ratings.glicko2", "ratings.multiplayer", "ratings.history"], forbidden=(*SERVICES, "league"), cwd=ROOT
    )
