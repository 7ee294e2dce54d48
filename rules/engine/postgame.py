"""The post-game sequence as one pure function (rulebook: "Revenue", "Team Rating" bonuses,
Appendix "Ronin", "Downtime", "Experience", "Advancement Rolls").

:func:`postgame` takes the kick-off snapshots of the sides, the match record, the house rules,
the players' upkeep decisions, each model as it stands now, and the dice (a random source, or the
faces the players entered), and returns everything the sequence does as a
:class:`PostgameOutcome`. The app writes that outcome; it decides nothing itself.

The steps, in the rulebook's order:

1. **The result**: each side's outcome and each model's match XP (:func:`~.league.match_xp`).
2. **Revenue**: win/draw/loss koban, the underdog's bonus koban and Shojo's Shrewd Negotiator,
   from one :class:`~.league.RevenueBreakdown` per side: the ledger lines and the "koban earned"
   of the match are that breakdown, so they cannot disagree.
3. **Ronin upkeep**, before downtime ("a team must pay Ronin a fee after each game, before rolls
   are made on the downtime table"): pay or release; a fee the treasury cannot cover forces the
   release. A released ronin rolls no downtime.
4. **Availability** moves on: the game counts as one game missed; a Healing House start is used.
5. **Downtime** for each model that ended in the Healing House, with Spirit spares.
6. **XP** (feats, awards and Water downtime XP) and an advancement roll per level reached.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from .dice import Element
from .league import (
    DEFAULT_DRAW_KOBAN,
    LOSS_KOBAN,
    MAX_BONUS_KOBAN,
    SHREWD_NEGOTIATOR_PROFILE,
    WIN_KOBAN,
    DowntimeOutcome,
    RevenueBreakdown,
    downtime_effect,
    levels_gained,
    match_xp,
    revenue,
    roll_advancement,
    roll_downtime,
)
from .records import MatchRecord, NinjaRecord, RosterEntry, SideSnapshot, TeamRecord

__all__ = [
    "PostgameRules",
    "ModelNow",
    "LedgerReason",
    "LedgerLine",
    "ModelResult",
    "SideResult",
    "UpkeepLine",
    "DowntimeLine",
    "XpLine",
    "AdvancementEarned",
    "DiceLine",
    "ModelChange",
    "PostgameOutcome",
    "postgame",
    "side_revenue",
    "shrewd_negotiator_in_healing_house",
    "spirit_spares",
    "downtime_text",
    "DOWNTIME_SEVERITY",
    "RELEASE_FORCED",
    "RELEASE_CHOSEN",
    "XP_REASON_MATCH",
    "XP_REASON_WATER",
]


@dataclass(frozen=True)
class PostgameRules:
    """The house rules the post-game sequence needs (a season's frozen rules)."""

    revenue_win: int = WIN_KOBAN
    revenue_draw: int = DEFAULT_DRAW_KOBAN
    revenue_loss: int = LOSS_KOBAN
    max_bonus_koban: int = MAX_BONUS_KOBAN

    def base_revenue(self, outcome: str) -> int:
        return {"win": self.revenue_win, "draw": self.revenue_draw, "loss": self.revenue_loss}[outcome]


@dataclass(frozen=True)
class ModelNow:
    """A model on the team as it stands when the sequence runs (not as at kick-off)."""

    ninja_id: int
    name: str
    xp: int = 0
    misses_games: int = 0
    starts_in_healing_house: bool = False
    active: bool = True


class LedgerReason(str, Enum):
    """Why koban moved (the app's ledger uses the same values)."""

    REVENUE = "revenue"
    UNDERDOG = "underdog"
    SHOJO = "shojo"
    UPKEEP = "upkeep"


@dataclass(frozen=True)
class LedgerLine:
    team_id: int
    amount: int
    reason: LedgerReason
    note: str


@dataclass(frozen=True)
class ModelResult:
    """One model's line of the result: its record and the XP it earned in the match."""

    team_id: int
    entry: RosterEntry
    record: NinjaRecord
    xp_gained: int


@dataclass(frozen=True)
class SideResult:
    team_id: int
    points: int
    outcome: str
    revenue: RevenueBreakdown

    @property
    def koban_earned(self) -> int:
        return self.revenue.total


@dataclass(frozen=True)
class UpkeepLine:
    team_id: int
    ninja_id: int
    fee: int
    paid: bool
    forced_release: bool

    @property
    def released(self) -> bool:
        return not self.paid

    @property
    def release_reason(self) -> str:
        if self.paid:
            return ""
        return RELEASE_FORCED if self.forced_release else RELEASE_CHOSEN


@dataclass(frozen=True)
class DowntimeLine:
    """A downtime roll and what it does; a model spared by another's Spirit plays as normal."""

    team_id: int
    ninja_id: int
    face: Element
    entered_by_player: bool
    spared_by: int | None
    misses_games: int
    starts_in_healing_house: bool
    xp_bonus: int
    effect: str


@dataclass(frozen=True)
class XpLine:
    ninja_id: int
    amount: int
    reason: str


@dataclass(frozen=True)
class AdvancementEarned:
    """An advancement roll earned by reaching ``level`` (``faces`` empty: the player rolls later)."""

    ninja_id: int
    level: int
    faces: tuple[str, ...]


@dataclass(frozen=True)
class DiceLine:
    """Every die of the sequence, in order: ``purpose`` is "downtime" or "advancement"."""

    ninja_id: int
    purpose: str
    faces: tuple[str, ...]
    entered_by_player: bool = False


@dataclass(frozen=True)
class ModelChange:
    """A model whose state the sequence changed: its new XP, availability and status."""

    ninja_id: int
    xp: int
    misses_games: int
    starts_in_healing_house: bool
    released: bool = False
    release_reason: str = ""


@dataclass(frozen=True)
class PostgameOutcome:
    """Everything the post-game sequence does, in the order it happens."""

    sides: tuple[SideResult, ...]
    models: tuple[ModelResult, ...]
    ledger: tuple[LedgerLine, ...]
    upkeep: tuple[UpkeepLine, ...]
    downtime: tuple[DowntimeLine, ...]
    xp: tuple[XpLine, ...]
    advancements: tuple[AdvancementEarned, ...]
    dice: tuple[DiceLine, ...]
    changes: tuple[ModelChange, ...]

    def side(self, team_id: int) -> SideResult:
        return next(s for s in self.sides if s.team_id == team_id)


RELEASE_FORCED = "Released: the treasury could not cover the upkeep"
RELEASE_CHOSEN = "Released instead of paying upkeep"
XP_REASON_MATCH = "Feats and awards in the match"
XP_REASON_WATER = "Downtime: Water"
OUTCOME_WORDS = {"win": "Won", "draw": "Drew", "loss": "Lost"}

#: How much harm a downtime face does, for Spirit's choice (0: none).
DOWNTIME_SEVERITY = {Element.VOID: 3, Element.FIRE: 2, Element.AIR: 1}


# --- the steps as small functions ----------------------------------------------------------------


def shrewd_negotiator_in_healing_house(team_record: TeamRecord, roster: Mapping[int, RosterEntry]) -> bool:
    """Shojo's Shrewd Negotiator: "If Shojo is in the Healing House at the end of a game, her team
    makes two additional Koban." """
    return any(
        nr.in_healing_house and nr.ninja_id in roster and roster[nr.ninja_id].profile_slug == SHREWD_NEGOTIATOR_PROFILE
        for nr in team_record.ninjas
    )


def side_revenue(
    side: SideSnapshot, team_record: TeamRecord, outcome: str, *, rules: PostgameRules
) -> RevenueBreakdown:
    """The koban a side earns after the game: its outcome's revenue, the underdog's bonus koban
    recorded at kick-off (under the house cap) and Shojo's two koban."""
    roster = {e.ninja_id: e for e in side.roster}
    return revenue(
        outcome,  # type: ignore[arg-type]
        win=rules.revenue_win,
        loss=rules.revenue_loss,
        draw=rules.revenue_draw,
        underdog_koban=side.bonus_koban,
        shojo_in_healing_house=shrewd_negotiator_in_healing_house(team_record, roster),
        max_bonus_koban=rules.max_bonus_koban,
    )


def spirit_spares(outcomes: Mapping[int, DowntimeOutcome]) -> dict[int, int]:
    """Spirit: "Another model that ended the game in the Healing House does not need to roll on
    this table, and may play as normal in the following game." Ruling: each Spirit spares the other
    model with the worst outcome (Void, then Fire, then Air; the lower id on a tie); a Spirit is not
    spent on a model whose roll did it no harm. Returns {spared ninja id: sparing ninja id}."""
    spared: dict[int, int] = {}
    for nid, outcome in outcomes.items():
        if not outcome.spares_another:
            continue
        candidates = [
            (other, DOWNTIME_SEVERITY.get(o.face, 0))
            for other, o in outcomes.items()
            if other != nid and other not in spared and DOWNTIME_SEVERITY.get(o.face, 0) > 0
        ]
        if candidates:
            target = max(candidates, key=lambda c: (c[1], -c[0]))[0]
            spared[target] = nid
    return spared


def downtime_text(outcome: DowntimeOutcome) -> str:
    """What a downtime roll does, in words (shown on the match page)."""
    face = outcome.face.value
    if outcome.misses_games:
        n = outcome.misses_games
        return f"{face}: cannot play in the next {'two games' if n == 2 else 'game'}"
    if outcome.starts_in_healing_house:
        return f"{face}: starts the next game in the Healing House"
    if outcome.xp_bonus:
        return f"{face}: gets {outcome.xp_bonus} XP"
    if outcome.spares_another:
        return f"{face}: another Healing House model may play as normal"
    return f"{face}: no effect"


# --- the sequence --------------------------------------------------------------------------------


def postgame(
    *,
    record: MatchRecord,
    sides: Sequence[SideSnapshot],
    models: Mapping[int, ModelNow],
    treasuries: Mapping[int, int],
    rules: PostgameRules,
    challenge_xp: Mapping[str, int] | None = None,
    upkeep: Mapping[int, str] | None = None,
    downtime_dice: random.Random | Mapping[int, Element | str],
    advancement_rng: random.Random | None,
) -> PostgameOutcome:
    """Run the post-game sequence of one match.

    ``sides``: the kick-off snapshots, in slot order; ``record``: the result (already valid, see
    :func:`~.records.record_problems`); ``models``: every model of the teams as it stands now, by
    id; ``treasuries``: each team's balance before the sequence; ``challenge_xp``: XP per award of
    the challenge; ``upkeep``: {ronin id: "pay" | "release"} (missing: pay).

    ``downtime_dice``: a random source for the downtime rolls, or the faces the players rolled at
    the table ({ninja id: face}). ``advancement_rng``: a random source for the advancement rolls,
    or ``None`` when the players roll them at the table later (the rolls are earned without faces).
    Downtime dice are rolled side by side (slot order), each side's models in record order;
    advancement dice in record order.
    """
    challenge_xp = challenge_xp or {}
    upkeep = upkeep or {}
    entries = {e.ninja_id: e for side in sides for e in side.roster}
    missing = [nr.ninja_id for t in record.teams for nr in t.ninjas if nr.ninja_id not in models]
    if missing:
        raise ValueError(f"models not on their team: {missing}")
    state = dict(models)
    dirty: set[int] = set()
    released: dict[int, str] = {}

    def change(nid: int, **fields) -> None:
        state[nid] = replace(state[nid], **fields)
        dirty.add(nid)

    # 1. The result and each model's match XP.
    results: list[ModelResult] = []
    for team_record in record.teams:
        for nr in team_record.ninjas:
            entry = entries[nr.ninja_id]
            xp = match_xp(
                nr.injuries,
                nr.chunin_stuns,
                nr.reveals,
                nr.all_star_awards,
                sum(challenge_xp.get(k, 0) * v for k, v in nr.challenge_feats.items()),
                is_chunin=entry.is_chunin,
                is_hero=entry.is_hero,
                is_ronin=entry.is_ronin,
            ).total
            results.append(ModelResult(team_record.team_id, entry, nr, xp))

    # 2. Revenue, one breakdown per side: the ledger lines are its parts, "koban earned" its total.
    side_results: list[SideResult] = []
    ledger: list[LedgerLine] = []
    for side in sides:
        team_record = record.team(side.team_id)
        outcome = record.outcome_for(side.team_id)
        breakdown = side_revenue(side, team_record, outcome, rules=rules)
        side_results.append(SideResult(side.team_id, team_record.points, outcome, breakdown))
        ledger.append(
            LedgerLine(side.team_id, breakdown.base, LedgerReason.REVENUE, f"{OUTCOME_WORDS[outcome]} the game")
        )
        if breakdown.underdog_bonus:
            ledger.append(
                LedgerLine(
                    side.team_id,
                    breakdown.underdog_bonus,
                    LedgerReason.UNDERDOG,
                    f"Rating {side.rating} against a higher-rated team",
                )
            )
        if breakdown.shrewd_negotiator:
            ledger.append(
                LedgerLine(
                    side.team_id,
                    breakdown.shrewd_negotiator,
                    LedgerReason.SHOJO,
                    "Shojo ended the game in the Healing House",
                )
            )

    # 3. Ronin upkeep, before downtime: pay or release; a fee the treasury cannot cover forces release.
    upkeep_lines: list[UpkeepLine] = []
    for side, side_result in zip(sides, side_results, strict=True):
        balance = treasuries[side.team_id] + side_result.koban_earned
        paid_total, paid_names = 0, []
        for entry in side.roster:
            model = state.get(entry.ninja_id)
            if not entry.is_ronin or model is None or not model.active:
                continue
            wants_pay = upkeep.get(entry.ninja_id, "pay") == "pay"
            forced = wants_pay and balance - paid_total < entry.upkeep
            paid = wants_pay and not forced
            line = UpkeepLine(side.team_id, entry.ninja_id, entry.upkeep, paid, forced)
            upkeep_lines.append(line)
            if paid:
                paid_total += entry.upkeep
                paid_names.append(f"{model.name} {entry.upkeep}")
            else:
                released[entry.ninja_id] = line.release_reason
                change(entry.ninja_id, active=False)
        if paid_total:
            ledger.append(
                # the note names the fees; the ledger shows it after its reason ("Ronin upkeep: ...")
                LedgerLine(side.team_id, -paid_total, LedgerReason.UPKEEP, ", ".join(paid_names))
            )

    # 4. Availability moves on: this game counts as one missed game; a Healing House start is used up.
    for side in sides:
        for entry in side.roster:
            model = state.get(entry.ninja_id)
            if model is None:
                continue
            if entry.misses_games and model.misses_games:
                change(entry.ninja_id, misses_games=model.misses_games - 1)
            if entry.starts_in_healing_house and state[entry.ninja_id].starts_in_healing_house:
                change(entry.ninja_id, starts_in_healing_house=False)

    # 5. Downtime for each model that ended in the Healing House (a released ronin rolls none).
    entered = not isinstance(downtime_dice, random.Random)
    dice: list[DiceLine] = []
    downtime: list[DowntimeLine] = []
    water_xp: dict[int, int] = {}
    for side in sides:
        in_healing_house = [
            nr.ninja_id
            for nr in record.team(side.team_id).ninjas
            if nr.in_healing_house and nr.ninja_id not in released
        ]
        outcomes: dict[int, DowntimeOutcome] = {}
        for nid in in_healing_house:
            if entered:
                if nid not in downtime_dice:  # type: ignore[operator]
                    raise ValueError(f"no downtime die entered for model {nid}")
                outcome = downtime_effect(downtime_dice[nid])  # type: ignore[index]
            else:
                outcome = roll_downtime(rng=downtime_dice)  # type: ignore[arg-type]
            dice.append(DiceLine(nid, "downtime", (outcome.face.value,), entered_by_player=entered))
            outcomes[nid] = outcome
        spared_by = spirit_spares(outcomes)
        for nid in in_healing_house:
            outcome = outcomes[nid]
            spared = nid in spared_by
            # A model spared by a Spirit "may play as normal": its roll is recorded, without effect.
            effect = DowntimeOutcome(outcome.face, no_effect=True) if spared else outcome
            downtime.append(
                DowntimeLine(
                    team_id=side.team_id,
                    ninja_id=nid,
                    face=outcome.face,
                    entered_by_player=entered,
                    spared_by=spared_by.get(nid),
                    misses_games=effect.misses_games,
                    starts_in_healing_house=effect.starts_in_healing_house,
                    xp_bonus=effect.xp_bonus,
                    effect=(
                        f"Rolled {outcome.face.value}, but spared by a Spirit: plays as normal"
                        if spared
                        else downtime_text(outcome)
                    ),
                )
            )
            if effect.misses_games:
                # A downtime absence never shortens one still being served.
                change(nid, misses_games=max(state[nid].misses_games, effect.misses_games))
            if effect.starts_in_healing_house:
                change(nid, starts_in_healing_house=True)
            if effect.xp_bonus:
                water_xp[nid] = effect.xp_bonus

    # 6. XP, and an advancement roll for every experience level newly reached.
    xp_lines: list[XpLine] = []
    advancements: list[AdvancementEarned] = []
    for result in results:
        nid = result.entry.ninja_id
        bonus = 0 if result.entry.is_hero else water_xp.get(nid, 0)
        if result.xp_gained:
            xp_lines.append(XpLine(nid, result.xp_gained, XP_REASON_MATCH))
        if bonus:
            xp_lines.append(XpLine(nid, bonus, XP_REASON_WATER))
        total = result.xp_gained + bonus
        if not total:
            continue
        old_xp = state[nid].xp
        change(nid, xp=old_xp + total)
        for level in levels_gained(old_xp, old_xp + total):
            faces: tuple[str, ...] = ()
            if advancement_rng is not None:
                faces = tuple(f.value for f in roll_advancement(rng=advancement_rng).faces)
                dice.append(DiceLine(nid, "advancement", faces))
            advancements.append(AdvancementEarned(nid, level.rank, faces))

    changes = tuple(
        ModelChange(
            ninja_id=nid,
            xp=state[nid].xp,
            misses_games=state[nid].misses_games,
            starts_in_healing_house=state[nid].starts_in_healing_house,
            released=nid in released,
            release_reason=released.get(nid, ""),
        )
        for nid in sorted(dirty)
    )
    return PostgameOutcome(
        sides=tuple(side_results),
        models=tuple(results),
        ledger=tuple(ledger),
        upkeep=tuple(upkeep_lines),
        downtime=tuple(downtime),
        xp=tuple(xp_lines),
        advancements=tuple(advancements),
        dice=tuple(dice),
        changes=changes,
    )
