"""The one interface between the core and a game (issue 28, part 1): standard library only.

The core apps (league, matches, teams, stats, newsletters, notifications, api) never name a game's
key or test one of its features directly: they ask the league's :class:`Game` (``game_of(league)``
in ``games.registry``, ``league.game_site`` on a model) what to do. Each game's package builds one
``Game`` in its Django side (``games/<key>/site.py``) and the registry takes it at start-up from
the ``MOONLIGHT_GAMES`` setting (``games.apps.GamesConfig.ready``); a test may register one more
(``games.registry.register``). docs/architecture.md, "A game is one package", lists the hooks.

Why a frozen dataclass of hooks and not a class to subclass: a game gives functions, most of them
the module-level functions its package already has, and the defaults below are what a game without
the feature does (no statistics, no simulator, nothing extra on a result's line). The hooks are
typed ``Callable[..., Any]`` because their arguments are Django objects (matches, seasons, forms)
this module, beneath every app, may not import; the docstring of each says what it takes.

A game whose entrants are All-Stars team scrolls (rosters, treasuries, the post-game sequence of
``matches.services``) says so with :attr:`Game.team_scrolls`: that difference is the core's own
(the teams app is All-Stars' Django side), so it is one of the few *features* the protocol names;
everything else the core varies is a hook or a value of the game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.base import GameInfo

#: What a side's result is once confirmed: outcome ("win", "draw", "loss"), points (the table's
#: "for": a margin, a treasure) and the league points its game gave it (None: its outcome's under
#: the house rules).
SideResult = tuple[str, int, int | None]


def _no_line(_record: Any, _names: Sequence[str]) -> str:
    return ""


def _no_lines(*_args: Any, **_kwargs: Any) -> list:
    return []


#: The values every league table row has (``league.selectors.TableRow`` and the archived rows): a
#: :class:`Column`'s ``key`` is one of them or one its game's ``table_values`` gives.
ROW_VALUES = (
    "played",
    "won",
    "drawn",
    "lost",
    "points_for",
    "points_against",
    "points_difference",
    "places_text",
    "rating",
    "strength",
    "points",
)
#: How a column's cells read: a number (right-aligned), a short text, the strength rating (its
#: figure, its spread on hover, in the rating system's precision).
CELLS = ("number", "text", "strength")
#: Bootstrap's breakpoints a column may be hidden below (a phone shows the columns that matter).
BREAKPOINTS = ("", "sm", "md", "lg")
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@dataclass(frozen=True)
class Column:
    """One column of a game's league table, between the entrant's name and the next fixture.

    ``key``: the row's value it shows (one of :data:`ROW_VALUES`, or a key its game's
    ``table_values`` hook gives for the rows shown); ``heading`` and ``title`` (the hover text) in
    the game's words; ``cell``: how it reads (:data:`CELLS`); ``hide_below``: the breakpoint below
    which a narrow screen leaves it out; ``strong``: the column the table is ranked on (bold);
    ``archived``: kept in a finished season's final table (the strength rating is not: it moves
    after the season)."""

    key: str
    heading: str
    title: str
    cell: str = "number"
    hide_below: str = ""
    strong: bool = False
    archived: bool = True

    def __post_init__(self) -> None:
        if not _KEY.match(self.key):
            raise ValueError(f"a table column's key is a short lower-case name, not {self.key!r}")
        if self.cell not in CELLS:
            raise ValueError(f"a table column's cell is one of {', '.join(CELLS)}")
        if self.hide_below not in BREAKPOINTS:
            raise ValueError(f"a table column hides below one of {', '.join(BREAKPOINTS[1:])}")
        if not self.heading or len(self.heading) > 12 or len(self.title) > 120:
            raise ValueError("a table column has a short heading (at most 12 characters) and a title")


#: The strength rating's column, which every game's table may show (its rating system's figure).
STRENGTH = Column(
    "strength", "Str.", "Strength rating from the results", cell="strength", hide_below="md", archived=False
)


def default_columns(_season: Any) -> tuple[Column, ...]:
    """A game's table when it says nothing of its own: played, won, drawn, lost, strength, points."""
    return (
        Column("played", "P", "Played"),
        Column("won", "W", "Won"),
        Column("drawn", "D", "Drawn"),
        Column("lost", "L", "Lost"),
        STRENGTH,
        Column("points", "Pts", "League points", strong=True),
    )


