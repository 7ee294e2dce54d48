"""Match simulator: plays a challenge round by round with real rosters and
returns the same :class:`~rules.engine.records.MatchRecord` a player enters.

Pure and deterministic: every random draw comes from the ``rng`` passed in,
so ``random.Random(seed)`` replays a match exactly.  What is modelled, what
is abstracted and how, is written down in docs/simulation.md.

| module | what |
|---|---|
| :mod:`.roster` | the inputs: :class:`SimNinja`, :class:`SimTeam` |
| :mod:`.board` | the abstract board: zones, positions, contacts, moves; :class:`Geometry` |
| :mod:`.journal` | the log, every die rolled, every Injury |
| :mod:`.scoring` | points, a winning score, All-Star picks, the record, :class:`SimResult` |
| :mod:`.policy` | the targeting policy: the choices a side makes |
| :mod:`.referee` | one attack on the board, Stuns and Injuries and what they set off |
| :mod:`.actions` | a model's activation: moving, dodging, attacking, round-start abilities |
| :mod:`.challenges` | the eight challenges, one class each (set-up, objectives, scoring, end) |
| :mod:`.match` | the turn loop: set-up, rounds, upkeep |
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..keywords import FightPolicy
from ..league import UnderdogBonus
from .board import BOARD_DEPTH, DEFAULT_GEOMETRY, Geometry
from .challenges import CHALLENGES, SimChallenge
from .journal import DiceRecord, InjuryEvent
from .match import Match
from .policy import AGGRESSIVE, CAUTIOUS, LEVELS, SidePolicy
from .roster import SimNinja, SimTeam
from .scoring import SimResult

__all__ = [
    "BOARD_DEPTH",
    "Geometry",
    "SimNinja",
    "SimTeam",
    "SimChallenge",
    "CHALLENGES",
    "DiceRecord",
    "InjuryEvent",
    "SimResult",
    "SidePolicy",
    "CAUTIOUS",
    "AGGRESSIVE",
    "LEVELS",
    "simulate_match",
]


def simulate_match(
    teams: Sequence[SimTeam],
    challenge: SimChallenge,
    *,
    rng: random.Random,
    underdog: Sequence[UnderdogBonus] | None = None,
    policy: FightPolicy | None = None,
    geometry: Geometry = DEFAULT_GEOMETRY,
    side_policies: Sequence[SidePolicy] | None = None,
) -> SimResult:
    """Play ``challenge`` between ``teams`` (two to four) and return the
    match record, a readable log and every die rolled.

    ``underdog``: one :class:`~rules.engine.league.UnderdogBonus` per team in
    the same order (from :func:`~rules.engine.league.underdog_bonuses`);
    reroll and Moon Power tokens are spent in the game, extra All-Star awards
    are handed out in the record (bonus koban is the app's business).
    ``policy``: the dice decisions inside a fight; ``geometry``: the chances
    that stand in for the board's geometry; ``side_policies``: one
    :class:`~.policy.SidePolicy` per team (default: every team cautious).
    Deterministic for a given ``rng`` state.
    """
    return Match(teams, challenge, rng, underdog, policy or FightPolicy(), geometry, side_policies).play()
