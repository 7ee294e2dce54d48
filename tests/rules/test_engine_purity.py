"""rules/engine must stay pure: standard library only, no Django."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "rules" / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))  # the engine's packages too (rules/engine/simulation/)


def _imported_roots(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import in ``path``."""
    roots = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.append((node.lineno, (node.module or "").split(".")[0]))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            roots.append((node.lineno, "<dynamic __import__>"))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            roots.append((node.lineno, "<dynamic import_module>"))
    return roots


def test_engine_modules_exist():
    names = {p.name for p in MODULES}
    assert {"__init__.py", "dice.py", "affinity.py", "combat.py", "odds.py", "league.py"} <= names


def test_engine_subpackages_are_checked():
    simulation = {p.relative_to(ENGINE).as_posix() for p in MODULES if p.parent != ENGINE}
    assert {"simulation/__init__.py", "simulation/match.py", "simulation/challenges/brawl.py"} <= simulation


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(ENGINE).as_posix() for p in MODULES])
def test_only_stdlib_imports(path):
    bad = [
        f"{path.relative_to(ENGINE)}:{line}: {root}"
        for line, root in _imported_roots(path)
        if root not in sys.stdlib_module_names or root == "django"
    ]
    assert not bad, "non-stdlib imports in rules/engine (use relative imports inside the engine): " + ", ".join(bad)


def test_engine_imports_without_django():
    # Load the engine under a stub ``rules`` package so the Django app's
    # rules/__init__.py is not involved, then check nothing pulled Django in.
    code = f"""
import sys, types
pkg = types.ModuleType("rules")
pkg.__path__ = [{str(ENGINE.parent)!r}]
sys.modules["rules"] = pkg
import rules.engine.dice, rules.engine.affinity, rules.engine.combat, rules.engine.odds, rules.engine.league
import rules.engine.simulation, rules.engine.simulator
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("django", "celery", "psycopg"))
assert not bad, bad
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd="/")
