"""A Ninjutsu game as a league records it: the result, its league points, the statistics a season
of them gives, and a strength model that plays one (rulebook lines cited as NJ l.N).

The book has no league rules; what a league needs from a game is read from it and written down in
docs/rulings.md ("Ninjutsu"):

- two players, each with a colour (NJ l.22), one of whom starts (the d6 toss, NJ l.28);
- the game ends when a Soke dies (NJ l.16, l.120), always in a battle: the Kidnap card cannot take
  the Soke (NJ l.112). The Soke dies attacked (its attacker rolled higher, NJ l.78), attacking (it
  rolled lower or tied, NJ l.80), or because a die left the Dojo (NJ l.86). Which action card, if
  any, opened the way to it (a Jump over a ninja, NJ l.104, or Smoke through a passage-way,
  NJ l.106) is recorded beside it: "how the Soke died, in battle or by a card";
- a player may concede (a league's ruling, not the book's);
- there are no draws (a tie kills the attacker, NJ l.80), unless the league sets a time limit (a
  house rule): then a game stopped by the clock is won by the side with more ninjas left, or drawn
  when they are equal (docs/rulings.md).

Optional details (ninjas left, shuriken and action cards used) feed the statistics and the
"ninjas left" tie-break. Standard library only (no Django).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from .battle import MAX_SHURIKEN, Rank, duel_odds

__all__ = [
    "ACTION_CARDS",
    "HOUSE_RULE_BOUNDS",
    "Card",
    "Ending",
    "NinjutsuResult",
    "PointsRules",
    "SeasonStats",
    "league_points",
    "season_stats",
    "simulate_game",
    "validate",
]

#: The five action cards each player holds, each usable once (NJ l.24, l.98-116).
ACTION_CARDS = 5


class Ending(StrEnum):
    """How the game ended: how the loser's Soke died, or how a game without a Soke's death ended."""

    SOKE_ATTACKED = "soke_attacked", "The Soke was attacked and lost the battle"
    SOKE_ATTACKING = "soke_attacking", "The Soke attacked and lost the battle (lower roll or a tie)"
    OUT_OF_DOJO = "out_of_dojo", "The Soke's die left the Dojo"
    CONCEDED = "conceded", "The loser conceded"
    TIME_LIMIT = "time_limit", "Stopped by the league's time limit"

    def __new__(cls, value: str, label: str):
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member

    @property
    def card_can_open(self) -> bool:
        """Whether the winner's ninja reached the Soke (a card may have opened the way)."""
        return self in (Ending.SOKE_ATTACKED, Ending.OUT_OF_DOJO)

    @property
    def soke_died(self) -> bool:
        return self in (Ending.SOKE_ATTACKED, Ending.SOKE_ATTACKING, Ending.OUT_OF_DOJO)

    @property
    def short(self) -> str:
        """How the game ended, in the few words a list of results gives it ("Ink Shadow won: Soke
        killed in battle")."""
        return _SHORT[self]


_SHORT = {
    Ending.SOKE_ATTACKED: "Soke killed in battle",
    Ending.SOKE_ATTACKING: "Soke fell attacking",
    Ending.OUT_OF_DOJO: "Soke's die left the Dojo",
    Ending.CONCEDED: "the opponent conceded",
    Ending.TIME_LIMIT: "on time",
}


class Card(StrEnum):
    """The action card that opened the way to the Soke, if one did (NJ l.104-106, l.116)."""

    NONE = "none"
    JUMP = "jump"
    SMOKE = "smoke"
    JOKER = "joker"  # played as a Jump or a Smoke (NJ l.116)


