"""ratings/ is pure Python, not a Django app: glicko2.py uses the standard library only, and the
package imports nothing but the standard library and openskill (the multi-player model)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "ratings").glob("*.py"))
ALLOWED = {"glicko2.py": set(), "multiplayer.py": {"openskill"}, "history.py": {"ratings"}, "__init__.py": set()}


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


def test_modules_exist_and_are_listed():
    assert {p.name for p in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_only_allowed_imports(path):
    allowed = ALLOWED[path.name]
    bad = [
        f"{path.name}:{line}: {root}"
        for line, root in imported_roots(path)
        if (root not in sys.stdlib_module_names and root not in allowed) or root == "django"
    ]
    assert not bad, "imports not allowed in ratings/: " + ", ".join(bad)


def test_ratings_import_without_django():
    code = """
import sys
import ratings.glicko2, ratings.multiplayer, ratings.history
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("django", "celery", "psycopg", "league"))
assert not bad, bad
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(ROOT))
