"""League rules as pure functions (rulebook: "Leagues", "Downtime",
"Experience", "Advancement Rolls", "Revenue", "Team Rating",
"Random Challenge Generator", Appendix "Keyword Abilities")."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .dice import ELEMENTS, Element, parse_faces, roll_dice, roll_die

__all__ = [
    # experience
    "XpLevel",
    "XP_LEVELS",
    "xp_level",
    "levels_gained",
    "XpAward",
    "match_xp",
    "ALL_STAR_XP",
    # team rating / underdog / revenue
    "NinjaSnapshot",
    "TeamSnapshot",
    "team_rating",
    "ronin_upkeep",
    "UnderdogBonus",
    "underdog_bonus",
    "underdog_bonuses",
    "RevenueBreakdown",
    "revenue",
    "WIN_KOBAN",
    "LOSS_KOBAN",
    "DEFAULT_DRAW_KOBAN",
    "SHREWD_NEGOTIATOR_KOBAN",
    "SHREWD_NEGOTIATOR_PROFILE",
    "MAX_BONUS_KOBAN",
    "MAX_BONUS_KOBAN_LIMIT",
    "STARTING_KOBAN",
    # downtime
    "DowntimeOutcome",
    "downtime_effect",
    "roll_downtime",
    # advancement
    "AdvancementRoll",
    "AdvancementOption",
    "roll_advancement",
    "advancement_options",
    "DOUBLES_RESULTS",
    "GENERAL_CATEGORY",
    "UNIQUE_CATEGORY",
    # random challenge
    "ChallengeDraw",
    "CHALLENGE_TABLE",
    "challenge_column",
    "challenge_for",
    "random_challenge",
]

# ---------------------------------------------------------------------------
# Experience ("Experience", "Advancement Rolls")
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class XpLevel:
    """One row of the experience chart; ``max_xp`` is ``None`` for the top."""

    rank: int
    name: str
    min_xp: int
    max_xp: int | None


#: The experience chart ("Advancement Rolls").
XP_LEVELS: tuple[XpLevel, ...] = (
    XpLevel(0, "New Recruit", 0, 7),
    XpLevel(1, "Experienced", 8, 21),
    XpLevel(2, "Veteran", 22, 42),
    XpLevel(3, "Shinobi", 43, 70),
    XpLevel(4, "Clan Champion", 71, 105),
    XpLevel(5, "Infamous", 106, 245),
    XpLevel(6, "Legendary", 246, None),
)


def xp_level(xp: int) -> XpLevel:
    """The experience level for a total of ``xp`` XP ("Advancement Rolls":
    0-7 New Recruit, 8-21 Experienced, 22-42 Veteran, 43-70 Shinobi, 71-105
    Clan Champion, 106-245 Infamous, 246+ Legendary)."""
    if xp < 0:
        raise ValueError(f"XP cannot be negative: {xp}")
    for level in reversed(XP_LEVELS):
        if xp >= level.min_xp:
            return level
    raise AssertionError("unreachable")  # pragma: no cover


def levels_gained(old_xp: int, new_xp: int) -> list[XpLevel]:
    """Levels newly reached going from ``old_xp`` to ``new_xp`` XP.

    *Whenever a model makes it to a new experience level, it makes an
    advancement roll* -- so the length of the list is the number of
    advancement rolls owed.  A model can cross two levels in one game
    (e.g. 6 -> 23 XP reaches Experienced and Veteran: two rolls).
    """
    if new_xp < old_xp:
        raise ValueError(f"XP cannot go down ({old_xp} -> {new_xp})")
    old, new = xp_level(old_xp), xp_level(new_xp)
    return list(XP_LEVELS[old.rank + 1 : new.rank + 1])


@dataclass(frozen=True)
class XpAward:
    """XP one model earned in one game, by source ("Earning XP")."""

    injuries: int
    chunin_stuns: int
    reveals: int
    all_star: int
    challenge: int

    @property
    def total(self) -> int:
        """Total XP earned."""
        return self.injuries + self.chunin_stuns + self.reveals + self.all_star + self.challenge


#: XP for each Ninja All-Star award ("Earning XP").
ALL_STAR_XP = 3


def match_xp(
    injuries: int = 0,
    chunin_stuns: int = 0,
    reveals: int = 0,
    all_star_awards: int = 0,
    challenge_xp: int = 0,
    *,
    is_chunin: bool = False,
    is_hero: bool = False,
    is_ronin: bool = False,
) -> XpAward:
    """XP a model earns in one game ("Earning XP").

    * Injuries: 1 XP each time it Injures an enemy model.
    * Stunning a Chunin: 1 XP each time a *non-chunin* Stuns a chunin
      (ignored when ``is_chunin``).
    * Reveal: 1 XP per successful search that removes an enemy's Stealth.
    * Ninja All-Star: 3 XP per award (the underdog may hand out extra
      awards, see :func:`underdog_bonuses`).
    * ``challenge_xp``: the challenge's "Additional XP Awarded", already
      totted up by the caller.
    * Heroes and Ronin *cannot gain XP* (Appendix "Hero", "Ronin"): all 0.
    """
    for name, value in (
        ("injuries", injuries),
        ("chunin_stuns", chunin_stuns),
        ("reveals", reveals),
        ("all_star_awards", all_star_awards),
        ("challenge_xp", challenge_xp),
    ):
        if value < 0:
            raise ValueError(f"{name} cannot be negative: {value}")
    if is_hero or is_ronin:
        return XpAward(0, 0, 0, 0, 0)
    return XpAward(
        injuries=injuries,
        chunin_stuns=0 if is_chunin else chunin_stuns,
        reveals=reveals,
        all_star=ALL_STAR_XP * all_star_awards,
        challenge=challenge_xp,
    )


# ---------------------------------------------------------------------------
# Team rating, underdog bonuses, revenue ("Team Rating", "Revenue")
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NinjaSnapshot:
    """What team rating needs to know about one model on the roster.

    ``koban_cost`` is the recruitment cost (for a Ronin "16/5" it is 16;
    ``upkeep`` is the 5 after the slash).  ``advancements`` counts the
    advancements the model has earned: every advancement roll it made,
    whether its result is chosen yet or not.
    """

    koban_cost: int
    is_hero: bool = False
    is_ronin: bool = False
    advancements: int = 0
    upkeep: int = 0
    name: str = ""


@dataclass(frozen=True)
class TeamSnapshot:
    """A team roster at a point in time."""

    ninjas: tuple[NinjaSnapshot, ...]
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "ninjas", tuple(self.ninjas))


def team_rating(team: TeamSnapshot) -> int:
    """Team rating ("Team Rating"): total koban value of the models // 10
    (rounded down), +1 per advancement earned by its ninja ("add +1 for each
    advancement that ninja on the team have earned": every advancement roll
    earned counts, chosen or still pending), +1 per Hero or Ronin (a model
    counts once even if it is both).  The treasury is not part of the rating."""
    koban = sum(n.koban_cost for n in team.ninjas)
    advancements = sum(n.advancements for n in team.ninjas)
    heroes = sum(1 for n in team.ninjas if n.is_hero or n.is_ronin)
    return koban // 10 + advancements + heroes


def ronin_upkeep(team: TeamSnapshot) -> int:
    """Koban owed after a game to keep every Ronin (Appendix "Ronin": paid
    after each game, before downtime rolls, even if the Ronin missed it)."""
    return sum(n.upkeep for n in team.ninjas if n.is_ronin)


#: Bonus koban cap ("Bonus Koban ... up to a maximum of six Koban").
MAX_BONUS_KOBAN = 6
#: The highest bonus koban cap a league may set as a house rule (docs/rulings.md): twice a win's
#: revenue, so an underdog's bonus never outweighs what the game itself pays.
MAX_BONUS_KOBAN_LIMIT = 20


@dataclass(frozen=True)
class UnderdogBonus:
    """Bonuses a team gets against the highest rated team ("Team Rating")."""

    rating: int
    difference: int
    reroll_tokens: int
    moon_power_tokens: int
    extra_all_star_awards: int
    bonus_koban: int


def underdog_bonus(
    rating: int, highest: int, *, enabled: bool = True, max_bonus_koban: int = MAX_BONUS_KOBAN
) -> UnderdogBonus:
    """Bonuses for a team rated ``rating`` against the top rating ``highest``:

    * one reroll token per point of difference;
    * one Moon Power token per full 10 points;
    * one additional Ninja All-Star award ("Bonus XP") per full 5 points;
    * bonus koban equal to the difference, at most 6 (``max_bonus_koban``).

    ``enabled=False`` (a master's house rule) gives no bonus; the difference is still reported.
    """
    if rating > highest:
        raise ValueError("rating is above the highest rating")
    if max_bonus_koban < 0:
        raise ValueError("max_bonus_koban cannot be negative")
    diff = highest - rating
    if not enabled:
        return UnderdogBonus(
            rating=rating, difference=diff, reroll_tokens=0, moon_power_tokens=0, extra_all_star_awards=0, bonus_koban=0
        )
    return UnderdogBonus(
        rating=rating,
        difference=diff,
        reroll_tokens=diff,
        moon_power_tokens=diff // 10,
        extra_all_star_awards=diff // 5,
        bonus_koban=min(diff, max_bonus_koban),
    )


def underdog_bonuses(
    ratings: Sequence[int], *, enabled: bool = True, max_bonus_koban: int = MAX_BONUS_KOBAN
) -> list[UnderdogBonus]:
    """Underdog bonuses for every team in a game, in the given order.

    *In a multi-player game, each team's rating is compared to the highest
    rated team's rating*; with two teams that is simply the other team.
    The top team (and any team tied with it) gets nothing.
    """
    if not ratings:
        return []
    highest = max(ratings)
    return [underdog_bonus(r, highest, enabled=enabled, max_bonus_koban=max_bonus_koban) for r in ratings]


#: "A player gets 100 koban to spend to recruit models for their team." ("Building Teams")
STARTING_KOBAN = 100
WIN_KOBAN = 10
LOSS_KOBAN = 6
#: Not in the rulebook (its table has only win and loss): league setting.
DEFAULT_DRAW_KOBAN = 8
#: Shojo's "Shrewd Negotiator".
SHREWD_NEGOTIATOR_KOBAN = 2
#: The catalog slug of the model with Shrewd Negotiator (Shojo, a ronin).
SHREWD_NEGOTIATOR_PROFILE = "shojo"


@dataclass(frozen=True)
class RevenueBreakdown:
    """Koban a team earns after a league game, by source ("Revenue")."""

    outcome: str
    base: int
    underdog_bonus: int
    shrewd_negotiator: int

    @property
    def total(self) -> int:
        """Total koban earned."""
        return self.base + self.underdog_bonus + self.shrewd_negotiator


def revenue(
    outcome: Literal["win", "loss", "draw"],
    *,
    win: int = WIN_KOBAN,
    loss: int = LOSS_KOBAN,
    draw: int = DEFAULT_DRAW_KOBAN,
    underdog_koban: int = 0,
    shojo_in_healing_house: bool = False,
    max_bonus_koban: int = MAX_BONUS_KOBAN,
) -> RevenueBreakdown:
    """Koban earned after a game ("Revenue": win 10, loss 6).

    The rulebook gives no revenue for a draw: ``draw`` is a league setting
    (default ruling 8, halfway between loss and win).  ``underdog_koban``
    is :attr:`UnderdogBonus.bonus_koban`, capped at ``max_bonus_koban`` here
    too (the rulebook's 6 unless the league's house rule says otherwise: pass
    the same cap as :func:`underdog_bonus` got).  Shojo's Shrewd Negotiator:
    *If Shojo is in the Healing House at the end of a game, her team makes
    two additional Koban.*
    """
    table = {"win": win, "loss": loss, "draw": draw}
    if outcome not in table:
        raise ValueError(f"outcome must be 'win', 'loss' or 'draw', not {outcome!r}")
    if underdog_koban < 0:
        raise ValueError("underdog koban cannot be negative")
    if max_bonus_koban < 0:
        raise ValueError("max_bonus_koban cannot be negative")
    return RevenueBreakdown(
        outcome=outcome,
        base=table[outcome],
        underdog_bonus=min(underdog_koban, max_bonus_koban),
        shrewd_negotiator=SHREWD_NEGOTIATOR_KOBAN if shojo_in_healing_house else 0,
    )


# ---------------------------------------------------------------------------
# Downtime ("Downtime")
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DowntimeOutcome:
    """Result of a downtime roll for one model that ended in the Healing
    House.  Exactly one of the effect fields is "on" for each face."""

    face: Element
    misses_games: int = 0
    starts_in_healing_house: bool = False
    xp_bonus: int = 0
    spares_another: bool = False
    no_effect: bool = False


def downtime_effect(face: Element | str) -> DowntimeOutcome:
    """The downtime table ("Downtime"):

    * Spirit: another model that ended the game in the Healing House does
      not need to roll and plays as normal next game (``spares_another``).
    * Void: cannot play in the next two games (``misses_games=2``).
    * Earth: no effect.
    * Air: starts the next game in the Healing House.
    * Water: gets 1 XP (``xp_bonus=1``).
    * Fire: cannot play in the next game (``misses_games=1``).
    """
    face = Element(face)
    if face is Element.SPIRIT:
        return DowntimeOutcome(face, spares_another=True)
    if face is Element.VOID:
        return DowntimeOutcome(face, misses_games=2)
    if face is Element.EARTH:
        return DowntimeOutcome(face, no_effect=True)
    if face is Element.AIR:
        return DowntimeOutcome(face, starts_in_healing_house=True)
    if face is Element.WATER:
        return DowntimeOutcome(face, xp_bonus=1)
    return DowntimeOutcome(face, misses_games=1)


def roll_downtime(*, rng: random.Random) -> DowntimeOutcome:
    """Roll one die on the downtime table for a model in the Healing House."""
    return downtime_effect(roll_die(rng=rng))


# ---------------------------------------------------------------------------
# Advancement ("Advancement Rolls", "New Keywords", "Rolling Doubles")
# ---------------------------------------------------------------------------

GENERAL_CATEGORY = "General"
UNIQUE_CATEGORY = "Unique"

#: Doubles column of the advancement table: (kind, attribute or None).
DOUBLES_RESULTS: dict[Element, tuple[str, str | None]] = {
    Element.SPIRIT: ("attribute", "defense"),
    Element.WATER: ("attribute", "defense"),
    Element.EARTH: ("affinity", None),
    Element.AIR: ("attribute", "movement"),
    Element.FIRE: ("attribute", "attack"),
    Element.VOID: ("attribute", "attack"),
}


@dataclass(frozen=True)
class AdvancementRoll:
    """The two dice of an advancement roll."""

    faces: tuple[Element, Element]

    @property
    def is_doubles(self) -> bool:
        """Both dice show the same element."""
        return self.faces[0] is self.faces[1]


@dataclass(frozen=True)
class AdvancementOption:
    """One thing a model may take from an advancement roll.

    ``kind`` is ``"keyword"`` (``keyword``/``category`` set),
    ``"attribute"`` (``attribute`` is ``"attack"``, ``"defense"`` or
    ``"movement"``, +1) or ``"affinity"`` (``affinity`` is the new element).
    ``doubles_only`` marks options only available because of doubles.
    """

    kind: Literal["keyword", "attribute", "affinity"]
    keyword: str | None = None
    category: str | None = None
    attribute: str | None = None
    affinity: Element | None = None
    doubles_only: bool = False


def roll_advancement(*, rng: random.Random) -> AdvancementRoll:
    """Roll the two advancement dice ("Roll two dice and choose one result")."""
    first, second = roll_dice(2, rng=rng)
    return AdvancementRoll(faces=(first, second))


def _norm(name: str) -> str:
    return name.strip().casefold()


def advancement_options(
    faces: AdvancementRoll | Sequence[Element | str],
    *,
    affinities: Iterable[Element | str],
    current_keywords: Collection[str],
    keyword_categories: Mapping[str, str],
) -> list[AdvancementOption]:
    """Everything the model may choose from this advancement roll.

    ``keyword_categories`` maps keyword name -> category (``"General"``,
    ``"Air"``, ..., ``"Unique"``), e.g. the Appendix keyword lists.

    * Every die gives "New Keyword": *any Keyword from the General category
      or a category that the model has as an Affinity*.
    * Doubles additionally allow the doubles result of that face (Spirit or
      Water +1 Defense, Earth an additional Affinity -- one option per
      element the model lacks, Air +1 Movement, Fire or Void +1 Attack) *or
      a Keyword from any category, except unique*.
    * Unique keywords can never be gained; keywords the model already has
      are excluded (*multiple instances of the same keyword are not
      allowed*); every keyword appears at most once.

    Order: doubles attribute/affinity options first, then keywords sorted
    by (category, name).  Both dice of a non-doubles roll give the same
    keyword choice, so they yield one list.
    """
    roll = (
        faces
        if isinstance(faces, AdvancementRoll)
        else AdvancementRoll(
            faces=tuple(parse_faces(faces))  # type: ignore[arg-type]
        )
    )
    if len(roll.faces) != 2:
        raise ValueError("an advancement roll has exactly two dice")
    owned_affinities = {Element(a) for a in affinities}
    affinity_categories = {_norm(a.value) for a in owned_affinities}
    owned = {_norm(k) for k in current_keywords}

    options: list[AdvancementOption] = []
    if roll.is_doubles:
        kind, attribute = DOUBLES_RESULTS[roll.faces[0]]
        if kind == "attribute":
            options.append(AdvancementOption(kind="attribute", attribute=attribute, doubles_only=True))
        else:
            options.extend(
                AdvancementOption(kind="affinity", affinity=e, doubles_only=True)
                for e in ELEMENTS
                if e not in owned_affinities
            )

    keywords: list[AdvancementOption] = []
    seen: set[str] = set()
    for keyword, category in keyword_categories.items():
        key, cat = _norm(keyword), _norm(category)
        if key in owned or key in seen or cat == _norm(UNIQUE_CATEGORY):
            continue
        normal = cat == _norm(GENERAL_CATEGORY) or cat in affinity_categories
        if not (normal or roll.is_doubles):
            continue
        seen.add(key)
        keywords.append(AdvancementOption(kind="keyword", keyword=keyword, category=category, doubles_only=not normal))
    keywords.sort(key=lambda o: (_norm(o.category or ""), _norm(o.keyword or "")))
    return options + keywords


# ---------------------------------------------------------------------------
# Random challenge generator ("Random Challenge Generator")
# ---------------------------------------------------------------------------

Chooser = Literal["player1", "player2"]

#: Second die -> (column 1 entry, column 2 entry); ``None`` = a player chooses.
CHALLENGE_TABLE: dict[Element, tuple[str | None, str | None]] = {
    Element.VOID: (None, None),
    Element.FIRE: ("Assassination", "Infiltration"),
    Element.AIR: ("Intercept the Messenger", "Brawl"),
    Element.EARTH: ("Champion", "Search"),
    Element.WATER: ("King of the Hill", "Capture the Medal"),
    Element.SPIRIT: (None, None),
}


@dataclass(frozen=True)
class ChallengeDraw:
    """A random challenge draw: both faces, the column, and either the
    challenge name or which player chooses it (Void: Player 1, Spirit:
    Player 2)."""

    first_face: Element
    column: int
    second_face: Element
    challenge_name: str | None
    chooser: Chooser | None


def challenge_column(first_face: Element | str) -> int:
    """Column from the first die: Void, Fire or Air -> 1; Earth, Water or
    Spirit -> 2."""
    face = Element(first_face)
    return 1 if face in (Element.VOID, Element.FIRE, Element.AIR) else 2


def challenge_for(first_face: Element | str, second_face: Element | str) -> ChallengeDraw:
    """Look up the random challenge table for two given faces."""
    first, second = Element(first_face), Element(second_face)
    column = challenge_column(first)
    chooser: Chooser | None = None
    if second is Element.VOID:
        chooser = "player1"
    elif second is Element.SPIRIT:
        chooser = "player2"
    return ChallengeDraw(
        first_face=first,
        column=column,
        second_face=second,
        challenge_name=CHALLENGE_TABLE[second][column - 1],
        chooser=chooser,
    )


def random_challenge(*, rng: random.Random) -> ChallengeDraw:
    """Roll the random challenge generator: one die for the column, a
    second for the row."""
    first = roll_die(rng=rng)
    second = roll_die(rng=rng)
    return challenge_for(first, second)
