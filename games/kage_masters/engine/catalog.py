"""What the Kage Masters rulebook lists, transcribed for the rules page (KM l.N): the components,
the Kage dice's abilities and the game without Location Cards."""

from __future__ import annotations

__all__ = ["COMPONENTS", "KAGE_ABILITIES", "MISSING", "NO_LOCATION_ROUNDS", "ROUNDS"]

#: The game has 3 rounds; in a round each player takes one turn as the Active Ninja (KM l.20).
ROUNDS = 3

#: The box's components as the rules sheet lists them (KM l.12-18).
COMPONENTS: tuple[str, ...] = (
    "5 Kage Master Dice",
    "5 Kage Master Cards",
    "18 Location Cards",
    "18 Tokens (9 Poison, 9 Fire)",
    "1 Rules Sheet",
    "a copy of Ninja Dice (needed to play)",
)

#: The Kage dice's abilities (KM l.79-83); "OR": choose one of the two.
KAGE_ABILITIES: tuple[tuple[str, str], ...] = (
    (
        "Poison",
        "Lock one Poison Token to a targeted House Die to Fight all Guards and Residents on that die. "
        "Immediately collect its reward. It has no reward after. OR Counts as an Arrow.",
    ),
    (
        "Chain",
        "Counts as a 2x multiplier when saved with a targeted Fight or Hourglass. OR Counts as an Arrow. "
        "The chain icon shown has only 90° targeting.",
    ),
    (
        "Fire",
        "Lock a Fire Token to one targeted House Die. That die has no reward. Fire Tokens count as one Wild "
        "on your turn. AND Anyone targeting this die returns one coin to the bank, even if they rolled a Block.",
    ),
    (
        "Bribe",
        "Lock a coin from the bank to count as a Bribe Token on targeted House Die. Double or halve that "
        "die's reward. You earn half that reward on other players' turns, if they beat the die. Round down. "
        "OR Counts as an Arrow.",
    ),
    (
        "Mimic",
        "Copy a targeted Kage Die's ability, using the targeting area of this die. OR Reroll targeted "
        "Hourglass. You use the effects of that die instead of its original roller.",
    ),
)

#: Playing without Location Cards: (round, House dice, bonus coins for beating the whole House)
#: (KM l.40-44).
NO_LOCATION_ROUNDS: tuple[tuple[int, int, int], ...] = ((1, 4, 1), (2, 5, 2), (3, 6, 3))

#: What the rules sheet does not give (so no game can be simulated die by die).
MISSING: tuple[str, ...] = (
    "the 18 Location Cards' texts and rewards",
    "the faces of the House, Skill, Threat and Kage dice",
    "the Kage Master cards' texts (the masters are named only in the worked example)",
)