@dataclass(frozen=True)
class NinjutsuResult:
    """One game. ``players`` are the two entrants (any hashable ids), ``colours`` theirs in the
    same order, ``starter`` the one who won the d6 toss, ``winner`` None only for a game the time
    limit stopped with as many ninjas left on both sides. The optional details are per player, in
    the order of ``players``."""

    players: tuple[Hashable, Hashable]
    colours: tuple[str, str]
    starter: Hashable
    winner: Hashable | None
    ending: Ending
    card: Card = Card.NONE
    ninjas_left: tuple[int, int] | None = None
    shuriken_used: tuple[int, int] | None = None
    cards_used: tuple[int, int] | None = None

    @property
    def loser(self) -> Hashable | None:
        if self.winner is None:
            return None
        return self.players[1] if self.winner == self.players[0] else self.players[0]

    @property
    def starter_won(self) -> bool:
        return self.winner is not None and self.winner == self.starter


def validate(result: NinjutsuResult, *, time_limit: bool = False) -> list[str]:
    """What is wrong with a result, as messages for the player entering it (empty: nothing)."""
    errors: list[str] = []
    first, second = result.players
    if first == second:
        errors.append("A game is between two different players.")
    colours = tuple(c.strip() for c in result.colours)
    if not all(colours):
        errors.append("Give each player's colour.")
    elif colours[0].casefold() == colours[1].casefold():
        errors.append("The two players play different colours.")
    if result.starter not in result.players:
        errors.append("The starting player must be one of the two players.")
    if result.winner is not None and result.winner not in result.players:
        errors.append("The winner must be one of the two players.")
    if result.ending is Ending.TIME_LIMIT and not time_limit:
        errors.append("This league has no time limit: a game ends when a Soke dies or a player concedes.")
    if result.winner is None and result.ending is not Ending.TIME_LIMIT:
        errors.append("Only a game stopped by the time limit can end without a winner.")
    if result.card is not Card.NONE and not result.ending.card_can_open:
        errors.append("A card opens the way to the Soke only when the winner's ninja attacked it.")
    for name, pair, most in (
        ("Ninjas left", result.ninjas_left, None),
        ("Shuriken used", result.shuriken_used, MAX_SHURIKEN),
        ("Action cards used", result.cards_used, ACTION_CARDS),
    ):
        if pair is None:
            continue
        if any(n < 0 for n in pair):
            errors.append(f"{name} cannot be negative.")
        elif most is not None and any(n > most for n in pair):
            errors.append(f"{name}: at most {most} for a player.")
    if result.shuriken_used is not None and sum(result.shuriken_used) > MAX_SHURIKEN:
        errors.append(f"At most {MAX_SHURIKEN} shuriken can be used in a game (NJ l.94).")
    if result.ending is Ending.TIME_LIMIT:
        errors.extend(_time_limit_errors(result))
    elif (
        result.ninjas_left is not None
        and result.winner in result.players
        and result.ending.soke_died
        and result.ninjas_left[result.players.index(result.winner)] < 1
    ):
        errors.append("The winner has at least his Soke left.")
    return errors


def _time_limit_errors(result: NinjutsuResult) -> list[str]:
    if result.ninjas_left is None:
        return ["A game stopped by the time limit is decided by the ninjas left: give both."]
    mine, theirs = result.ninjas_left
    expected = None if mine == theirs else result.players[0 if mine > theirs else 1]
    if result.winner != expected:
        return ["Stopped by the time limit, the side with more ninjas left wins and equal numbers draw."]
    return []


#: The range (lowest, highest) of Ninjutsu's own house rules, both included (empty: no time limit,
#: or a win's and a loss's points). The book has no clock: a limit shorter than five minutes is no
#: game, one over ten hours no evening's; league points as bounded as the other games'
#: (rules.engine.house_rules.MAX_POINTS).
HOUSE_RULE_BOUNDS: dict[str, tuple[int, int]] = {
    "time_limit_minutes": (5, 600),
    "points_time_win": (0, 20),
    "points_time_loss": (0, 20),
}


@dataclass(frozen=True)
class PointsRules:
    """League points for a game (house rules; the book has none): a win, a loss, a draw (only a
    time-limited game can draw), and a loss by concession."""

    win: int = 3
    draw: int = 1
    loss: int = 0
    conceded: int = 0


