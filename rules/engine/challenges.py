"""Challenge rules the app needs outside the simulator (rulebook: "Challenges"; the challenges
wiki transcription in ``shared/seeds``): who starts in Stealth, the Brawl's winning score, the
Champion's XP award.

Rulings are in docs/rulings.md ("Stealth at set-up").
"""

from __future__ import annotations

from enum import Enum

__all__ = [
    "BRAWL_WINNING_SCORE",
    "CHAMPION_AWARD",
    "INJURY_AWARD",
    "SNEAKY",
    "SetupStealth",
    "SETUP_STEALTH",
    "setup_stealth",
    "starts_in_stealth",
]

#: Brawl: "If one team scores nine points, it wins immediately and the challenge is over."
BRAWL_WINNING_SCORE = 9

#: The Champion challenge's XP award key ("Whenever a model is chosen as a Champion, it gets 2
#: XP"): a record that gives it to a model says that model was chosen as its team's Champion.
CHAMPION_AWARD = "chosen_champion"

#: Brawl's XP award: "Each time a model Injures an enemy model, it gets 1 XP. When a chunin
#: injures a non-chunin, it does not receive this additional XP." For a non-chunin it counts the
#: same Injuries as the Injuries XP, so the result form fills it from them (issue 13).
INJURY_AWARD = "injure_enemy"

#: "A model with Sneaky begins the game in Stealth, regardless of the challenge's special rules."
SNEAKY = "Sneaky"


class SetupStealth(str, Enum):
    """Which of a team's models start the game in Stealth, by the challenge's Setup line."""

    #: No Setup line about Stealth (only Sneaky models start in Stealth).
    NONE = "none"
    #: "All small-base models start the game in Stealth." (Intercept the Messenger, King of the
    #: Hill, Capture the Medal)
    SMALL_BASE = "small_base"
    #: Infiltration and Search. Rulebook: "All models start the game in Stealth."; challenges wiki:
    #: "All non-sentry models start the game in Stealth." Ruling: the wiki -- every model of every
    #: team, small or large base, and never a sentry.
    NON_SENTRY = "non_sentry"


#: Setup Stealth by challenge slug (challenges not listed: :attr:`SetupStealth.NONE`).
SETUP_STEALTH: dict[str, SetupStealth] = {
    "intercept-the-messenger": SetupStealth.SMALL_BASE,
    "king-of-the-hill": SetupStealth.SMALL_BASE,
    "capture-the-medal": SetupStealth.SMALL_BASE,
    "infiltration": SetupStealth.NON_SENTRY,
    "search": SetupStealth.NON_SENTRY,
}


def setup_stealth(challenge_slug: str | None) -> SetupStealth:
    """The challenge's Setup rule for Stealth (``None``: no challenge chosen yet)."""
    return SETUP_STEALTH.get(challenge_slug or "", SetupStealth.NONE)


def starts_in_stealth(
    challenge_slug: str | None,
    *,
    keywords: frozenset[str] | set[str] | tuple[str, ...] = (),
    large_base: bool = False,
    sentry: bool = False,
) -> bool:
    """Does a model deployed at set-up start the game in Stealth?

    * Sneaky: always ("regardless of the challenge's special rules") -- a sentry has no keywords.
    * Infiltration and Search: every non-sentry model (ruling: the challenges wiki's wording).
    * Intercept the Messenger, King of the Hill, Capture the Medal: small-base models only.
    * Any other challenge: nobody else.

    Reinforcements deployed later do not start the game, so they never get this Stealth.
    """
    if sentry:
        return False
    if SNEAKY in keywords:
        return True
    rule = setup_stealth(challenge_slug)
    if rule is SetupStealth.NON_SENTRY:
        return True
    if rule is SetupStealth.SMALL_BASE:
        return not large_base
    return False
