"""Recruitment ("Building Teams"; Appendix "Hero", "Ronin"): who a team may recruit, and whether
its roster meets the allowances.

* "A player must choose a single clan, and may only recruit ninja from the chosen clan.
  Additionally, players may recruit Ronin, mercenaries that will join any clan."
* "Each type of model has an Allowance ... The lower number is the minimum number of models of
  that type that must be recruited for the team to be legal. The higher number is the maximum
  number of models of that type that may be on the team."
* Hero: "Duplicates of the same Hero may not be recruited to the same team." Ronin "follow all of
  the rules for models with Hero".
* "If the entry specifies that the model chooses a specific number of the special abilities
  listed, the player must choose the abilities when the model is recruited."

Ids and clans are opaque keys (the app uses primary keys).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "HERO_KINDS",
    "allowance_text",
    "RecruitProfile",
    "RecruitTeam",
    "ChosenAbility",
    "RecruitCheck",
    "recruit_check",
    "roster_problems",
]

#: Profile kinds that are unique on a team (a ronin follows every rule for a Hero).
HERO_KINDS = frozenset({"hero", "ronin"})


@dataclass(frozen=True)
class RecruitProfile:
    """A recruitable model type. ``label`` names it with its clan ("Tora Kaiken"), ``name`` alone."""

    key: Hashable
    name: str
    kind: str
    koban: int
    clan_key: Hashable | None = None
    label: str = ""
    allowance_min: int | None = None
    allowance_max: int | None = None
    choose_abilities: int = 0

    @property
    def is_unique(self) -> bool:
        """A hero or a ronin: at most one on a team."""
        return self.kind in HERO_KINDS

    @property
    def allowance_display(self) -> str:
        return allowance_text(self.allowance_min, self.allowance_max)


@dataclass(frozen=True)
class RecruitTeam:
    """What recruitment needs of a team: its clan, treasury and active models per profile key."""

    clan_key: Hashable
    clan_name: str
    treasury: int
    counts: Mapping[Hashable, int]

    def has(self, profile: RecruitProfile) -> int:
        return self.counts.get(profile.key, 0)


@dataclass(frozen=True)
class ChosenAbility:
    """A special ability picked at recruitment, with the key of the profile it belongs to."""

    name: str
    profile_key: Hashable


@dataclass(frozen=True)
class RecruitCheck:
    """Whether ``profile`` may be recruited now: ``full`` (allowance reached, or the hero or ronin
    is already on the team), ``affordable``, and every reason it may not (``problems``)."""

    have: int
    full: bool
    affordable: bool
    problems: tuple[str, ...]

    @property
    def allowed(self) -> bool:
        return not self.problems


def allowance_text(lo: int | None, hi: int | None) -> str:
    """An allowance as printed: "2-4", "1", or "unique" for a model without one (heroes, ronin)."""
    if lo is None:
        return "unique"
    if lo == hi:
        return str(lo)
    return f"{lo}-{hi}"


def _abilities_phrase(n: int) -> str:
    return f"{n} special abilit{'y' if n == 1 else 'ies'}"


def recruit_check(
    team: RecruitTeam, profile: RecruitProfile, *, chosen_abilities: Sequence[ChosenAbility] | None = None
) -> RecruitCheck:
    """May ``team`` recruit one more ``profile``?

    ``chosen_abilities=None`` leaves the ability choice out (it is made in the recruit form);
    otherwise they must be exactly ``profile.choose_abilities`` of the profile's own abilities.
    """
    problems: list[str] = []
    have = team.has(profile)
    if profile.kind != "ronin" and profile.clan_key != team.clan_key:
        problems.append(
            f"{profile.label or profile.name} is not of clan {team.clan_name}; "
            "a team recruits only its own clan's ninja, plus ronin."
        )
    if profile.is_unique:
        full = have >= 1
        if full:
            problems.append(f"{profile.name} is already on the team; a hero or ronin can be recruited only once.")
    else:
        full = profile.allowance_max is not None and have >= profile.allowance_max
        if full:
            problems.append(
                f"The allowance for {profile.name} is {profile.allowance_display}: the team already has {have}."
            )
    if chosen_abilities is not None:
        n = profile.choose_abilities
        if n:
            own = [a for a in chosen_abilities if a.profile_key == profile.key]
            distinct = {a.name for a in own}
            if len(own) != len(chosen_abilities) or len(distinct) != len(chosen_abilities) or len(own) != n:
                problems.append(f"Choose {_abilities_phrase(n)} for the {profile.name}.")
        elif chosen_abilities:
            problems.append(f"The {profile.name} has all its abilities; nothing to choose.")
    affordable = profile.koban <= team.treasury
    if not affordable:
        problems.append(
            f"Not enough koban: the {profile.name} costs {profile.koban} and the treasury holds {team.treasury}."
        )
    return RecruitCheck(have=have, full=full, affordable=affordable, problems=tuple(problems))


def roster_problems(team: RecruitTeam, clan_profiles: Sequence[RecruitProfile]) -> list[str]:
    """Allowances the roster does not meet (empty when it is legal): at least the minimum and at
    most the maximum of each of the clan's model types. Heroes have no allowance (they are unique)."""
    problems = []
    for profile in clan_profiles:
        if profile.is_unique:
            continue
        have = team.has(profile)
        lo, hi = profile.allowance_min or 0, profile.allowance_max
        if have < lo:
            need = "exactly" if lo == hi else "at least"
            problems.append(f"{profile.name}: the team needs {need} {lo} and has {have}.")
        elif hi is not None and have > hi:
            problems.append(f"{profile.name}: the team may have at most {hi} and has {have}.")
    return problems