def default_record(won: int, drawn: int, lost: int) -> str:
    """A member's career record in a game, in words: "5 won, 1 drawn, 2 lost"."""
    return f"{won} won, {drawn} drawn, {lost} lost"


#: What a player who drops out of a table scores (``Game.dropout_rule``): placed last at the
#: table, below every player present, or a forfeit's loss with no place (the others placed among
#: themselves).
DROPOUT_LAST_PLACE = "last_place"
DROPOUT_FORFEIT_LOSS = "forfeit_loss"

#: Most house rules a game may have of its own, and the longest text one may hold (a choice's
#: value): bounds on what a league stores and a backup may bring.
MAX_GAME_RULES = 20
MAX_RULE_TEXT = 40


@dataclass(frozen=True)
class HouseRule:
    """One house rule a game has of its own (``Game.house_rules``): the core stores its value on
    the league (its next season's default) and freezes it on each season (``game_rules``), shows it
    on the house-rules form in its range, and lists it on the league page by ``sentence``.

    Its kind: a choice among ``choices`` (``(value, label)`` pairs); yes/no (a bool default); a
    whole number from ``low`` to ``high`` (both included; ``optional``: it may be empty, None, which
    ``empty`` says the meaning of); else a short text, which ``check`` (``text -> problem or ""``)
    accepts."""

    key: str
    label: str
    default: int | str | bool | None
    low: int | None = None
    high: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    empty: str = ""
    check: Callable[[str], str] | None = None
    help: str = ""
    #: How the league page reads it, ``{value}`` the value (a choice's label): "First to {value} throws."
    sentence: str = ""

    def __post_init__(self) -> None:
        if not _KEY.match(self.key):
            raise ValueError(f"A house rule's key is a short identifier: {self.key!r}.")
        if self.kind == "number" and (self.low is None or self.high is None):
            raise ValueError(f"The number {self.key!r} needs a range.")
        if self.kind == "choice":
            values = [v for v, _ in self.choices]
            if len(set(values)) != len(values) or any(len(v) > MAX_RULE_TEXT for v in values):
                raise ValueError(f"The choice {self.key!r} needs distinct short choices.")
        if self.kind == "text" and self.check is None:
            raise ValueError(f"The text {self.key!r} needs a check.")
        if self.problem(self.default):
            raise ValueError(f"The default of {self.key!r} is not one of its values.")

    @property
    def kind(self) -> str:
        """ "choice", "flag" (yes or no), "number" or "text"."""
        if self.choices:
            return "choice"
        if isinstance(self.default, bool):
            return "flag"
        if self.low is not None or self.high is not None or isinstance(self.default, int):
            return "number"
        return "text"

    def problem(self, value: Any) -> str:
        """What is wrong with ``value`` for this rule ("" when nothing)."""
        if value is None:
            return "" if self.optional else "It may not be empty."
        if self.kind == "flag":
            return "" if isinstance(value, bool) else "Yes or no."
        if self.kind == "number":
            if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
                return f"A whole number between {self.low} and {self.high}."
            return ""
        if self.kind == "choice":
            return "" if value in dict(self.choices) else f"One of: {', '.join(v for v, _ in self.choices)}."
        if not isinstance(value, str) or len(value) > MAX_RULE_TEXT:
            return f"A text of at most {MAX_RULE_TEXT} characters."
        return self.check(value)

    def of(self, rules: Any) -> Any:
        """Its value under ``rules`` (a season's or league's rules: anything with ``game_rules``, or
        a mapping), its default when unset or no longer valid."""
        stored = rules if isinstance(rules, Mapping) else (getattr(rules, "game_rules", None) or {})
        value = stored.get(self.key, self.default)
        return self.default if self.problem(value) else value

    def shows(self, value: Any) -> str:
        """``value`` as a page shows it: a choice's label, yes or no, the text of being empty."""
        if value is None:
            return self.empty or "none"
        if self.kind == "choice":
            return dict(self.choices).get(value, str(value))
        if self.kind == "flag":
            return "yes" if value else "no"
        return str(value)

    def reads(self, value: Any) -> str:
        """The league page's line for ``value`` (its sentence, else "label: value")."""
        shown = self.shows(value)
        return self.sentence.format(value=shown) if self.sentence else f"{self.label}: {shown}"


