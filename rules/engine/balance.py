"""The balance study: how often the stronger team wins, by rating gap, with and without each part of
the underdog bonus, per challenge (issue 18; docs/simulation.md, "Balance study").

Pure: the rosters come in as catalog entries (rules/data/catalog.json shape), every game's dice from
``random.Random(f"{seed}:{challenge}:{gap}:{game}")`` — the same games for every bonus variant
(common random numbers), so the variants differ only by the bonus. The stronger team is the starting
roster with ``gap`` advancements from :data:`LADDER` (each +1 rating, "Team Rating"); the underdog is
the same roster without them. Games alternate which team is listed (and acts) first.

Bonus variants (``UnderdogBonus`` parts, rulebook "Team Rating"): ``none``; ``all``; ``rerolls``
(reroll tokens only); ``moon`` (Moon Power tokens only); ``all-stars`` (extra All-Star awards only:
they change who gets XP after the game, never the game, so its win rate equals ``none`` by
construction — the study plays it to show it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .league import NinjaSnapshot, TeamSnapshot, UnderdogBonus, team_rating, underdog_bonuses
from .simulation import CHALLENGES, LEVELS, SimNinja, SimTeam, simulate_match
from .stats import wilson_interval

#: The underdog's roster (Clan Yamazaru, 96 koban): (profile slug, chosen ability).
ROSTER: tuple[tuple[str, str | None], ...] = (
    ("yamazaru-chunin", "Yama Fist"),
    ("yamazaru-kaiken", None),
    ("yamazaru-kaiken", None),
    ("yamazaru-kaiken", None),
    ("yamazaru-kaiken", None),
    ("yamazaru-madoushi", "Healing Herbs"),
    ("yamazaru-kunoichi", None),
    ("yamazaru-yajiri", None),
)

#: The stronger team's advancements, in the order it earned them: (roster index, change). The first
#: ten are the Brawl benchmark's veterans (benchmarks/simulate_brawls.py).
LADDER: tuple[tuple[int, dict], ...] = (
    (0, {"attack": 1}),
    (1, {"attack": 1}),
    (3, {"attack": 1}),
    (2, {"defense": 1}),
    (6, {"defense": 1}),
    (0, {"extra_keywords": ["Dauntless"]}),
    (1, {"extra_keywords": ["Guard"]}),
    (2, {"extra_keywords": ["Close Combat Master"]}),
    (4, {"extra_keywords": ["Focus"]}),
    (5, {"extra_keywords": ["Tough"]}),
    (4, {"attack": 1}),
    (7, {"extra_keywords": ["Accurate"]}),
    (3, {"extra_keywords": ["Combined Attack"]}),
    (6, {"attack": 1}),
    (1, {"defense": 1}),
    (0, {"defense": 1}),
    (2, {"attack": 1}),
    (3, {"extra_keywords": ["Tora's Claws"]}),
    (4, {"defense": 1}),
    (5, {"extra_keywords": ["Guard"]}),
)

VARIANTS = ("none", "all", "rerolls", "moon", "all-stars")


def bonus_part(bonus: UnderdogBonus, variant: str) -> UnderdogBonus | None:
    """The underdog's bonus with only ``variant``'s part kept (None for ``none``)."""
    if variant == "none":
        return None
    if variant == "all":
        return bonus
    keep = {
        "rerolls": dict(moon_power_tokens=0, extra_all_star_awards=0),
        "moon": dict(reroll_tokens=0, extra_all_star_awards=0),
        "all-stars": dict(reroll_tokens=0, moon_power_tokens=0),
    }[variant]
    return replace(bonus, **keep)


def ladder_changes(steps: Iterable[tuple[int, dict]]) -> list[dict]:
    """The advancements ``steps`` ((roster index, change) pairs, as :data:`LADDER`) merged into one
    ``SimNinja.from_profile`` change dict per :data:`ROSTER` entry."""
    changes: list[dict] = [{} for _ in ROSTER]
    for index, change in steps:
        merged = changes[index]
        for key, value in change.items():
            merged[key] = merged.get(key, 0 if key != "extra_keywords" else []) + value
    return changes


def roster_team(profiles: Mapping[str, Mapping], team_id: int, changes: Sequence[dict], name: str) -> SimTeam:
    """:data:`ROSTER` as a team with ``changes`` (one dict per entry); ninja ids ``team_id * 100 + i``."""
    ninjas = [
        SimNinja.from_profile(
            profiles[slug],
            ninja_id=team_id * 100 + i,
            name=f"{profiles[slug]['name']} {team_id}.{i}",
            abilities=[ability] if ability else None,
            **changes[i],
        )
        for i, (slug, ability) in enumerate(ROSTER)
    ]
    return SimTeam(team_id, tuple(ninjas), name)


def roster_rating(profiles: Mapping[str, Mapping], changes: Sequence[dict]) -> int:
    """The team rating ("Team Rating": koban cost plus one a advancement) of :data:`ROSTER` with ``changes``."""
    return team_rating(
        TeamSnapshot(
            tuple(
                NinjaSnapshot(
                    koban_cost=profiles[slug]["koban"],
                    advancements=change.get("attack", 0)
                    + change.get("defense", 0)
                    + len(change.get("extra_keywords", ())),
                )
                for (slug, _), change in zip(ROSTER, changes, strict=True)
            )
        )
    )


def build_teams(profiles: Mapping[str, Mapping], gap: int) -> tuple[SimTeam, SimTeam]:
    """(stronger, underdog): the roster with the first ``gap`` advancements of :data:`LADDER`, and
    without; team ids 1 and 2."""
    if not 0 <= gap <= len(LADDER):
        raise ValueError(f"gap must lie between 0 and {len(LADDER)}")
    stronger = roster_team(profiles, 1, ladder_changes(LADDER[:gap]), "stronger")
    return stronger, roster_team(profiles, 2, ladder_changes(()), "underdog")


@dataclass(frozen=True)
class Cell:
    """One point of the study: the stronger team's results over ``games``."""

    challenge: str
    gap: int
    variant: str
    level: str
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the stronger team's win rate."""
        return wilson_interval(self.wins, self.games)

    def as_dict(self) -> dict:
        low, high = self.interval
        return {
            "challenge": self.challenge,
            "gap": self.gap,
            "variant": self.variant,
            "level": self.level,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 4),
            "low": round(low, 4),
            "high": round(high, 4),
        }