def league_points(result: NinjutsuResult, rules: PointsRules = PointsRules()) -> tuple[int, int]:
    """Each player's league points, in the order of ``result.players``."""
    if result.winner is None:
        return rules.draw, rules.draw
    lost = rules.conceded if result.ending is Ending.CONCEDED else rules.loss
    return (rules.win, lost) if result.winner == result.players[0] else (lost, rules.win)


@dataclass(frozen=True)
class SeasonStats:
    """What a season of results says: how often the starting player won (of the games with a
    winner), each colour's wins and games, and how the games ended."""

    games: int
    decided: int
    starter_wins: int
    colour_games: dict[str, int] = field(default_factory=dict)
    colour_wins: dict[str, int] = field(default_factory=dict)
    endings: dict[str, int] = field(default_factory=dict)
    cards: dict[str, int] = field(default_factory=dict)

    @property
    def starter_win_rate(self) -> Fraction | None:
        return Fraction(self.starter_wins, self.decided) if self.decided else None

    def colour_win_rate(self, colour: str) -> Fraction | None:
        games = self.colour_games.get(colour, 0)
        return Fraction(self.colour_wins.get(colour, 0), games) if games else None


def season_stats(results: Iterable[NinjutsuResult]) -> SeasonStats:
    games = decided = starter_wins = 0
    colour_games: Counter[str] = Counter()
    colour_wins: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    cards: Counter[str] = Counter()
    for result in results:
        games += 1
        endings[result.ending.value] += 1
        if result.card is not Card.NONE:
            cards[result.card.value] += 1
        for player, colour in zip(result.players, result.colours, strict=True):
            colour_games[colour] += 1
            if result.winner is not None and player == result.winner:
                colour_wins[colour] += 1
        if result.winner is not None:
            decided += 1
            starter_wins += result.starter_won
    return SeasonStats(games, decided, starter_wins, dict(colour_games), dict(colour_wins), dict(endings), dict(cards))


#: How often each ending happens in a simulated game, before the battle odds weigh the Soke's
#: deaths: a concession now and then (a house ending, so rare).
CONCESSION_SHARE = Fraction(1, 20)


def _soke_death_weights() -> dict[Ending, Fraction]:
    """The battle odds as flavour for how a simulated Soke dies: attacked by a ninja of each rank
    (the attacker's chance of winning the battle, NJ l.78-80) against attacking one (the Soke's
    chance of losing), without shuriken; a die out of the Dojo is dexterity, not chance, and is
    given a small fixed share."""
    attacked = sum(duel_odds(rank.die, Rank.SOKE.die) for rank in Rank) / len(Rank)
    attacking = sum(1 - duel_odds(Rank.SOKE.die, rank.die) for rank in Rank) / len(Rank)
    dojo = Fraction(1, 20)
    rest = 1 - CONCESSION_SHARE - dojo
    return {
        Ending.SOKE_ATTACKED: rest * attacked / (attacked + attacking),
        Ending.SOKE_ATTACKING: rest * attacking / (attacked + attacking),
        Ending.OUT_OF_DOJO: dojo,
        Ending.CONCEDED: CONCESSION_SHARE,
    }


def simulate_game(
    players: tuple[Hashable, Hashable],
    colours: tuple[str, str],
    *,
    first_wins: float,
    rng: random.Random,
) -> NinjutsuResult:
    """A game decided by the strength model, not played: ``first_wins`` is the first player's
    chance of winning (the league's ratings give it: Glicko-2's expected score). The starter is
    the d6 toss (NJ l.28: reroll ties); how the game ended and the card that opened the way are
    flavour drawn from the battle odds; the details are left out (a simulated game has none)."""
    if not 0 <= first_wins <= 1:
        raise ValueError("first_wins is a probability")
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            break
    starter = players[0] if a > b else players[1]
    winner = players[0] if rng.random() < first_wins else players[1]
    weights = _soke_death_weights()
    ending = rng.choices(list(weights), weights=[float(w) for w in weights.values()])[0]
    card = Card.NONE
    if ending.card_can_open:
        card = rng.choices(list(Card), weights=[6, 2, 1, 1])[0]
    return NinjutsuResult(players=players, colours=colours, starter=starter, winner=winner, ending=ending, card=card)
