"""Scoring: the points on the table, the All-Star picks, the match record and the result.

What scores in each challenge is the challenge's business (:mod:`.challenges`); this module keeps
the count, ends the match when a challenge's winning score is reached, and writes the record a
player would enter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..records import MatchRecord, NinjaRecord, TeamRecord
from .board import HEALING, Model
from .journal import DiceRecord, InjuryEvent, Journal


class Scoreboard:
    """Points per team (in team order). ``win_at``: a score that wins at once (Brawl: nine),
    checked on every point scored; ``winner`` is the first team to reach it."""

    def __init__(self, names: Sequence[str], journal: Journal, *, win_at: int | None = None) -> None:
        self.names = list(names)
        self.journal = journal
        self.win_at = win_at
        self.points = [0] * len(self.names)
        self.winner: int | None = None

    def add(self, t: int, pts: int, why: str) -> None:
        if pts <= 0:
            return
        self.points[t] += pts
        self.journal.say(f"{self.names[t]} scores {pts} ({why}); points {self.points}")
        if self.win_at is not None and self.points[t] >= self.win_at and self.winner is None:
            self.winner = t


def all_star_awards(team_models: Sequence[Model], extra_awards: int) -> Counter:
    """One All-Star per team plus the underdog's extra awards, among the
    models that were on the board: most feats first, XP earners before
    Heroes/Ronin (who earn no XP), never the same model twice while
    another candidate is left.  Returns ``{uid: awards}``."""
    played = [m for m in team_models if m.played]
    awards: Counter = Counter()
    if not played:
        return awards

    def merit(m: Model) -> tuple:
        feats = 2 * m.injuries + m.chunin_stuns + m.reveals + sum(m.feats.values())
        return (not m.ninja.is_hero, feats, m.ninja.attack, -m.uid)

    ranked = sorted(played, key=merit, reverse=True)
    for i in range(1 + extra_awards):
        awards[ranked[i % len(ranked)].uid] += 1
    return awards


def team_record(team_id: int, points: int, team_models: Sequence[Model], extra_awards: int) -> TeamRecord:
    stars = all_star_awards(team_models, extra_awards)
    ninjas = tuple(
        NinjaRecord(
            ninja_id=m.ninja.ninja_id,
            played=m.played,
            injuries=m.injuries,
            chunin_stuns=m.chunin_stuns,
            reveals=m.reveals,
            challenge_feats={k: v for k, v in sorted(m.feats.items()) if v},
            in_healing_house=m.where == HEALING,
            all_star_awards=stars.get(m.uid, 0),
        )
        for m in team_models
    )
    return TeamRecord(team_id=team_id, points=points, ninjas=ninjas)


@dataclass(frozen=True)
class SimResult:
    """``record``: the match record for the post-game sequence; ``log``: one
    line per event; ``dice``: every die rolled, in order; ``injuries``: every
    Injury; ``winner_team_ids``: the teams with the most points."""

    record: MatchRecord
    log: tuple[str, ...]
    dice: tuple[DiceRecord, ...]
    rounds_played: int = 0
    ended_early: bool = False
    injuries: tuple[InjuryEvent, ...] = ()

    @property
    def winner_team_ids(self) -> tuple[int, ...]:
        top = max(t.points for t in self.record.teams)
        return tuple(t.team_id for t in self.record.teams if t.points == top)
