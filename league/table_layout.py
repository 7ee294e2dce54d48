"""A league table in its game's columns (issue 28, part 3): the game says which columns its table has
(``Game.table_columns``, :class:`games.protocol.Column`), the core draws them.

The skeleton is ``league/includes/_table.html`` (the position, the entrant, the next fixture); the
game's columns are written into it where its two markers stand, and the result is compiled once a
set of columns (a process keeps a handful: one or two a game), so a row costs what a hand-written
template's row costs: no loop over cells, no lookup of how a cell reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from django.template import engines
from django.template.loader import get_template
from django.utils.html import escape

from games.protocol import ROW_VALUES, Column
from teams.models import StrengthRating

SKELETON = "league/includes/_table.html"
HEAD_MARK, CELLS_MARK = "{# columns:head #}", "{# columns:cells #}"

_STRENGTH_CELL = (
    "{% if row.strength %}{% if row.strength.is_glicko %}"
    '<span title="± {{ row.strength.spread|floatformat:0 }}">{{ row.strength.rating|floatformat:0 }}</span>'
    '{% else %}<span title="± {{ row.strength.spread|floatformat:1 }}">{{ row.strength.rating|floatformat:1 }}</span>'
    "{% endif %}{% else %}—{% endif %}"
)


def _hidden(column: Column) -> str:
    return f" d-none d-{column.hide_below}-table-cell" if column.hide_below else ""


def _value(column: Column) -> str:
    """The template variable of a column's value: a row's own, or one of its game's values."""
    return f"row.{column.key}" if column.key in ROW_VALUES else f"row.values.{column.key}"


def _head(column: Column) -> str:
    align = "" if column.cell == "text" else "text-end"
    title = escape(column.title)
    if column.cell == "strength":
        title = 'Strength rating ({{ strength_name }}) from the {{ entrant|default:"team" }}\'s results'
    css = f"{align}{_hidden(column)}".strip()
    classes = f' class="{css}"' if css else ""
    return f'<th scope="col"{classes} title="{title}">{escape(column.heading)}</th>'


def _cell(column: Column) -> str:
    hidden, bold = _hidden(column), " fw-bold" if column.strong else ""
    if column.cell == "strength":
        return f'<td class="text-end{hidden}{bold}">{_STRENGTH_CELL}</td>'
    if column.cell == "text":
        return f'<td class="small{hidden}{bold}">{{{{ {_value(column)}|default:"—" }}}}</td>'
    return f'<td class="text-end{hidden}{bold}">{{{{ {_value(column)} }}}}</td>'


@lru_cache(maxsize=32)
def _compiled(source: str, columns: tuple[Column, ...]):
    if HEAD_MARK not in source or CELLS_MARK not in source:
        raise ValueError(f"{SKELETON} lost its column markers")
    text = source.replace(HEAD_MARK, "".join(_head(c) for c in columns)).replace(
        CELLS_MARK, "".join(_cell(c) for c in columns)
    )
    return engines["django"].from_string(text)


def strength_name(system: str) -> str:
    """The rating system's short name for a column's title ("Glicko-2", "Plackett–Luce")."""
    return str(StrengthRating.System(system).label).split(" (")[0] if system in StrengthRating.System.values else system


def render_table(
    columns: Sequence[Column],
    rows,
    *,
    entrant: str,
    system: str,
    scrolls: bool = False,
    show_next: bool = False,
    testid: str = "league-table",
) -> str:
    """The table's HTML: ``rows`` as (row, next fixture) pairs, a row a ``TableRow`` or an archived
    row (a dict); ``columns`` its game's for the season; ``testid``: the table's ``data-testid``
    (``final-table`` for a finished season's)."""
    columns = tuple(columns)
    template = _compiled(get_template(SKELETON).template.source, columns)
    return template.render(
        {
            "rows": rows,
            "entrant": entrant,
            "scrolls": scrolls,
            "show_next": show_next,
            "testid": testid,
            "strength_name": strength_name(system),
            "span": len(columns) + 2 + bool(show_next),
        }
    )
