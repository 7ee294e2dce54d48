"""A season's house rules as one frozen value (the rulebook gives the ninja master total control
of the league rules; docs/rulings.md, "Leagues").

The league app stores them as model fields (on the League as defaults for its next season, frozen
on each Season); services and the engine take this value instead of a ``rules["…"]`` dict, so a
misspelt rule is an error where it is written, not a KeyError at the end of a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from .league import DEFAULT_DRAW_KOBAN, LOSS_KOBAN, MAX_BONUS_KOBAN, MAX_BONUS_KOBAN_LIMIT, STARTING_KOBAN, WIN_KOBAN
from .postgame import PostgameRules
from .standings import DEFAULT_TIE_BREAKERS, TieBreaker

__all__ = ["BOUNDS", "DiceMode", "HouseRules", "bounds_errors"]

#: Most league points one game (or a bye, a forfeit) scores: the master sets them freely, and a
#: table of a season's points stays readable (the usual 3/1/0 is well inside).
MAX_POINTS = 20
#: Most koban a master may give a team to start with: ten times the rulebook's 100 ("A player gets
#: 100 koban to spend to recruit models for their team", "Building Teams").
MAX_STARTING_KOBAN = 10 * STARTING_KOBAN
#: Most koban one game pays: ten times a win's 10 ("Revenue"). A long season of such games stays far
#: from any limit of the treasury's ledger (a number with no bound overflowed it: issue 27, 7).
MAX_REVENUE = 10 * WIN_KOBAN

#: The range (lowest, highest) of every house rule that is a number, both included; a rule that
#: may be empty (None: its default) is in range when empty. Each game's own rules have theirs in
#: the game's package (games.protocol.HouseRule; games/ninjutsu/engine/results.py: the time limit).
BOUNDS: dict[str, tuple[int, int]] = {
    "starting_koban": (0, MAX_STARTING_KOBAN),
    "revenue_win": (0, MAX_REVENUE),
    "revenue_draw": (0, MAX_REVENUE),
    "revenue_loss": (0, MAX_REVENUE),
    "points_win": (0, MAX_POINTS),
    "points_draw": (0, MAX_POINTS),
    "points_loss": (0, MAX_POINTS),
    # twice a win's revenue: an underdog's bonus never outweighs what the game pays (docs/rulings.md)
    "max_bonus_koban": (0, MAX_BONUS_KOBAN_LIMIT),
    "points_bye": (0, MAX_POINTS),
    "points_forfeit_win": (0, MAX_POINTS),
    "points_forfeit_loss": (0, MAX_POINTS),
    "revenue_forfeit_win": (0, MAX_REVENUE),
}


def bounds_errors(values: Mapping[str, Any], bounds: Mapping[str, tuple[int, int]] = BOUNDS) -> dict[str, str]:
    """What is wrong with the numbers among ``values`` ({rule: message}; empty when all are in
    range). A rule not in ``bounds`` is not looked at; None (a rule's default) is in range."""
    errors = {}
    for name, value in values.items():
        if name not in bounds or value is None:
            continue
        low, high = bounds[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors[name] = f"{name.replace('_', ' ').capitalize()} must be a whole number between {low} and {high}."
    return errors


class DiceMode(str, Enum):
    """Who rolls the league's dice (downtime, advancement)."""

    SERVER = "server"
    ENTERED = "entered"  # the players enter the faces rolled at the table


@dataclass(frozen=True)
class HouseRules:
    """Every house rule, with the rulebook's values (and our rulings') as defaults."""

    starting_koban: int = STARTING_KOBAN
    revenue_win: int = WIN_KOBAN
    revenue_draw: int = DEFAULT_DRAW_KOBAN
    revenue_loss: int = LOSS_KOBAN
    points_win: int = 3
    points_draw: int = 1
    points_loss: int = 0
    tie_breakers: tuple[TieBreaker, ...] = DEFAULT_TIE_BREAKERS
    results_need_confirmation: bool = True
    dice_mode: DiceMode = DiceMode.SERVER
    underdog_bonuses: bool = True
    max_bonus_koban: int = MAX_BONUS_KOBAN
    # the round life cycle (issue 13): None takes the default (a bye and a walkover score a win's
    # points and revenue, a forfeit a loss's points)
    points_bye: int | None = None
    points_forfeit_win: int | None = None
    points_forfeit_loss: int | None = None
    revenue_forfeit_win: int | None = None
    #: what Swiss pairing orders teams by: "table" (points, then the tie-breakers) or "strength"
    #: (points, then the Glicko-2 strength rating)
    swiss_order: str = "table"
    #: whether one player may enter two (or more) teams in the same season (issue 14)
    several_teams_per_owner: bool = False
    #: a ronin's upkeep when its owner has not decided by the fixture's deadline: "pay" or "release"
    ronin_upkeep_default: str = "pay"
    #: the game's own house rules, by key ({key: value}): a game declares them in its package
    #: (games.protocol.HouseRule: Ninjutsu's time limit, Kage Masters' place points) and reads
    #: them through ``HouseRule.of``; the core only keeps them
    game_rules: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> HouseRules:
        """From stored values (a model's fields): tie-breakers as "a,b,c", the dice mode as its
        value. Names it does not know raise ``TypeError``; a missing rule takes its default."""
        values = dict(values)
        if isinstance(values.get("tie_breakers"), str):
            values["tie_breakers"] = tuple(
                TieBreaker(t.strip()) for t in values["tie_breakers"].split(",") if t.strip()
            )
        if "dice_mode" in values:
            values["dice_mode"] = DiceMode(values["dice_mode"])
        return cls(**values)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @property
    def dice_entered(self) -> bool:
        return self.dice_mode == DiceMode.ENTERED

    def postgame(self) -> PostgameRules:
        """What the post-game sequence needs of them."""
        return PostgameRules(
            revenue_win=self.revenue_win,
            revenue_draw=self.revenue_draw,
            revenue_loss=self.revenue_loss,
            max_bonus_koban=self.max_bonus_koban,
        )
