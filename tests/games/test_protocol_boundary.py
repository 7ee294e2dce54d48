"""The key-and-flag test (issue 28, part 1): the core asks the protocol, it never names a game.

A core app's module (league, matches, teams, stats, newsletters, notifications, api, common,
outbox), a template outside a game's own folder (``templates/games/<key>/``) or the API fails here
when it names a game's key (a string ``"ninjutsu"``, ``registry.NINJUTSU``), imports a game's
package (``games.ninjutsu.engine``: a game's rules, house rules included, are its own) or reads one of
``GameInfo``'s feature flags (``has_team_scrolls``, ``has_challenges``, ``plays_at_tables``,
``is_one_on_one``, ``game_info.table``) instead of asking the league's ``games.protocol.Game``
(``game_of(league).team_scrolls``, ``league.game_site.tables``, ``game.result_line(...)``).

Python is read with ``ast`` (a docstring mentioning a key is prose, not a test of it); templates
line by line. The few places that must still name a game are listed in ``KNOWN`` with their
reason; a listed place that no longer names one fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games import registry

ROOT = Path(__file__).resolve().parents[2]

CORE_APPS = ("league", "matches", "teams", "stats", "newsletters", "notifications", "api", "common", "outbox")
#: GameInfo's feature flags, and the league table's layouts the core once knew (``table_kind``): the
#: protocol's ``Game.team_scrolls``/``challenges``/``tables`` and ``Game.table_columns`` say them.
FLAGS = ("has_team_scrolls", "has_challenges", "plays_at_tables", "is_one_on_one", "table_kind")
#: The registry's constants naming one game.
KEY_NAMES = ("ALLSTARS", "NINJUTSU", "KAGE_MASTERS")
GAME_KEYS = tuple(sorted(registry.GAMES))  # the site's own three (a test's game is registered later)

#: (path, what is named) -> why it may: the places that still name a game, each with its reason.
KNOWN: dict[tuple[str, str], str] = {
    (
        "league/settings.py",
        "'ninjutsu'",
    ): "configuration: the API schema's enum names (as MOONLIGHT_GAMES names modules)",
    ("league/settings.py", "'kage_masters'"): "configuration: the API schema's enum names",
    (
        "league/models.py",
        "def has_team_scrolls",
    ): "League.has_team_scrolls: the protocol's team_scrolls under the name the tests know",
    (
        "teams/models.py",
        ".ALLSTARS",
    ): "the database constraint 'a clan exactly for a team scroll', frozen in a migration",
}

_TEMPLATE_FLAG = re.compile(r"\b(" + "|".join(FLAGS) + r")\b|game_info\.table\b")


def python_findings(source: str) -> list[tuple[int, str]]:
    """(line, what) for every key or flag a Python module names, outside its docstrings."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if node.value in GAME_KEYS:
                found.append((node.lineno, repr(node.value)))
        elif isinstance(node, ast.Attribute):
            if node.attr in FLAGS or node.attr in KEY_NAMES:
                found.append((node.lineno, f".{node.attr}"))
            elif node.attr == "table" and isinstance(node.value, ast.Attribute) and node.value.attr == "game_info":
                found.append((node.lineno, ".game_info.table"))
        elif isinstance(node, ast.ImportFrom) and node.module == "games.registry":
            found.extend((node.lineno, f".{a.name}") for a in node.names if a.name in KEY_NAMES)
        elif isinstance(node, ast.ImportFrom) and node.module == "games":
            # a game's package itself (its engine, its house rules): the core reaches it by the registry
            found.extend((node.lineno, f"import games.{a.name}") for a in node.names if a.name in GAME_KEYS)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for module in modules:
                parts = module.split(".")
                if len(parts) > 1 and parts[0] == "games" and parts[1] in GAME_KEYS:
                    found.append((node.lineno, f"import {'.'.join(parts[:2])}"))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in FLAGS:
            found.append((node.lineno, f"def {node.name}"))
    return found


def template_findings(source: str) -> list[tuple[int, str]]:
    """(line, what) for every key (quoted) or flag a template names."""
    keys = re.compile(r"""(["'])(""" + "|".join(map(re.escape, GAME_KEYS)) + r")\1")
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        found.extend((number, m.group(0)) for m in _TEMPLATE_FLAG.finditer(line))
        found.extend((number, f"'{m.group(2)}'") for m in keys.finditer(line))
    return found


