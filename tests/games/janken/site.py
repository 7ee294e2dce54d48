"""Janken's Django side: its :class:`games.protocol.Game`. Everything the core asks of it is here
(result form and check, what a result writes and how it reads, points, statistics and their
template, the newsletter's report, the API's document); it imports the core, the core never imports
it (it is reached through ``games.registry`` only)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crispy_forms.helper import FormHelper
from django import forms
from django.core.exceptions import ValidationError
from django.template import Template
from rest_framework import serializers

from api.serializers import StrictInput
from games.protocol import STRENGTH, Column, Demo, Game, HouseRule, SimulatePanel
from league.readmodel import side_points
from matches.models import Match, MatchTeam
from tests.games import janken
from tests.games.janken import engine

KEY = janken.GAME.key
#: Throw rows the phone form offers (a best of three with a few drawn throws).
FORM_ROWS = 7
CHOICES = [("", "—"), *((t, t.capitalize()) for t in engine.THROWS)]


# --- its own house rule: how many won throws win a match (Game.house_rules) ------------------------

WINS_NEEDED = HouseRule(
    key="wins_needed",
    label="Throws to win a match",
    default=engine.WINS_NEEDED,
    low=engine.WINS_NEEDED_RANGE[0],
    high=engine.WINS_NEEDED_RANGE[1],
    help="A match is won by the first player to win this many throws (the book's best of three: 2).",
    sentence="a match is won by the first to win {value} throws",
)


def wins_needed(rules) -> int:
    """The season's throws to win a match (its house rule, else the book's 2)."""
    return GAME_SITE.rule(rules, WINS_NEEDED.key) if rules is not None else engine.WINS_NEEDED


# --- the record: {"game": "janken", "throws": [["rock", "scissors"], ...]} (slot 1's throw first) --


def result_of(record: Mapping[str, Any]) -> engine.JankenResult:
    if not isinstance(record, Mapping) or set(record) - {"game", "throws"} or record.get("game") != KEY:
        raise ValueError("not a Janken record")
    throws = record.get("throws")
    if isinstance(throws, str):  # the fixture list reads the key as text (result_line_keys)
        throws = json.loads(throws)
    if not isinstance(throws, list | tuple) or not all(isinstance(p, list | tuple) for p in throws):
        raise ValueError("no throws")
    return engine.JankenResult(tuple(tuple(p) for p in throws))


def problems(record: Mapping[str, Any], needed: int = engine.WINS_NEEDED) -> list[str]:
    try:
        result = result_of(record)
    except (ValueError, TypeError):
        return ["This is not a Janken result."]
    return engine.problems(result.throws, needed)


def validate_result(record, *, game=None, slots=None, rules=None) -> None:
    found = problems(record, wins_needed(rules))
    if slots is not None and sorted(slots) != [1, 2]:
        found.append("A Janken match is between the two sides of its match.")
    if found:
        raise ValidationError(found)


def side_results(record, rules=None) -> dict[int, tuple[str, int, int | None]]:
    """Won or lost; the points are the throws won (the table's "for")."""
    result = result_of(record)
    won = result.won
    return {slot: ("win" if result.winner == slot else "loss", won[slot - 1], None) for slot in (1, 2)}


def result_line(record, names: Sequence[str]) -> str:
    """ "Sayaka won 2–1" (the line a fixture list shows)."""
    try:
        result = result_of(record)
    except (ValueError, TypeError):  # json.JSONDecodeError is a ValueError
        return ""
    if result.winner is None:
        return ""
    won = result.won
    return f"{names[result.winner - 1]} won {max(won)}–{min(won)}"


def result_summary(record, names: Sequence[str], rules=None) -> list[tuple[str, str]]:
    result = result_of(record)
    lines = [("Winner", names[result.winner - 1] if result.winner else "Nobody yet")]
    for number, (first, second) in enumerate(result.throws, start=1):
        lines.append((f"Throw {number}", f"{names[0]} {first}, {names[1]} {second}"))
    return lines


class JankenResultForm(forms.Form):
    """The throws in order, one row a throw (a drawn throw is a row too): phone-sized selects."""

    def __init__(self, *args, names: Sequence[str] = ("Player 1", "Player 2"), needed: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.names = tuple(names)
        self.needed = needed
        self.intro = f"Enter each throw in order, drawn throws included, until one player has won {needed}."
        # room for every won throw of a match to ``needed`` and a few drawn ones
        self.rows = min(max(FORM_ROWS, 2 * needed + 3), engine.MAX_THROWS)
        for row in range(1, self.rows + 1):
            for slot, name in enumerate(self.names, start=1):
                self.fields[f"throw_{row}_{slot}"] = forms.ChoiceField(
                    label=f"Throw {row}: {name}", choices=CHOICES, required=False
                )
        self.helper = FormHelper()
        self.helper.form_tag = False

    def clean(self):
        data = super().clean()
        throws = []
        for row in range(1, self.rows + 1):
            pair = [data.get(f"throw_{row}_1") or "", data.get(f"throw_{row}_2") or ""]
            if any(pair) and not all(pair):
                raise forms.ValidationError(f"Throw {row}: give both players' throws.")
            if all(pair):
                throws.append(pair)
        record = {"game": KEY, "throws": throws}
        found = problems(record, self.needed)
        if found:
            raise forms.ValidationError(found)
        self.record = record
        return data

    @staticmethod
    def initial_from(record: Mapping[str, Any]) -> dict:
        initial = {}
        for row, pair in enumerate(record.get("throws") or [], start=1):
            initial[f"throw_{row}_1"], initial[f"throw_{row}_2"] = pair
        return initial


def bind_result_form(match: Match, data=None, *, rules=None) -> JankenResultForm:
    return JankenResultForm(data, names=[side.name_at_match for side in match.sides.all()], needed=wins_needed(rules))


class JankenResultInput(StrictInput):
    """A Janken match's result through the API: its throws in order (slot 1's throw first)."""

    game = serializers.ChoiceField(choices=[KEY], help_text="The game of the match's league")
    throws = serializers.ListField(
        child=serializers.ListField(
            child=serializers.ChoiceField(choices=list(engine.THROWS)), min_length=2, max_length=2
        ),
        min_length=1,
        max_length=engine.MAX_THROWS,
    )


# --- the league table: its own column, the throws each player threw (Game.table_values) ------------


def table_columns(_season) -> tuple[Column, ...]:
    return (
        Column("played", "P", "Played"),
        Column("won", "W", "Won"),
        Column("lost", "L", "Lost"),
        Column("throws", "Thr.", "Throws thrown"),
        STRENGTH,
        Column("points", "Pts", "League points", strong=True),
    )


def table_values(season, team_ids) -> dict[int, dict[str, int]]:
    """{entrant: {"throws": the throws of its confirmed games this season}}: one query."""
    thrown = dict.fromkeys(team_ids, 0)
    sides = MatchTeam.objects.filter(
        team_id__in=team_ids, match__season=season, match__status=Match.Status.CONFIRMED
    ).values_list("team_id", "match__submitted_record")
    for team_id, record in sides:
        try:
            thrown[team_id] += len(result_of(record).throws)
        except (ValueError, TypeError):
            continue
    return {team_id: {"throws": n} for team_id, n in thrown.items()}


# --- statistics and the newsletter ------------------------------------------------------------------


@dataclass(frozen=True)
class JankenStatistics:
    game: str
    throws: dict[str, tuple[int, int]] = field(default_factory=dict)
    matches: int = 0

    @property
    def empty(self) -> bool:
        return self.matches == 0

    def rows(self) -> list[tuple[str, int, int]]:
        return [(t.capitalize(), won, thrown) for t, (won, thrown) in self.throws.items()]

    def facts(self) -> list[dict[str, str]]:
        if self.empty:
            return []
        parts = ", ".join(f"{label} won {won} of {thrown}" for label, won, thrown in self.rows())
        return [{"key": "throws", "text": f"Throws won: {parts}."}]


def statistics(*, league, season=None, records=None) -> JankenStatistics:
    if records is None:
        matches = Match.objects.filter(status=Match.Status.CONFIRMED, league=league)
        if season is not None:
            matches = matches.filter(season=season)
        records = [r for r in matches.values_list("submitted_record", flat=True) if isinstance(r, dict)]
    results = []
    for record in records:
        try:
            results.append(result_of(record))
        except (ValueError, TypeError):
            continue
    return JankenStatistics(KEY, engine.season_stats(results), len(results))


STATISTICS_TEMPLATE = Template(
    '<section data-testid="janken-stats"><h2 class="h5">Throws</h2><table class="table table-sm">'
    "<thead><tr><th>Throw</th><th>Won</th><th>Thrown</th></tr></thead><tbody>"
    "{% for label, won, thrown in stats.rows %}<tr><td>{{ label }}</td><td>{{ won }}</td><td>{{ thrown }}</td></tr>"
    "{% endfor %}</tbody></table></section>"
)


def newsletter_report(match, sides, record) -> tuple[str, str, dict]:
    result = result_of(record)
    name = {s.slot: s.team.name for s in sides}
    winner, loser = name[result.winner], name[3 - result.winner]
    won = result.won
    headline = f"{winner} beat {loser} at Janken"
    text = f"{winner} beat {loser} {max(won)}–{min(won)} in {len(result.throws)} throws."
    return headline, text, {"throws": [list(p) for p in result.throws]}


# --- the demo: four players, a round robin, round 1 entered at the club (manage.py seed_demo) -----

DEMO_SLUG = "moonlight-janken"
DEMO_PLAYERS = [("akane", "Rock Lee"), ("botan", "Paper Moon"), ("jiro", "Scissor Hands"), ("kenta", "Stone Cold")]


def seed_demo(demo):
    from league import services as league_services
    from league.models import ScheduleRun, Season

    league = demo.players_league(
        slug=DEMO_SLUG, name="Moonlight Janken", game=KEY, description="A demo Janken league: four players."
    )
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN, name="Janken Season")
    demo.join(league, DEMO_PLAYERS)
    run = league_services.schedule_request(
        season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=demo.master, seed=demo.seed
    )
    league_services.schedule_generate(run_id=run.pk)
    for match in Match.objects.filter(season=season, round_number=1).order_by("id"):
        demo.enter(match, {"game": KEY, "throws": [["rock", "scissors"], ["paper", "rock"]]})
    return league


GAME_SITE = Game(
    info=janken.GAME,
    result_form=JankenResultForm,
    bind_result_form=bind_result_form,
    validate_result=validate_result,
    side_results=side_results,
    result_line=result_line,
    result_line_keys=("throws",),
    result_summary=result_summary,
    api_result_input=JankenResultInput,
    points=side_points,
    table_columns=table_columns,
    table_values=table_values,
    house_rules=(WINS_NEEDED,),
    simulate_panel=SimulatePanel("Janken is not simulated.", "Janken is not simulated."),
    statistics=statistics,
    statistics_template=STATISTICS_TEMPLATE,
    newsletter_report=newsletter_report,
    demo=Demo(slug=DEMO_SLUG, seed=seed_demo, players=tuple(p for p, _ in DEMO_PLAYERS)),
)
