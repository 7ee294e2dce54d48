"""The league table's rows are drawn in Python (league/table_layout.py; issue 29, part 2: the
template language cost most of a cold season page). They must read exactly as the template
language drew them: the reference here is the row template the table had, every cell as a
template variable, and the team's badge as ``teams/includes/_team_badge.html`` draws it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.template import engines
from django.template.loader import render_to_string

from games import registry
from games.protocol import ROW_VALUES, STRENGTH, Column, default_columns
from league.selectors import TableRow
from league.table_layout import compact_badge, render_table
from teams.models import StrengthRating, Team

#: The table's row as its template drew it (before the rows were drawn in Python), its game's
#: cells written in where ``CELLS`` stands.
ROW_TEMPLATE = """{% load fast_urls l10n %}{% localize off %}{% for row, next in rows %}
<tr>
  <td class="text-end">{{ row.position }}</td>
  <th scope="row" class="fw-normal">{% if row.team.pk %}<a href="{% pk_url "teams:detail" row.team.pk %}">{{ row.team.name }}</a>{% include "teams/includes/_team_badge.html" with team=row.team compact=True %} <small class="text-muted d-none d-sm-inline">{{ row.team.owner.username }}</small>{% else %}{{ row.team }} <small class="text-muted d-none d-sm-inline">{{ row.owner }}</small>{% endif %}</th>
  CELLS
  {% if show_next %}<td class="d-none d-md-table-cell small">{% if next %}v {{ next.opponents }}{% if next.round_number %} (R{{ next.round_number }}){% endif %}{% if scrolls %} · <a href="{% pk_url "matches:presheet" next.pk %}">pre-match sheet</a>{% endif %}{% else %}—{% endif %}</td>{% endif %}