@dataclass(frozen=True)
class SimulatePanel:
    """The simulate panel's wording on a season's page and a fixture (a game's own words)."""

    #: What one simulated fixture plays, shown under the button ("the strength model draws ...").
    match_help: str
    #: What simulating the rest of a season does, shown beside the season's buttons.
    season_help: str
    #: The policy choices of an All-Stars simulation (rosters, upkeep, advancement rolls) apply.
    policies: bool = False


@dataclass(frozen=True)
class Demo:
    """A game's demo league, as ``manage.py seed_demo`` seeds it (once: a league at ``slug`` is
    left alone). ``seed(demo) -> League`` builds it inside a transaction and returns the league;
    ``demo`` is what the command provides (``league.management.commands.seed_demo.DemoSeeder``):

    * ``demo.master``: the demo master (``demo-master``), and ``demo.user(name)``: a demo user,
      made once with an unusable password (the command sets every demo user's password after);
    * ``demo.seed``: the demo's fixed seed (2026), and ``demo.rounds``: ``--rounds``, the rounds a
      game's demo plays when it takes that option (All-Stars' round robin);
    * ``demo.players_league(slug=, name=, game=, description=)``: a league of a players' game
      founded by the master (a ``CommandError`` if its name would not give ``slug``);
      ``demo.join(league, [(username, display name)])``: players applied and accepted;
      ``demo.enter(match, record)``: a result submitted by its first side and confirmed by its
      second; ``demo.simulate_round(season, seed=)``: the round waiting, simulated by a job.
    """

    #: The demo league's slug (how the command knows it is seeded).
    slug: str
    #: ``seed(demo) -> League``: builds the demo league through the site's services.
    seed: Callable[[Any], Any]
    #: The demo's players' user names without ``demo-`` (the command sets their passwords).
    players: tuple[str, ...] = ()
    #: What the command says when the league is already there.
    already_seeded: str = "The demo league is already seeded."


