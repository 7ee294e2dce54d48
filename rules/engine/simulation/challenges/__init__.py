"""The eight challenges: their catalog figures (:class:`SimChallenge`, :data:`CHALLENGES`) and
their rules in play, one class each (:data:`RULES`; the hooks are :class:`.base.Challenge`'s).

| module | challenge |
|---|---|
| :mod:`.brawl` | Brawl |
| :mod:`.assassination` | Assassination |
| :mod:`.champion` | Champion |
| :mod:`.messenger` | Intercept the Messenger |
| :mod:`.king_of_the_hill` | King of the Hill |
| :mod:`.infiltration` | Infiltration (medals and sentries from :mod:`.objectives`) |
| :mod:`.search` | Search (sentries from :mod:`.objectives`) |
| :mod:`.capture_the_medal` | Capture the Medal (medals from :mod:`.objectives`) |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .assassination import Assassination
from .base import Challenge
from .brawl import Brawl
from .capture_the_medal import CaptureTheMedal
from .champion import Champion
from .infiltration import Infiltration
from .king_of_the_hill import KingOfTheHill
from .messenger import InterceptTheMessenger
from .search import Search

__all__ = ["CHALLENGES", "RULES", "Challenge", "SimChallenge", "rules_for"]


@dataclass(frozen=True)
class SimChallenge:
    """A challenge as the simulator needs it (from the catalog entry)."""

    slug: str
    name: str
    ninjas_allowed: int
    rounds: int
    xp_award_keys: tuple[str, ...] = ()

    @classmethod
    def from_catalog(cls, entry: Mapping) -> SimChallenge:
        return cls(
            slug=entry["slug"],
            name=entry["name"],
            ninjas_allowed=int(entry["ninjas_allowed"]),
            rounds=int(entry["rounds"]),
            xp_award_keys=tuple(a["key"] for a in entry.get("xp_awards", ())),
        )


#: The eight challenges (same figures as rules/data/catalog.json; a test
#: checks they agree).
CHALLENGES: dict[str, SimChallenge] = {
    c.slug: c
    for c in (
        SimChallenge("assassination", "Assassination", 6, 7, ("injure_vip",)),
        SimChallenge(
            "intercept-the-messenger",
            "Intercept the Messenger",
            7,
            9,
            ("injure_messenger", "messenger_escapes"),
        ),
        SimChallenge("champion", "Champion", 7, 8, ("chosen_champion",)),
        SimChallenge("king-of-the-hill", "King of the Hill", 6, 8, ("team_scores_in_area",)),
        SimChallenge("infiltration", "Infiltration", 6, 8, ("pick_up_medal", "medal_to_deployment")),
        SimChallenge("brawl", "Brawl", 7, 6, ("injure_enemy",)),
        SimChallenge("search", "Search", 7, 9, ("check_crate", "find_objective")),
        SimChallenge(
            "capture-the-medal",
            "Capture the Medal",
            7,
            9,
            ("pick_up_medal", "return_own_medal", "capture_enemy_medal"),
        ),
    )
}


#: The rules of each challenge, by slug.
RULES: dict[str, type[Challenge]] = {
    cls.slug: cls
    for cls in (
        Assassination,
        InterceptTheMessenger,
        Champion,
        KingOfTheHill,
        Infiltration,
        Brawl,
        Search,
        CaptureTheMedal,
    )
}


def rules_for(slug: str) -> type[Challenge]:
    """The class that plays the challenge ``slug``; a challenge the simulator does not know is
    played without objectives or points (:class:`.base.Challenge`)."""
    return RULES.get(slug, Challenge)
