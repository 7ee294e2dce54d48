"""The check behind the purity tests of the pure packages (rules/engine, games, ratings): which
top-level modules a source file imports, and which of them are not allowed."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Collection, Iterable
from pathlib import Path

SERVICES = ("django", "celery", "psycopg")


def imported_roots(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import in ``path``, dynamic ones included."""
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


def foreign_imports(path: Path, allowed: Collection[str] = (), *, label: str | None = None) -> list[str]:
    """``label:line: module`` for each import of ``path`` outside the standard library and
    ``allowed`` (Django is never allowed)."""
    return [
        f"{label or path.name}:{line}: {root}"
        for line, root in imported_roots(path)
        if (root not in sys.stdlib_module_names and root not in allowed) or root == "django"
    ]


def assert_imports_without(
    imports: Iterable[str], *, forbidden: Collection[str] = SERVICES, cwd: Path | str, prelude: str = ""
) -> None:
    """Import ``imports`` in a fresh interpreter (after ``prelude``) and fail if that loaded any
    module of the ``forbidden`` packages."""
    code = f"""
import sys
{prelude}
{chr(10).join(f"import {name}" for name in imports)}
bad = sorted(m for m in sys.modules if m.split(".")[0] in {tuple(forbidden)!r})
assert not bad, bad
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(cwd))
