"""A league table in its game's columns (issue 28, part 3): the game says which columns its table has
(``Game.table_columns``, :class:`games.protocol.Column`), the core draws them.

The skeleton is ``league/includes/_table.html`` (the table, its head, the empty table): the game's
column headings are written into it where its marker stands, and the result is compiled once a set
of columns (a process keeps a handful: one or two a game). The rows (the position, the entrant, the
game's cells, the next fixture) are drawn here in Python, each cell as the template language would
draw it (escaped, not localised, the same filters), by a row drawer made once a set of columns: a
64-row table cost 9.4 ms of template rendering, the largest part of the season page's cold render
(about 40 % under a sampling profiler; 1.2 ms drawn here; issue 29, part 2).
``tests/league/test_table_rows.py`` checks the rows against the template language's.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import lru_cache

from django.template import Context, engines
from django.template.base import render_value_in_context
from django.template.defaultfilters import floatformat
from django.template.loader import get_template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from games.protocol import ROW_VALUES, Column
from league.templatetags.fast_urls import pk_url
from teams.models import StrengthRating

SKELETON = "league/includes/_table.html"
HEAD_MARK = "{# columns:head #}"


def _hidden(column: Column) -> str:
    return f" d-none d-{column.hide_below}-table-cell" if column.hide_below else ""


def _head(column: Column) -> str:
    align = "" if column.cell == "text" else "text-end"
    title = escape(column.title)
    if column.cell == "strength":
        title = 'Strength rating ({{ strength_name }}) from the {{ entrant|default:"team" }}\'s results'
    css = f"{align}{_hidden(column)}".strip()
    classes = f' class="{css}"' if css else ""
    return f'<th scope="col"{classes} title="{title}">{escape(column.heading)}</th>'


@lru_cache(maxsize=32)
def _compiled(source: str, columns: tuple[Column, ...]):
    if HEAD_MARK not in source:
        raise ValueError(f"{SKELETON} lost its column marker")
    return engines["django"].from_string(source.replace(HEAD_MARK, "".join(_head(c) for c in columns)))


# --- the rows, drawn as the template language draws them ---------------------------------------------

#: How ``{{ value }}`` draws a value in the table: escaped, not localised (``{% localize off %}``).
_PLAIN = Context(autoescape=True, use_l10n=False)


def _text(value) -> str:
    # The two kinds nearly every cell holds, as render_value_in_context draws them, at a tenth of
    # its cost: an int as it is (no localisation, no grouping), a plain string escaped.
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return html.escape(value)
    return render_value_in_context(value, _PLAIN)


def _field(obj, name: str):
    """``obj.name`` as a template reads it: a dict's key, else an attribute, else empty."""
    if isinstance(obj, dict):
        return obj.get(name, "")
    return getattr(obj, name, "")


def _strength(row) -> str:
    strength = _field(row, "strength")
    if not strength:
        return "—"
    places = 0 if strength.is_glicko else 1
    return f'<span title="± {floatformat(strength.spread, places)}">{floatformat(strength.rating, places)}</span>'


def _cell_drawer(column: Column) -> Callable[[object], str]:
    """A column's cell of a row: its value (a row's own, or one of its game's values) as a number,
    a short text (a dash when empty) or the strength rating (its system's precision, the spread on
    hover)."""
    hidden, bold = _hidden(column), " fw-bold" if column.strong else ""
    key = column.key
    if column.cell == "strength":
        opening = f'<td class="text-end{hidden}{bold}">'
        return lambda row: f"{opening}{_strength(row)}</td>"
    if key in ROW_VALUES:

        def value(row):
            return _field(row, key)
    else:

        def value(row):
            return _field(_field(row, "values"), key)

    if column.cell == "text":
        opening = f'<td class="small{hidden}{bold}">'
        return lambda row: f"{opening}{_text(value(row) or '—')}</td>"
    opening = f'<td class="text-end{hidden}{bold}">'
    return lambda row: f"{opening}{_text(value(row))}</td>"


def compact_badge(team) -> str:
    """A team's colours and motto as ``teams/includes/_team_badge.html`` draws them with
    ``compact=True`` (the table's rows): the template is the reference, and
    ``tests/league/test_table_rows.py`` checks that this draws the same."""
    colours = team.colours
    swatches = ""
    if colours:
        svgs = "".join(
            '<svg class="team-swatch" width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" '
            f'focusable="false"><rect x="0.5" y="0.5" width="13" height="13" rx="2" fill="{_text(c)}" '
            'stroke="#212529"/></svg>'
            for c in colours
        )
        names = _text(" and ".join(colours))
        swatches = (
            f'<span class="team-colours text-nowrap" data-testid="team-colours">{svgs}'
            f'<span class="visually-hidden"> colours {names}</span></span>'
        )
    motto = ""
    if team.motto:
        motto = (
            '<small class="text-muted fst-italic d-none d-lg-inline" data-testid="team-motto"> '
            f"\u201c{_text(team.motto)}\u201d</small>"
        )
    return f"\n{swatches}\n{motto}\n"


def _entrant(row) -> str:
    team = _field(row, "team")
    if _field(team, "pk"):
        return (
            f'<a href="{pk_url("teams:detail", team.pk)}">{_text(team.name)}</a>{compact_badge(team)} '
            f'<small class="text-muted d-none d-sm-inline">{_text(team.owner.username)}</small>'
        )
    return f'{_text(team)} <small class="text-muted d-none d-sm-inline">{_text(_field(row, "owner"))}</small>'


def _next_fixture(fixture, scrolls: bool) -> str:
    if not fixture:
        return '<td class="d-none d-md-table-cell small">—</td>'
    text = f"v {_text(fixture.opponents)}"
    if fixture.round_number:
        text += f" (R{_text(fixture.round_number)})"
    if scrolls:
        text += f' · <a href="{pk_url("matches:presheet", fixture.pk)}">pre-match sheet</a>'
    return f'<td class="d-none d-md-table-cell small">{text}</td>'


@lru_cache(maxsize=32)
def _row_drawer(columns: tuple[Column, ...]) -> Callable[..., str]:
    cells = [_cell_drawer(c) for c in columns]

    def draw(row, fixture, *, scrolls: bool, show_next: bool) -> str:
        own = "".join(cell(row) for cell in cells)
        after = f"\n  {_next_fixture(fixture, scrolls)}" if show_next else "\n  "
        return (
            f'\n<tr>\n  <td class="text-end">{_text(_field(row, "position"))}</td>\n'
            f'  <th scope="row" class="fw-normal">{_entrant(row)}</th>\n  {own}{after}\n</tr>\n'
        )

    return draw


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
    draw = _row_drawer(columns)
    body = "".join(draw(row, fixture, scrolls=scrolls, show_next=show_next) for row, fixture in rows)
    return template.render(
        {
            # every value in the rows is drawn escaped (_text), as the template language draws it
            "body": mark_safe(body),
            "entrant": entrant,
            "show_next": show_next,
            "testid": testid,
            "strength_name": strength_name(system),
            "span": len(columns) + 2 + bool(show_next),
        }
    )
