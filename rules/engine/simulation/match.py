"""The turn loop: set-up, then round after round (initiative, alternating activations, the
challenge's end-of-round scoring, upkeep) until the challenge's rounds are played or a team wins
at once; then the record.

:class:`Match` owns the state and wires the parts together: the :class:`~.board.Board`, the
:class:`~.journal.Journal`, the :class:`~.scoring.Scoreboard`, one :class:`Side` per team (its
underdog tokens), the challenge's rules (:mod:`.challenges`), the
:class:`~.referee.Referee`, the :class:`~.policy.TargetingPolicy` and the model
:class:`~.actions.Actions`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..affinity import affinity_test, opposed_affinity_test
from ..dice import ELEMENTS
from ..keywords import KW, FightPolicy
from ..league import UnderdogBonus
from ..records import MatchRecord
from .abilities import Abilities
from .actions import Actions
from .board import (
    BOARD_DEPTH,
    CLEAR_OF_EDGES,
    HEALING,
    LANTERNS_MAX,
    LANTERNS_MIN,
    OUT,
    SHRINES_MAX,
    TRAINING,
    Board,
    Geometry,
    Model,
    Shrine,
)
from .challenges import SimChallenge, rules_for
from .journal import Journal
from .policy import CAUTIOUS, SidePolicy, TargetingPolicy
from .referee import Referee
from .roster import SimTeam
from .scoring import Scoreboard, SimResult, team_record


@dataclass
class Side:
    """One team at the table: its name in the log and what it holds (underdog tokens, Sensei)."""

    name: str
    reroll_tokens: int = 0
    moon_tokens: int = 0
    extra_all_stars: int = 0
    sensei_ready: bool = True


class Match:
    def __init__(
        self,
        teams: Sequence[SimTeam],
        challenge: SimChallenge,
        rng: random.Random,
        underdog: Sequence[UnderdogBonus] | None,
        policy: FightPolicy,
        geometry: Geometry,
        side_policies: Sequence[SidePolicy] | None = None,
    ) -> None:
        if len(teams) < 2:
            raise ValueError("a match needs at least two teams")
        self.teams = list(teams)
        self.challenge = challenge
        self.rng = rng
        self.fight_policy = policy
        self.geo = geometry
        self.n = len(teams)
        self.journal = Journal(rng)
        models: list[Model] = []
        for t, team in enumerate(teams):
            for ninja in team.roster:
                m = Model(uid=len(models), team=t, ninja=ninja)
                if not ninja.available:
                    m.where = OUT
                elif ninja.starts_in_healing_house:
                    m.where = HEALING
                models.append(m)
        self.board = Board(models, teams=self.n, rng=rng, geometry=geometry, journal=self.journal)
        bonuses = list(underdog or [])
        if bonuses and len(bonuses) != self.n:
            raise ValueError("one UnderdogBonus per team, in team order")
        names = [team.name or f"team {team.team_id}" for team in teams]
        self.sides = [Side(name) for name in names]
        for side, b in zip(self.sides, bonuses):
            side.reroll_tokens = b.reroll_tokens
            side.moon_tokens = b.moon_power_tokens
            side.extra_all_stars = b.extra_all_star_awards
        self.side_policies = list(side_policies or [CAUTIOUS] * self.n)
        if len(self.side_policies) != self.n:
            raise ValueError("one SidePolicy per team, in team order")
        self.initiative = 0
        self.foul_weather = -1  # the round Foul Weather holds
        self.moon_phase = ELEMENTS[rng.randrange(6)]
        rules = rules_for(challenge.slug)
        self.score = Scoreboard(names, self.journal, win_at=rules.win_at)
        self.rules = rules(self)
        self.referee = Referee(self)
        self.policy = TargetingPolicy(self)
        self.abilities = Abilities(self)
        self.actions = Actions(self)
        for m in self.board.models:
            if m.has("Best Friends"):
                self.policy.choose_best_friend(m)

    def tname(self, t: int) -> str:
        return self.sides[t].name

    # -- the game ------------------------------------------------------------

    def play(self) -> SimResult:
        self.setup()
        ended_early = False
        for _ in range(self.challenge.rounds):
            self.start_round()
            self.play_round()
            if self.score.winner is not None:
                self.journal.say(f"{self.tname(self.score.winner)} reaches nine points and wins")
                ended_early = True
                break
            self.rules.end_of_round()
            self.upkeep()
        return self.result(ended_early)

    def setup(self) -> None:
        for t in range(self.n):
            self.deploy(t, start=True)
        self.initiative = self.roll_initiative("setup initiative")
        self.place_lanterns_and_shrines()
        self.rules.setup(self.initiative)

    def place_lanterns_and_shrines(self) -> None:
        """Set-up step 4 ("Setup", rulebook lines 81-82): from the initiative player the teams take
        turns placing a lantern or a shrine, at least two spaces from either edge, until all have
        passed in a row; nobody may pass before four lanterns are down; at most six lanterns and four
        shrines. Policy (:class:`~.policy.SidePolicy`): a team places its one shrine first (the effect
        and place its ``shrine`` says), then a lantern while there are fewer than four or than its
        ``lanterns``, at the free depth nearest ``lantern_at`` spaces from its own edge."""
        board, order = self.board, [(self.initiative + i) % self.n for i in range(self.n)]
        placed_shrine: set[int] = set()
        passes, turn = 0, 0
        while passes < self.n:
            t = order[turn % self.n]
            turn += 1
            policy = self.side_policies[t]
            if t not in placed_shrine and len(board.shrines) < SHRINES_MAX:
                placed_shrine.add(t)
                effect, where = policy.shrine
                from_own_edge = 6 if where == "own" else BOARD_DEPTH - 6
                position = from_own_edge if t == 0 else BOARD_DEPTH - from_own_edge
                board.shrines.append(Shrine(effect, position, t))
                self.journal.say(f"{self.tname(t)} places a {effect} shrine")
            elif len(board.lanterns) < LANTERNS_MIN or len(board.lanterns) < min(LANTERNS_MAX, policy.lanterns):
                wanted = policy.lantern_at if t == 0 else BOARD_DEPTH - policy.lantern_at
                free = [d for d in range(CLEAR_OF_EDGES, BOARD_DEPTH - CLEAR_OF_EDGES + 1) if d not in board.lanterns]
                depth = min(free, key=lambda d: (abs(d - wanted), abs(d - BOARD_DEPTH / 2)))
                board.lanterns.append(depth)
                self.journal.say(f"{self.tname(t)} places a lantern")
            else:
                passes += 1
                continue
            passes = 0

    def start_round(self) -> None:
        self.journal.round += 1
        for side in self.sides:
            side.sensei_ready = True
        for m in self.board.models:
            m.new_round()
        if self.journal.round > 1:
            self.initiative = self.roll_initiative("initiative")
        self.journal.say(f"{self.tname(self.initiative)} has the initiative")
        self.rules.start_round()
        for m in self.board.on_board():
            self.actions.at_round_start(m)

    def play_round(self) -> None:
        """Teams activate one model each in turn from the initiative winner until every model on
        the board has activated (or a team has won)."""
        order = [(self.initiative + i) % self.n for i in range(self.n)]
        while True:
            any_active = False
            for t in order:
                m = self.policy.next_to_activate(t)
                if m is None:
                    continue
                any_active = True
                self.actions.activate(m)
                if self.score.winner is not None:
                    return
            if not any_active:
                break
            self.rules.after_turns()
        self.rules.before_round_end()
        for m in self.board.on_board():
            self.actions.at_round_end(m)

    def upkeep(self) -> None:
        """From the initiative player: Regeneration, up to two models from the Healing House to the
        Training Ground (or all Stun tokens off one model with two or more), then reinforcements."""
        self.rules.upkeep()
        for t in [(self.initiative + i) % self.n for i in range(self.n)]:
            for m in self.board.team_models(t):
                if m.where == HEALING and m.has(KW.REGENERATION) and self.journal.test(m, "Regeneration"):
                    m.where = TRAINING
                    self.journal.say(f"{m.name} regenerates")
            healing = [m for m in self.policy.ranked[t] if m.where == HEALING]
            if healing:
                healing.pop(0).where = TRAINING
            if healing:
                healing.pop(0).where = TRAINING
            else:
                stunned = [m for m in self.board.on_board(t) if m.stun >= 2]
                if stunned:
                    max(stunned, key=lambda m: (m.stun, -m.uid)).stun = 0
            self.deploy(t, start=False)
        self.moon_phase = ELEMENTS[(ELEMENTS.index(self.moon_phase) + 1) % 6]

    # -- set-up and reinforcements ---------------------------------------------

    def deploy(self, t: int, *, start: bool) -> None:
        """Fill the team's places on the board from the Training Ground, strongest first."""
        allowed = self.challenge.ninjas_allowed
        while len(self.board.on_board(t)) < allowed:
            m = next((x for x in self.policy.ranked[t] if x.where == TRAINING), None)
            if m is None:
                return
            self.board.enter(m)
            if start and self.rules.starts_in_stealth(m):
                m.stealth = True
            self.journal.say(f"{m.name} ({self.tname(t)}) deploys")
            self.rules.on_deployed(m)

    def roll_initiative(self, kind: str) -> int:
        """Opposed affinity test between the teams (multi-way: most icons
        wins, ties among the leaders roll again)."""
        board, record_dice = self.board, self.journal.record_dice
        contenders = [t for t in range(self.n) if board.on_board(t)] or list(range(self.n))
        if len(contenders) == 1:
            return contenders[0]
        reps = {
            t: max(board.on_board(t) or board.team_models(t), key=lambda m: (len(m.ninja.affinities), -m.uid))
            for t in contenders
        }
        if len(contenders) == 2:
            a, b = contenders
            res = opposed_affinity_test(reps[a].ninja.affinities, reps[b].ninja.affinities, rng=self.rng)
            for rnd in res.rounds:
                record_dice(kind, reps[a].name, rnd.first.faces)
                record_dice(kind, reps[b].name, rnd.second.faces)
            return a if res.winner == "first" else b
        while True:
            scores = {}
            for t in contenders:
                test = affinity_test(reps[t].ninja.affinities, rng=self.rng)
                record_dice(kind, reps[t].name, test.faces)
                scores[t] = test.matches
            top = max(scores.values())
            contenders = [t for t in contenders if scores[t] == top]
            if len(contenders) == 1:
                return contenders[0]

    # -- the record ------------------------------------------------------------

    def result(self, ended_early: bool) -> SimResult:
        teams = tuple(
            team_record(team.team_id, self.score.points[t], self.board.team_models(t), self.sides[t].extra_all_stars)
            for t, team in enumerate(self.teams)
        )
        rounds = self.journal.round
        notes = (f"simulated {self.challenge.name}", f"rounds played: {rounds}")
        return SimResult(
            record=MatchRecord(teams=teams, notes=notes),
            log=tuple(self.journal.log),
            dice=tuple(self.journal.dice),
            rounds_played=rounds,
            ended_early=ended_early,
            injuries=tuple(self.journal.injuries),
        )