@dataclass(frozen=True)
class Game:
    """Everything the core asks of a game. Only ``info`` is required; a hook left at its default
    is a feature the game does not have (the page that would use it says so)."""

    #: Its plain description: key, name, players per match, entrant words, tie-breaks, rating system.
    info: GameInfo

    # --- features the core's own structure depends on --------------------------------------------
    #: Entrants are team scrolls (clan, roster, treasury, post-game sequence: All-Stars), else players.
    team_scrolls: bool = False
    #: Each fixture is played under a challenge rolled when it is scheduled (All-Stars).
    challenges: bool = False
    #: A season is scheduled as tables of several players (games.tables), not pairings.
    tables: bool = False

    # --- results -----------------------------------------------------------------------------------
    #: The form class a side fills to enter a result (``None``: no result entry on the site yet).
    result_form: Any = None
    #: ``bind_result_form(match, data=None, *, rules) -> form``: the bound form of a match (its
    #: sides' names, the season's rules); ``form.record`` once valid. Unset: ``result_form(data)``.
    bind_result_form: Callable[..., Any] | None = None
    #: The check a submitted result must pass (All-Stars: ``matches.services.validate_record``; a
    #: players' game: ``(record, *, slots, game, rules)`` raising ValidationError;
    #: ``rules``: the season's, its own house rules read by :meth:`Game.rule`).
    validate_result: Callable[..., None] | None = None
    #: ``side_results(record, rules) -> {slot: SideResult}``: what a confirmed record writes on the
    #: sides of a players' game (All-Stars runs its post-game sequence instead).
    side_results: Callable[..., Mapping[int, SideResult]] | None = None
    #: ``result_line(record, names) -> str``: a result as one line of a list ("" when none).
    result_line: Callable[[Any, Sequence[str]], str] = _no_line
    #: The record's keys ``result_line`` reads (a fixture list annotates only these, the record
    #: itself deferred); "game" is always read.
    result_line_keys: tuple[str, ...] = ()
    #: ``result_summary(record, names, rules) -> [(label, value)]``: the match page's lines.
    result_summary: Callable[..., list[tuple[str, str]]] = _no_lines
    #: ``result_table(record, names, rules) -> [row]``: a table's result by place (Kage), else [].
    result_table: Callable[..., list] = _no_lines
    #: ``dropout_line(name, when, season) -> str``: how a list reads a player who dropped out of a
    #: table ("Botan dropped out: last place"), under the season's rules; None: no drop-outs.
    dropout_line: Callable[[str, str, Any], str] | None = None
    #: ``dropout_rule(season) -> (value, label)``: what a player who drops out scores under the
    #: season's rules, ``DROPOUT_LAST_PLACE`` or ``DROPOUT_FORFEIT_LOSS``, and its words ("Last place
    #: at the table"); the tables' services and the league table read it. None: last place.
    dropout_rule: Callable[[Any], tuple[str, str]] | None = None
    #: The API's input serializer class for a record (``api.serializers`` builds on it).
    api_result_input: Any = None
    #: ``points(season, outcome, *, forfeited=False) -> int``: a side's league points for an outcome
    #: under a season's frozen house rules (league.readmodel.side_points for every game today).
    points: Callable[..., int] | None = None

    # --- the league table and careers ------------------------------------------------------------------
    #: ``table_columns(season) -> [Column]``: the league table's columns for a season (its house
    #: rules may change them: a drawn column only where a time limit allows draws), in order; the
    #: core adds the position, the entrant and the next fixture around them.
    table_columns: Callable[[Any], Sequence[Column]] = default_columns
    #: ``table_values(season, entrant ids) -> {entrant id: {key: value}}``: the values of the
    #: game's own columns (keys not in ROW_VALUES) for the rows shown, in one query; None: none.
    table_values: Callable[[Any, Sequence[int]], Mapping[int, Mapping[str, Any]]] | None = None
    #: A result is a score a side (All-Stars' points): a bracket shows it beside each side's name.
    scores: bool = False
    #: What a side's points are called beside its place at a table ("15 treasure": Kage Masters).
    points_word: str = "points"
    #: ``career_record(won, drawn, lost) -> str``: a member's record in the game on their page.
    career_record: Callable[[int, int, int], str] = default_record

    # --- house rules -------------------------------------------------------------------------------
    #: The house-rule fields only this game has (a league of another game neither shows nor asks
    #: for them).
    house_rule_fields: tuple[str, ...] = ()
    #: Its own house rules as the league page lists them (a template of ``<dt>``/``<dd>`` pairs
    #: reading ``league``) and as a clause of a season's frozen rules (reading ``season``, starting
    #: "; "); "" when it has none.
    league_rules_template: Any = ""
    season_rules_template: Any = ""
    #: Its own house rules (:class:`HouseRule`), stored by the core without a field of its own:
    #: a league's ``game_rules``, frozen on each season; the services, the result check and
    #: ``side_results`` read them from the season's rules (``rules.game_rules``) through
    #: :meth:`Game.rule`. () for none.
    house_rules: tuple[HouseRule, ...] = ()

    # --- simulation, statistics, newsletters ------------------------------------------------------
    #: ``simulator(*, match, seed, actor, policy, job)``: one fixture (a SimulationRun or None).
    simulator: Callable[..., Any] | None = None
    #: ``simulate_batch(matches, *, seeds, actor, policy, job, **context)``: a round's fixtures.
    simulate_batch: Callable[..., Any] | None = None
    #: ``strength_record(sides, ratings, *, rng, rules=None) -> record``: a players' game's
    #: simulated record drawn from its players' stored strength ratings (``ratings``: {player id:
    #: {system: rating}}), which the shared strength-model simulation (``games.players.simulation``,
    #: its ``simulator`` and ``simulate_batch``) confirms; None: not simulated that way.
    strength_record: Callable[..., Any] | None = None
    #: ``simulation_context() -> dict``: keyword arguments a job passes to every ``simulate_batch``
    #: (what it keeps from batch to batch, such as the ratings it read once); {} by default.
    simulation_context: Callable[[], dict] = dict
    #: The simulate panels' words (league.templatetags.simulation_tags); None: no words beyond the form.
    simulate_panel: SimulatePanel | None = None
    #: ``statistics(*, league, season=None, records=None)``: the game's own figures (an object with
    #: ``empty`` and ``facts()``), shown on the leaderboards through ``statistics_template``.
    statistics: Callable[..., Any] | None = None
    #: A template's name, or a template object (anything ``{% include %}`` takes), given ``stats``.
    statistics_template: Any = ""
    #: ``newsletter_report(match, sides, record) -> (headline, text, facts)``: a result's report.
    newsletter_report: Callable[..., tuple[str, str, list]] | None = None

    # --- rules pages -------------------------------------------------------------------------------
    #: Its own rules pages under /rules/: a sequence of django ``path()``s, included in the
    #: ``rules`` namespace by rules/urls.py (their names are GameInfo.rules_pages'); () for none.
    rules_urls: Sequence[Any] = ()
    #: ``(label, URL name)`` of each of those pages as the rules pages' section navigation lists
    #: them (short labels: "Ninjutsu", "Ninjutsu battle odds"); the pages of GameInfo.rules_pages.
    rules_nav: Sequence[tuple[str, str]] = ()

    # --- the demo -----------------------------------------------------------------------------------
    #: Its demo league (:class:`Demo`), seeded by ``manage.py seed_demo``; None: no demo league.
    demo: Demo | None = None

    @property
    def key(self) -> str:
        return self.info.key

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def min_players(self) -> int:
        return self.info.min_players

    @property
    def max_players(self) -> int:
        return self.info.max_players

    @property
    def players(self) -> bool:
        """Entrants are players (not team scrolls): the players' games' pages and services."""
        return not self.team_scrolls

    @property
    def has_team_scrolls(self) -> bool:
        """The same as :attr:`team_scrolls` (the interface's name before the protocol)."""
        return self.team_scrolls

    @property
    def can_enter_results(self) -> bool:
        """A result can be entered on the site (its form and its check exist)."""
        return self.result_form is not None and self.validate_result is not None

    @property
    def can_simulate(self) -> bool:
        return self.simulator is not None and self.simulate_batch is not None

    def season_points(self, season: Any, outcome: str, *, forfeited: bool = False) -> int:
        if self.points is None:
            raise LookupError(f"{self.name} gives no league points.")
        return self.points(season, outcome, forfeited=forfeited)

    def bound_result_form(self, match: Any, data: Any = None, *, rules: Any = None) -> Any:
        if self.bind_result_form is not None:
            return self.bind_result_form(match, data, rules=rules)
        return self.result_form(data)

    def columns(self, season: Any, *, archived: bool = False) -> tuple[Column, ...]:
        """The league table's columns for ``season`` (``archived``: those a final table keeps)."""
        columns = tuple(self.table_columns(season))
        return tuple(c for c in columns if c.archived) if archived else columns

    def __post_init__(self) -> None:
        keys = [rule.key for rule in self.house_rules]
        if len(keys) > MAX_GAME_RULES or len(set(keys)) != len(keys):
            raise ValueError(f"{self.info.name}: at most {MAX_GAME_RULES} house rules, each key once.")

    def dropout_scores(self, season: Any) -> tuple[str, str]:
        """(value, label) of what a player who drops out of a table scores (``dropout_rule``)."""
        if self.dropout_rule is None:
            return DROPOUT_LAST_PLACE, "Last place at the table"
        return self.dropout_rule(season)

    def rule(self, rules: Any, key: str) -> Any:
        """The value of its own house rule ``key`` under ``rules`` (:meth:`HouseRule.of`)."""
        return self._house_rule(key).of(rules)

    def rule_values(self, stored: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every one of its house rules' values ({key: value}): the stored ones, the others at their
        defaults; keys it does not know are dropped."""
        return {rule.key: self.rule(stored or {}, rule.key) for rule in self.house_rules}

    def rule_problems(self, values: Any) -> dict[str, str]:
        """What is wrong with stored or posted game rules ({key: message}; empty when nothing)."""
        if not isinstance(values, Mapping):
            return {"game_rules": "The game's house rules are a mapping of rule to value."}
        known = {rule.key: rule for rule in self.house_rules}
        problems = {key: f"{self.name} has no house rule {key!r}." for key in values if key not in known}
        for key, value in values.items():
            if key in known and known[key].problem(value):
                problems[key] = f"{known[key].label}: {known[key].problem(value)}"
        return dict(list(problems.items())[:MAX_GAME_RULES])

    def rule_lines(self, stored: Mapping[str, Any] | None) -> list[tuple[str, str]]:
        """(label, line) of each of its house rules under ``stored``, as the league page lists them
        (a game with its own ``league_rules_template`` lists them there instead)."""
        values = self.rule_values(stored)
        return [(rule.label, rule.reads(values[rule.key])) for rule in self.house_rules]

    def rule_shown(self, stored: Mapping[str, Any] | None) -> dict[str, str]:
        """{key: its value as a page shows it} (a choice's label): what its templates read."""
        values = self.rule_values(stored)
        return {rule.key: rule.shows(values[rule.key]) for rule in self.house_rules}

    def _house_rule(self, key: str) -> HouseRule:
        for rule in self.house_rules:
            if rule.key == key:
                return rule
        raise KeyError(f"{self.name} has no house rule {key!r}.")

    @property
    def template_dir(self) -> str:
        return f"games/{self.key}"
