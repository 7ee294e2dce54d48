"""Janken's rules as pure functions (standard library only): a throw beats the one it names,
a best of three is won by the first to two won throws (a league may ask for more: its house rule
``wins_needed``, site.py); a drawn throw is thrown again."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

THROWS = ("rock", "paper", "scissors")
#: What each throw beats: rock blunts scissors, paper covers rock, scissors cut paper.
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
WINS_NEEDED = 2
#: The range of the league's house rule: a match won by the first to 1 to 5 won throws.
WINS_NEEDED_RANGE = (1, 5)
#: At most this many throws a match (drawn throws are thrown again; a bound on a typing slip).
MAX_THROWS = 15


def throw_winner(first: str, second: str) -> int | None:
    """1 or 2, the player whose throw beats the other's; None for a drawn throw."""
    if first == second:
        return None
    return 1 if BEATS[first] == second else 2


@dataclass(frozen=True)
class JankenResult:
    throws: tuple[tuple[str, str], ...]

    @property
    def won(self) -> tuple[int, int]:
        wins = Counter(throw_winner(a, b) for a, b in self.throws)
        return wins[1], wins[2]

    @property
    def winner(self) -> int | None:
        """The player ahead (a finished match's winner, whatever the throws it took); None when level."""
        first, second = self.won
        return 1 if first > second else 2 if second > first else None


def problems(throws: Sequence[Sequence[str]], wins_needed: int = WINS_NEEDED) -> list[str]:
    """What is wrong with a match's throws, won by the first to ``wins_needed`` (empty: nothing)."""
    if not throws:
        return ["Give the throws of the match."]
    if len(throws) > MAX_THROWS:
        return [f"A match has at most {MAX_THROWS} throws."]
    if any(len(pair) != 2 or any(t not in THROWS for t in pair) for pair in throws):
        return ["Each throw is rock, paper or scissors, one for each player."]
    wins = [0, 0]
    for index, (first, second) in enumerate(throws):
        if max(wins) >= wins_needed:
            return [f"The match was over after throw {index}: leave out the later throws."]
        winner = throw_winner(first, second)
        if winner is not None:
            wins[winner - 1] += 1
    if max(wins) < wins_needed:
        return [f"Nobody has won {wins_needed} throws yet: the match is not over."]
    return []


def simulate(*, rng: random.Random, wins_needed: int = WINS_NEEDED) -> JankenResult:
    """A match thrown at random, to ``wins_needed`` won throws."""
    throws: list[tuple[str, str]] = []
    while max(JankenResult(tuple(throws)).won) < wins_needed:
        throws.append((rng.choice(THROWS), rng.choice(THROWS)))
    return JankenResult(tuple(throws))


def season_stats(results: Iterable[JankenResult]) -> dict[str, tuple[int, int]]:
    """{throw: (throws won, times thrown)} over some matches."""
    won: Counter[str] = Counter()
    thrown: Counter[str] = Counter()
    for result in results:
        for first, second in result.throws:
            thrown[first] += 1
            thrown[second] += 1
            winner = throw_winner(first, second)
            if winner is not None:
                won[(first, second)[winner - 1]] += 1
    return {t: (won[t], thrown[t]) for t in THROWS if thrown[t]}