@dataclass(frozen=True)
class StudyPlan:
    """What to play: every (challenge, gap, variant, level) cell with ``games`` games."""

    challenges: tuple[str, ...] = tuple(sorted(CHALLENGES))
    gaps: tuple[int, ...] = (0, 5, 10, 20)
    variants: tuple[str, ...] = VARIANTS
    levels: tuple[str, ...] = ("cautious",)
    games: int = 40
    seed: int = 1

    def __post_init__(self) -> None:
        unknown = [c for c in self.challenges if c not in CHALLENGES]
        unknown += [v for v in self.variants if v not in VARIANTS]
        unknown += [lv for lv in self.levels if lv not in LEVELS]
        if unknown:
            raise ValueError(f"unknown: {', '.join(unknown)}")
        if self.games < 1 or any(not 0 <= g <= len(LADDER) for g in self.gaps):
            raise ValueError("games must be positive and gaps within the ladder")

    @property
    def total(self) -> int:
        return len(self.challenges) * len(self.gaps) * len(self.variants) * len(self.levels) * self.games


def run_study(
    profiles: Mapping[str, Mapping],
    plan: StudyPlan,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[Cell]:
    """Play the plan; ``progress(done, total)`` after every game."""
    cells, done = [], 0
    for challenge in plan.challenges:
        for gap in plan.gaps:
            strong, weak = build_teams(profiles, gap)
            bonus = underdog_bonuses([gap, 0])[1]  # the same roster: the ratings differ by the gap
            for level in plan.levels:
                sides = [LEVELS[level], LEVELS[level]]
                for variant in plan.variants:
                    part = bonus_part(bonus, variant)
                    tally = {"win": 0, "draw": 0, "loss": 0}
                    for game in range(plan.games):
                        first_strong = game % 2 == 0
                        teams = [strong, weak] if first_strong else [weak, strong]
                        underdog = None
                        if part is not None:
                            none = replace(part, reroll_tokens=0, moon_power_tokens=0, extra_all_star_awards=0)
                            underdog = [none, part] if first_strong else [part, none]
                        rng = random.Random(f"{plan.seed}:{challenge}:{gap}:{game}")
                        result = simulate_match(
                            teams, CHALLENGES[challenge], rng=rng, underdog=underdog, side_policies=sides
                        )
                        tally[result.record.outcome_for(1)] += 1
                        done += 1
                        if progress is not None:
                            progress(done, plan.total)
                    cells.append(
                        Cell(challenge, gap, variant, level, plan.games, tally["win"], tally["draw"], tally["loss"])
                    )
    return cells


def flips(cells: Iterable[Cell]) -> list[tuple[str, int, str, str]]:
    """(challenge, gap, variant, level) where the stronger team, winning more than it loses without
    bonuses, loses more than it wins with the variant's bonus."""
    index = {(c.challenge, c.gap, c.variant, c.level): c for c in cells}
    out = []
    for (challenge, gap, variant, level), cell in sorted(index.items()):
        base = index.get((challenge, gap, "none", level))
        if variant == "none" or base is None or gap == 0:
            continue
        if base.wins > base.losses and cell.losses > cell.wins:
            out.append((challenge, gap, variant, level))
    return out


def summary_rows(cells: Sequence[Cell]) -> list[dict]:
    return [c.as_dict() for c in cells]