def core_findings(root: Path = ROOT) -> dict[tuple[str, str], list[int]]:
    """Every key or flag named in the core and its templates: {(path, what): [lines]}."""
    found: dict[tuple[str, str], list[int]] = {}
    for app in CORE_APPS:
        for path in sorted((root / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue  # generated: they record the model fields as they were
            for line, what in python_findings(path.read_text()):
                found.setdefault((str(path.relative_to(root)), what), []).append(line)
    templates = root / "templates"
    for path in sorted(templates.rglob("*.html")):
        if path.relative_to(templates).parts[0] == "games":
            continue  # a game's own templates (templates/games/<key>/) may name it
        for line, what in template_findings(path.read_text()):
            found.setdefault((str(path.relative_to(root)), what), []).append(line)
    return found


def test_no_core_module_or_template_names_a_game_or_a_flag():
    found = core_findings()
    unknown = {place: lines for place, lines in found.items() if place not in KNOWN}
    assert not unknown, "ask the protocol (games.protocol.Game) instead: " + "; ".join(
        f"{path}:{','.join(map(str, lines))} names {what}" for (path, what), lines in sorted(unknown.items())
    )


def test_every_known_exception_is_still_needed():
    found = core_findings()
    assert [place for place in KNOWN if place not in found] == []


# --- the check itself can fail ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("if league.has_team_scrolls:\n    pass\n", ".has_team_scrolls"),
        ("x = games.get(game).plays_at_tables\n", ".plays_at_tables"),
        ("x = info.is_one_on_one\n", ".is_one_on_one"),
        ("x = match.league.game_info.has_challenges\n", ".has_challenges"),
        ("if league.game == 'ninjutsu':\n    pass\n", "'ninjutsu'"),
        ("KEY = registry.KAGE_MASTERS\n", ".KAGE_MASTERS"),
        ("from games.registry import ALLSTARS\n", ".ALLSTARS"),
        ("places = season.league.game_info.table == 'places'\n", ".game_info.table"),
        ("from games.ninjutsu.engine.results import HOUSE_RULE_BOUNDS\n", "import games.ninjutsu"),
        ("import games.kage_masters.house_rules\n", "import games.kage_masters"),
        ("from games import allstars\n", "import games.allstars"),
    ],
)
def test_a_sample_line_naming_a_game_or_a_flag_is_found(line, named):
    assert [what for _, what in python_findings(line)] == [named]


def test_prose_and_the_protocol_are_not_findings():
    source = (
        '"""A module about "ninjutsu" records."""\n'
        "def f(league):\n"
        '    """Reads {"game": "kage_masters"} records."""\n'
        "    return game_of(league).team_scrolls and league.game_site.tables\n"
    )
    assert python_findings(source) == []


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('{% if league.game == "ninjutsu" %}x{% endif %}', "'ninjutsu'"),
        ("{% if league.has_team_scrolls %}x{% endif %}", "has_team_scrolls"),
        ("{% if season.league.game_info.table == 'places' %}x{% endif %}", "game_info.table"),
        ("{% if active == 'kage_masters' %}x{% endif %}", "'kage_masters'"),
    ],
)
def test_a_sample_template_line_is_found(line, named):
    assert [what for _, what in template_findings(line)] == [named]


def test_a_new_core_file_naming_a_game_fails_the_boundary(tmp_path):
    """The whole check on a tree: a core module and a template naming a game are found, a game's
    own template is not."""
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "views.py").write_text("def f(league):\n    return league.game == 'allstars'\n")
    (tmp_path / "templates" / "games" / "ninjutsu").mkdir(parents=True)
    (tmp_path / "templates" / "games" / "ninjutsu" / "_own.html").write_text('{% if x == "ninjutsu" %}{% endif %}')
    (tmp_path / "templates" / "league").mkdir()
    (tmp_path / "templates" / "league" / "page.html").write_text("{% if league.plays_at_tables %}{% endif %}")
    assert core_findings(tmp_path) == {
        ("stats/views.py", "'allstars'"): [2],
        ("templates/league/page.html", "plays_at_tables"): [1],
    }
