"""rules/engine must stay pure: standard library only, no Django."""

from pathlib import Path

import pytest

from tests.purity import assert_imports_without, foreign_imports

ENGINE = Path(__file__).resolve().parents[2] / "rules" / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))  # the engine's packages too (rules/engine/simulation/)


def test_engine_modules_exist():
    names = {p.name for p in MODULES}
    assert {"__init__.py", "dice.py", "affinity.py", "combat.py", "odds.py", "league.py"} <= names


def test_engine_subpackages_are_checked():
    simulation = {p.relative_to(ENGINE).as_posix() for p in MODULES if p.parent != ENGINE}
    assert {"simulation/__init__.py", "simulation/match.py", "simulation/challenges/brawl.py"} <= simulation


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(ENGINE).as_posix() for p in MODULES])
def test_only_stdlib_imports(path):
    bad = foreign_imports(path, label=str(path.relative_to(ENGINE)))
    assert not bad, "non-stdlib imports in rules/engine (use relative imports inside the engine): " + ", ".join(bad)


def test_engine_imports_without_django():
    # Load the engine under a stub ``rules`` package so the Django app's
    # rules/__init__.py is not involved, then check nothing pulled Django in.
    prelude = f"""
import types
pkg = types.ModuleType("rules")
pkg.__path__ = [{str(ENGINE.parent)!r}]
sys.modules["rules"] = pkg
"""
    modules = ["dice", "affinity", "combat", "odds", "league", "simulation", "simulator"]
    assert_imports_without([f"rules.engine.{m}" for m in modules], cwd="/", prelude=prelude)


def test_the_check_sees_foreign_and_dynamic_imports(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("import os\nimport django.db\nfrom numpy import array\n\ndef f():\n    __import__('x')\n")
    assert foreign_imports(path) == ["bad.py:2: django", "bad.py:3: numpy", "bad.py:6: <dynamic __import__>"]
