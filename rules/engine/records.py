"""The match record: what a player enters after a game, or what the simulator produces.

Both go through the same post-game sequence (matches.services), so they share this shape.
Ids are opaque (the app uses Ninja/Team primary keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class NinjaRecord:
    ninja_id: int
    played: bool = True
    injuries: int = 0
    chunin_stuns: int = 0
    reveals: int = 0
    challenge_feats: dict[str, int] = field(default_factory=dict)
    in_healing_house: bool = False
    all_star_awards: int = 0


@dataclass(frozen=True)
class TeamRecord:
    team_id: int
    points: int
    ninjas: tuple[NinjaRecord, ...] = ()


@dataclass(frozen=True)
class MatchRecord:
    teams: tuple[TeamRecord, ...]
    notes: tuple[str, ...] = ()

    def outcome_for(self, team_id: int) -> str:
        """win / draw / loss from points: the most points wins; equal top points draw."""
        top = max(t.points for t in self.teams)
        mine = next(t.points for t in self.teams if t.team_id == team_id)
        leaders = sum(1 for t in self.teams if t.points == top)
        if mine < top:
            return "loss"
        return "draw" if leaders > 1 else "win"
