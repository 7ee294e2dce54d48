"""What every challenge may change: the hooks the turn loop, the referee and the policy call.

A challenge owns its set-up (who starts in Stealth, what it places or picks), its objectives (what
a model does instead of fighting), its scoring (points and XP feats for Injuries, Stuns and
objectives; what the targeting policy counts a target as worth) and its end (a winning score; the
number of rounds is the catalog's). The base class plays none of them: no points, every model
fights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...challenges import starts_in_stealth
from ..part import Part

if TYPE_CHECKING:
    from ..board import Model
    from ..match import Match


class Challenge(Part):
    """A challenge's rules in play; a subclass per challenge overrides the hooks it needs."""

    slug = ""
    #: A score that wins at once, checked on every point (None: play every round).
    win_at: int | None = None

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.score = match.score

    # -- set-up --------------------------------------------------------------

    def starts_in_stealth(self, m: Model) -> bool:
        """``m``, deployed at the start of the game, starts it in Stealth: the ruling the pre-match
        sheet follows too (:func:`rules.engine.challenges.starts_in_stealth`; the simulator has no
        base sizes, so every model counts as small-based)."""
        return starts_in_stealth(self.match.challenge.slug, keywords=m.ninja.keywords)

    def setup(self, first: int) -> None:
        """After the starting deployment and the set-up initiative roll (``first`` won it)."""

    def on_deployed(self, m: Model) -> None:
        """``m`` has just been deployed (at the start or as a reinforcement)."""

    # -- during the game -----------------------------------------------------

    def start_round(self) -> None:
        """The start of a round, before the models' round-start abilities (Delay comes off here)."""

    def after_turns(self) -> None:
        """Every team has had a turn (one activation each) in this round (sentries act here)."""

    def before_round_end(self) -> None:
        """Every model has activated; before the round's end (unactivated sentries act here)."""

    def action(self, m: Model, mv: int, stunned: bool) -> bool:
        """``m``'s objective for this activation, instead of a combat action; True if it took
        one. By default a model searches when the only enemies near it are hidden."""
        return self.match.actions.search_option(m, stunned)

    def run_goal(self, m: Model) -> int | None:
        """Where a model with nothing to attack runs (a position; None: toward the enemy)."""
        return None

    def drop(self, carrier: Model, by: Model | None) -> None:
        """``carrier`` is being Injured (by ``by``): what it carries is dropped."""

    def on_removed(self, m: Model) -> None:
        """``m`` has just been Injured and is in the Healing House."""

    def end_of_round(self) -> None:
        """Scoring at the end of a round, before upkeep."""

    def upkeep(self) -> None:
        """The challenge's part of the upkeep phase (before the teams')."""

    # -- scoring -------------------------------------------------------------

    def score_injury(self, victim: Model, by: Model) -> int:
        """Points (and XP feats) for ``by`` Injuring ``victim``; returns the points."""
        return 0

    def score_stun(self, victim: Model, by: Model) -> None:
        """Points for ``by`` Stunning ``victim``."""

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        """What Injuring ``target`` is worth to ``attacker``'s team beyond removing it (the
        targeting policy's value)."""
        return 0.0


class OneModelPerTeam(Challenge):
    """Each team has one designated model (the VIP, the Champion, the messenger), chosen as soon as
    the team has a candidate on the board and again when it leaves."""

    #: What the designated model is called in the log.
    role = ""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.chosen: list[int | None] = [None] * match.n

    def candidates(self, t: int) -> Sequence[Model]:
        return self.board.on_board(t)

    def pick(self, candidates: Sequence[Model]) -> Model:
        """Policy: which candidate is chosen."""
        raise NotImplementedError

    def has_one(self, t: int) -> bool:
        """Team ``t`` has a designated model in this challenge."""
        return True

    def on_chosen(self, m: Model) -> None:
        """``m`` has just been chosen."""

    def choose(self, t: int) -> None:
        cands = self.candidates(t)
        if not cands:
            self.chosen[t] = None
            return
        m = self.pick(cands)
        self.chosen[t] = m.uid
        self.on_chosen(m)
        self.journal.say(f"{m.name} is the {self.role} of {self.match.tname(t)}")

    def is_chosen(self, m: Model) -> bool:
        return self.chosen[m.team] == m.uid

    def setup(self, first: int) -> None:
        for t in range(self.match.n):
            if self.has_one(t):
                self.choose(t)

    def on_deployed(self, m: Model) -> None:
        if self.has_one(m.team) and self.chosen[m.team] is None:
            self.choose(m.team)

    def on_removed(self, m: Model) -> None:
        if self.is_chosen(m):
            self.choose(m.team)