</tr>
{% endfor %}{% endlocalize %}"""

STRENGTH_CELL = (
    "{% if row.strength %}{% if row.strength.is_glicko %}"
    '<span title="± {{ row.strength.spread|floatformat:0 }}">{{ row.strength.rating|floatformat:0 }}</span>'
    '{% else %}<span title="± {{ row.strength.spread|floatformat:1 }}">{{ row.strength.rating|floatformat:1 }}</span>'
    "{% endif %}{% else %}—{% endif %}"
)


def reference_cell(column: Column) -> str:
    hidden = f" d-none d-{column.hide_below}-table-cell" if column.hide_below else ""
    bold = " fw-bold" if column.strong else ""
    value = f"row.{column.key}" if column.key in ROW_VALUES else f"row.values.{column.key}"
    if column.cell == "strength":
        return f'<td class="text-end{hidden}{bold}">{STRENGTH_CELL}</td>'
    if column.cell == "text":
        return f'<td class="small{hidden}{bold}">{{{{ {value}|default:"—" }}}}</td>'
    return f'<td class="text-end{hidden}{bold}">{{{{ {value} }}}}</td>'


def reference_rows(columns, rows, *, scrolls: bool, show_next: bool) -> str:
    source = ROW_TEMPLATE.replace("CELLS", "".join(reference_cell(c) for c in columns))
    return engines["django"].from_string(source).render({"rows": rows, "scrolls": scrolls, "show_next": show_next})


def drawn_rows(html: str) -> str:
    return html.split("<tbody>\n", 1)[1].rsplit("\n</tbody>", 1)[0]


def team(pk: int, name: str, *, primary: str = "", secondary: str = "", motto: str = "", owner: str = "akane"):
    made = Team(pk=pk, name=name, colour_primary=primary, colour_secondary=secondary, motto=motto)
    made.owner = get_user_model()(pk=pk, username=owner)
    return made


def table_row(made: Team, position: int, **kwargs) -> TableRow:
    figures = {"played": 4, "won": 2, "drawn": 1, "lost": 1, "points": 7, "points_for": 9, "points_against": 5}
    return TableRow(team=made, rating=1000 + position, position=position, **{**figures, **kwargs})


# Every kind of team, cell and next fixture a table draws: colours (one, two, none), a motto, names
# that must be escaped, each rating system's precision and none, a game's own values (present,
# missing, falsy), a text cell empty, a float, a fixture with a round and one without.
ROWS = [
    (
        table_row(
            team(1, "Ink <Shadow> & Co", primary="#aa0000", secondary="#00ff00", motto='Dawn "5" <b>'),
            1,
            strength=StrengthRating(system=StrengthRating.System.GLICKO2, rating=1612.46, deviation=60.26),
            values={"throws": 11, "time_draws": 0},
            places=(("1st", 3), ("2nd", 1)),
        ),
        SimpleNamespace(opponents="Foxes & <Apes>", round_number=3, pk=91),
    ),
    (
        table_row(
            team(2, "Herons", primary="#123456", owner="<ren>"),
            2,
            strength=StrengthRating(system=StrengthRating.System.PLACKETT_LUCE, rating=24.55, deviation=2.04),
            values={"throws": 2.5},
        ),
        SimpleNamespace(opponents="Tigers", round_number=None, pk=92),
    ),
    (table_row(team(3, "Plain"), 3), None),
]
ARCHIVED = [
    (
        {"position": 1, "team": "Old <Foxes>", "owner": "ak&ne", "played": 4, "won": 3, "values": {"throws": 9}},
        None,
    ),
    ({"position": 2, "team": "Gone", "owner": "ren", "places_text": ""}, None),
]
OWN_COLUMNS = (
    Column("won", "W", "Won"),
    Column("throws", "Thr.", "Throws thrown", hide_below="sm"),
    Column("time_draws", "TD", "Drawn on time", hide_below="lg"),
    Column("places_text", "Places", "Places taken", cell="text"),
    Column("points_difference", "PD", "Points difference"),
    STRENGTH,
    Column("points", "Pts", "League points", strong=True),
)


@pytest.mark.parametrize("scrolls", [True, False])
@pytest.mark.parametrize("show_next", [True, False])
@pytest.mark.parametrize("columns", [OWN_COLUMNS, default_columns(None)], ids=["own", "default"])
def test_a_running_tables_rows_read_as_the_template_drew_them(columns, show_next, scrolls):
    html = render_table(columns, ROWS, entrant="team", system="glicko2", scrolls=scrolls, show_next=show_next)
    assert drawn_rows(html) == reference_rows(columns, ROWS, scrolls=scrolls, show_next=show_next)


@pytest.mark.parametrize("key", sorted(registry.GAMES))
def test_every_games_rows_read_as_the_template_drew_them(key):
    site = registry.game_of(key)
    running = site.columns(None)
    html = render_table(running, ROWS, entrant="player", system="glicko2", scrolls=True, show_next=True)
    assert drawn_rows(html) == reference_rows(running, ROWS, scrolls=True, show_next=True)
    final = site.columns(None, archived=True)
    html = render_table(final, ARCHIVED, entrant="player", system="glicko2", testid="final-table")
    assert drawn_rows(html) == reference_rows(final, ARCHIVED, scrolls=False, show_next=False)
    assert "Old &lt;Foxes&gt;" in html and "ak&amp;ne" in html


def test_the_rows_escape_what_the_players_wrote():
    html = render_table(OWN_COLUMNS, ROWS, entrant="team", system="glicko2", scrolls=True, show_next=True)
    assert "<Shadow>" not in html and "Ink &lt;Shadow&gt; &amp; Co" in html
    assert "<b>" not in html and "&lt;ren&gt;" in html and "Foxes &amp; &lt;Apes&gt;" in html
    assert '<span title="± 121">1612</span>' in html and '<span title="± 6.1">24.6</span>' in html


@pytest.mark.parametrize(
    "made",
    [
        team(1, "Two", primary="#aa0000", secondary="#00ff00", motto="Dawn <5> & “dusk”"),
        team(2, "One", secondary="#0000ff"),
        team(3, "Motto only", motto="Quiet"),
        team(4, "None"),
    ],
    ids=["colours and motto", "one colour", "motto", "nothing"],
)
def test_the_compact_badge_is_the_templates(made):
    assert compact_badge(made) == render_to_string("teams/includes/_team_badge.html", {"team": made, "compact": True})
