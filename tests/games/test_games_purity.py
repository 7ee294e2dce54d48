"""games/ is pure Python for now: standard library only, no Django (as rules/engine)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "games").rglob("*.py"))


def imported_roots(path: Path) -> list[tuple[int, str]]:
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


def test_the_packages_exist():
    names = {str(p.relative_to(ROOT)) for p in MODULES}
    assert {
        "games/__init__.py",
        "games/ninjutsu/__init__.py",
        "games/ninjutsu/engine/battle.py",
        "games/tables.py",
    } <= names


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_only_stdlib_and_own_imports(path):
    bad = [
        f"{path.name}:{line}: {root}"
        for line, root in imported_roots(path)
        if (root not in sys.stdlib_module_names and root != "games") or root == "django"
    ]
    assert not bad, "non-stdlib imports in games/: " + ", ".join(bad)


def test_games_import_without_django():
    code = """
import sys
import games.ninjutsu.engine, games.tables
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("django", "celery", "psycopg", "league"))
assert not bad, bad
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(ROOT))
