"""Writes for matches: kick-off snapshots, result submission, confirmation and the post-game
sequence (revenue, ronin upkeep, downtime, XP, advancement rolls), advancement choices, voiding.

Every write validates first, then runs in one transaction. The post-game sequence locks the
match row and checks `sequence_applied_at`, so it is applied exactly once however many times a
result is submitted or confirmed at the same moment. Dice are rolled on the server from a seed
stored on the match (every face recorded as a DiceRoll), or entered by the players when the
league's house rules say so.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from league.models import HouseRules
from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from rules.engine import league as rules_league
from rules.engine.dice import Element
from rules.engine.records import MatchRecord, NinjaRecord, TeamRecord
from rules.models import Keyword
from teams import selectors as team_selectors
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent
from teams.services import treasury_post

logger = logging.getLogger(__name__)

HOUSE_RULE_DEFAULTS = {f.name: f.default for f in HouseRules._meta.fields if f.name in HouseRules.HOUSE_RULE_FIELDS}


def house_rules_for(match: Match) -> dict[str, Any]:
    """The rules in force for a match: its season's frozen rules, else its league's, else defaults."""
    if match.season_id:
        return match.season.house_rules()
    if match.league_id:
        return match.league.house_rules()
    return dict(HOUSE_RULE_DEFAULTS)


def _rng(match: Match, purpose: str) -> random.Random:
    """A random source per purpose, derived from the match's stored seed (replayable)."""
    return random.Random(f"{match.seed}:{purpose}")


# --- creating and kicking off ---------------------------------------------------------------------


def match_create(
    *,
    teams: Sequence[Team],
    challenge=None,
    league=None,
    season=None,
    date=None,
    friendly: bool = False,
    round_number=None,
    stage: str = "",
    pairing_reason: str = "",
) -> Match:
    if not 2 <= len(teams) <= 4:
        raise ValidationError("A match has 2 to 4 teams.")
    if len({t.pk for t in teams}) != len(teams):
        raise ValidationError("A team cannot play itself.")
    with transaction.atomic():
        match = Match.objects.create(
            league=league or (season.league if season else None),
            season=season,
            challenge=challenge,
            date=date,
            friendly=friendly,
            round_number=round_number,
            stage=stage,
            pairing_reason=pairing_reason,
        )
        MatchTeam.objects.bulk_create([MatchTeam(match=match, team=team, slot=i + 1) for i, team in enumerate(teams)])
    return match


def roster_snapshot(team: Team) -> list[dict[str, Any]]:
    """The roster as the match saw it (one dict per active model)."""
    rows = []
    for ninja in team.roster:
        line = team_selectors.ninja_line(ninja)
        profile = ninja.profile
        rows.append(
            {
                "id": ninja.pk,
                "name": ninja.name,
                "profile": profile.name,
                "profile_slug": profile.slug,
                "kind": profile.kind,
                "koban": profile.koban,
                "upkeep": profile.upkeep or 0,
                "is_chunin": profile.kind == "chunin",
                "is_hero": profile.kind in ("hero", "ronin"),
                "is_ronin": profile.kind == "ronin",
                "movement": line.movement,
                "attack": line.attack,
                "defense": line.defense,
                "affinities": line.affinities,
                "keywords": line.base_keywords + line.gained_keywords,
                "abilities": line.abilities,
                "xp": ninja.xp,
                "level": line.level_name,
                "advancements": len(line.advancements),
                "misses_games": ninja.misses_games,
                "starts_in_healing_house": ninja.starts_in_healing_house,
                "available": ninja.misses_games == 0,
            }
        )
    return rows


def live_sides(match: Match) -> list[tuple[MatchTeam, Team, int]]:
    """Each side with its team (roster prefetched) and current rating, in a fixed number of queries."""
    sides = list(match.sides.select_related("team").order_by("slot"))
    teams = {t.pk: t for t in team_selectors.teams_with_ratings(Team.objects.filter(pk__in=[s.team_id for s in sides]))}
    return [
        (s, teams[s.team_id], rules_league.team_rating(team_selectors.team_snapshot(teams[s.team_id]))) for s in sides
    ]


def match_kick_off(*, match: Match) -> Match:
    """Store ratings, underdog bonuses and roster snapshots, and the dice seed. Idempotent."""
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.kicked_off_at is not None:
            return locked
        if locked.status == Match.Status.VOIDED:
            raise ValidationError("This match was voided.")
        sides = live_sides(locked)
        rules = house_rules_for(locked)
        bonuses = rules_league.underdog_bonuses(
            [rating for _, _, rating in sides],
            enabled=rules["underdog_bonuses"],
            max_bonus_koban=rules["max_bonus_koban"],
        )
        for (side, team, rating), bonus in zip(sides, bonuses, strict=True):
            side.rating = rating
            side.reroll_tokens = bonus.reroll_tokens
            side.moon_power_tokens = bonus.moon_power_tokens
            side.extra_all_stars = bonus.extra_all_star_awards
            side.bonus_koban = bonus.bonus_koban
            side.roster_snapshot = roster_snapshot(team)
            side.save(
                update_fields=[
                    "rating",
                    "reroll_tokens",
                    "moon_power_tokens",
                    "extra_all_stars",
                    "bonus_koban",
                    "roster_snapshot",
                ]
            )
        locked.seed = locked.seed if locked.seed is not None else secrets.randbits(62)
        locked.kicked_off_at = timezone.now()
        locked.save(update_fields=["seed", "kicked_off_at"])
    match.seed, match.kicked_off_at = locked.seed, locked.kicked_off_at
    return locked


# --- permissions used by services -----------------------------------------------------------------


def _owner_ids(match: Match) -> set[int]:
    return {side.team.owner_id for side in match.sides.all()}


def is_master_of(user, match: Match) -> bool:
    return bool(user.is_authenticated and match.league_id and match.league.master_id == user.pk)


def can_enter_result(user, match: Match) -> bool:
    return bool(user.is_authenticated and (is_master_of(user, match) or user.pk in _owner_ids(match)))


def can_confirm(user, match: Match) -> bool:
    """The master, or a player of a team in the match other than the submitter's teams."""
    if not user.is_authenticated:
        return False
    if is_master_of(user, match):
        return True
    if match.submitted_by_id is None or user.pk == match.submitted_by_id:
        return False
    submitter_teams = {s.team_id for s in match.sides.all() if s.team.owner_id == match.submitted_by_id}
    return any(s.team.owner_id == user.pk and s.team_id not in submitter_teams for s in match.sides.all())


# --- result submission ----------------------------------------------------------------------------


def validate_record(
    match: Match,
    record: MatchRecord,
    *,
    upkeep: Mapping[int, str],
    downtime_faces: Mapping[int, str] | None,
) -> None:
    """Every rule a submitted result must satisfy; raises ValidationError listing all problems."""
    errors: list[str] = []
    sides = {s.team_id: s for s in match.sides.select_related("team")}
    if {t.team_id for t in record.teams} != set(sides):
        raise ValidationError("The result must cover exactly the teams in the match.")
    award_keys = {a.key for a in match.challenge.xp_awards.all()} if match.challenge_id else set()
    for team_record in record.teams:
        side = sides[team_record.team_id]
        roster = {row["id"]: row for row in side.roster_snapshot or []}
        if team_record.points < 0 or team_record.points > 99:
            errors.append(f"{side.team.name}: points must be between 0 and 99.")
        seen = set()
        all_stars = 0
        played = 0
        for nr in team_record.ninjas:
            row = roster.get(nr.ninja_id)
            if row is None:
                errors.append(f"{side.team.name}: model #{nr.ninja_id} is not on this team's match roster.")
                continue
            if nr.ninja_id in seen:
                errors.append(f"{row['name']} is listed twice.")
            seen.add(nr.ninja_id)
            counts = [nr.injuries, nr.chunin_stuns, nr.reveals, *nr.challenge_feats.values()]
            if any(c < 0 or c > 50 for c in counts):
                errors.append(f"{row['name']}: counts must be between 0 and 50.")
            unknown = set(nr.challenge_feats) - award_keys
            if unknown:
                errors.append(f"{row['name']}: {', '.join(sorted(unknown))} is not an XP award of this challenge.")
            if not row["available"] and nr.played:
                errors.append(f"{row['name']} is serving a downtime absence and cannot have played.")
            if not nr.played and (
                nr.injuries or nr.chunin_stuns or nr.reveals or any(nr.challenge_feats.values()) or nr.all_star_awards
            ):
                errors.append(f"{row['name']} was never on the board: it cannot have feats or an All-Star award.")
            if not nr.played and nr.in_healing_house and not row["starts_in_healing_house"]:
                errors.append(
                    f"{row['name']} was never on the board: only a model that started in the Healing House can end there without playing."
                )
            if nr.chunin_stuns and row["is_chunin"]:
                errors.append(f"{row['name']} is a chunin: only a non-chunin earns XP for stunning a chunin.")
            if nr.all_star_awards < 0 or nr.all_star_awards > 1:
                errors.append(f"{row['name']}: a model receives at most one All-Star award.")
            played += nr.played
            all_stars += nr.all_star_awards
        allowed = min(1 + side.extra_all_stars, played)
        if all_stars != allowed:
            errors.append(
                f"{side.team.name}: pick {allowed} Ninja All-Star{'s' if allowed != 1 else ''} "
                f"(one per team{' plus ' + str(side.extra_all_stars) + ' underdog award(s)' if side.extra_all_stars else ''}) "
                f"from models that were on the board; {all_stars} picked."
            )
        for row in roster.values():
            if row["is_ronin"]:
                decision = upkeep.get(row["id"], "pay")
                if decision not in ("pay", "release"):
                    errors.append(f"{row['name']}: pay or release.")
        if downtime_faces is not None:
            for nr in team_record.ninjas:
                if nr.in_healing_house and nr.ninja_id in roster:
                    face = downtime_faces.get(nr.ninja_id)
                    if face not in {e.value for e in Element}:
                        errors.append(f"{roster[nr.ninja_id]['name']}: enter the downtime die as rolled.")
    if errors:
        raise ValidationError(errors)


def _record_to_json(record: MatchRecord) -> dict:
    return {
        "teams": [
            {"team_id": t.team_id, "points": t.points, "ninjas": [asdict(n) for n in t.ninjas]} for t in record.teams
        ]
    }


def record_from_json(data: dict) -> MatchRecord:
    return MatchRecord(
        teams=tuple(
            TeamRecord(
                team_id=t["team_id"],
                points=t["points"],
                ninjas=tuple(
                    NinjaRecord(**{**n, "challenge_feats": dict(n.get("challenge_feats", {}))}) for n in t["ninjas"]
                ),
            )
            for t in data["teams"]
        )
    )


def match_save_draft(*, match: Match, data: dict, actor) -> Match:
    if not can_enter_result(actor, match):
        raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
    if match.status != Match.Status.SCHEDULED:
        raise ValidationError("The result has already been submitted.")
    Match.objects.filter(pk=match.pk).update(result_draft=data)
    match.result_draft = data
    return match


def match_submit_result(
    *,
    match: Match,
    record: MatchRecord,
    actor,
    upkeep: Mapping[int, str] | None = None,
    downtime_faces: Mapping[int, str] | None = None,
    simulated: bool = False,
) -> Match:
    """Submit a result. Runs the post-game sequence at once when no confirmation is needed (or the
    master submits); otherwise waits for an opponent or the master to confirm."""
    upkeep = dict(upkeep or {})
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .get(pk=match.pk)
        )
        if not simulated and not can_enter_result(actor, locked):
            raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
        if locked.status != Match.Status.SCHEDULED:
            raise ValidationError(f"This match is already {locked.get_status_display().lower()}.")
        if locked.kicked_off_at is None:
            locked = match_kick_off(match=locked)
        rules = house_rules_for(locked)
        entered = rules["dice_mode"] == HouseRules.DiceMode.ENTERED and not simulated
        validate_record(locked, record, upkeep=upkeep, downtime_faces=downtime_faces if entered else None)
        locked.submitted_record = {
            **_record_to_json(record),
            "upkeep": {str(k): v for k, v in upkeep.items()},
            "downtime_faces": {str(k): v for k, v in (downtime_faces or {}).items()} if entered else None,
        }
        locked.status = Match.Status.SUBMITTED
        locked.submitted_by = actor if getattr(actor, "pk", None) else None
        locked.submitted_at = timezone.now()
        locked.simulated = locked.simulated or simulated
        locked.result_draft = None
        locked.save(
            update_fields=["submitted_record", "status", "submitted_by", "submitted_at", "simulated", "result_draft"]
        )
        needs_confirmation = rules["results_need_confirmation"] and not simulated and not is_master_of(actor, locked)
        if not needs_confirmation:
            _apply_sequence(locked, actor=actor)
    match.refresh_from_db()
    return match


def match_confirm(*, match: Match, actor) -> Match:
    """An opponent or the master confirms a submitted result: the post-game sequence runs (once)."""
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .get(pk=match.pk)
        )
        if locked.sequence_applied_at is not None:
            return locked  # already applied: confirming twice is harmless
        if locked.status != Match.Status.SUBMITTED:
            raise ValidationError("There is no submitted result to confirm.")
        if not can_confirm(actor, locked):
            raise PermissionDenied("Only an opposing player or the league's master may confirm this result.")
        _apply_sequence(locked, actor=actor)
    match.refresh_from_db()
    return match


def match_reject(*, match: Match, actor, reason: str = "") -> Match:
    """Send a submitted result back for correction (the opponent or the master)."""
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.status != Match.Status.SUBMITTED or locked.sequence_applied_at is not None:
            raise ValidationError("Only a submitted, unconfirmed result can be rejected.")
        if not can_confirm(actor, locked):
            raise PermissionDenied("Only an opposing player or the league's master may reject this result.")
        locked.result_draft = {"rejected_record": locked.submitted_record, "reason": reason[:200]}
        locked.submitted_record = None
        locked.status = Match.Status.SCHEDULED
        locked.submitted_by = None
        locked.submitted_at = None
        locked.save(update_fields=["result_draft", "submitted_record", "status", "submitted_by", "submitted_at"])
    return locked


# --- the post-game sequence -----------------------------------------------------------------------


def _apply_sequence(match: Match, *, actor) -> None:
    """Revenue, ronin upkeep, downtime, XP and advancement rolls, in the rulebook's order.

    Caller holds the match row lock inside a transaction. Rows are written in bulk so the number
    of queries does not grow with roster size.
    """
    if match.sequence_applied_at is not None:
        return
    rules = house_rules_for(match)
    data = match.submitted_record
    record = record_from_json(data)
    upkeep = {int(k): v for k, v in (data.get("upkeep") or {}).items()}
    entered_faces = (
        {int(k): v for k, v in (data.get("downtime_faces") or {}).items()} if data.get("downtime_faces") else None
    )
    sides = {s.team_id: s for s in match.sides.select_related("team").all()}
    ninjas = {
        n.pk: n
        for n in Ninja.objects.select_for_update(of=("self",)).select_related("profile").filter(team_id__in=list(sides))
    }
    challenge_xp = {a.key: a.xp for a in match.challenge.xp_awards.all()} if match.challenge_id else {}
    revenue_rates = {"win": rules["revenue_win"], "draw": rules["revenue_draw"], "loss": rules["revenue_loss"]}
    now = timezone.now()
    dice: list[DiceRoll] = []
    dirty: set[int] = set()

    # 1. The result and each model's feats.
    match_ninjas: dict[int, MatchNinja] = {}
    for team_record in record.teams:
        side = sides[team_record.team_id]
        side.points = team_record.points
        side.outcome = record.outcome_for(team_record.team_id)
        roster = {row["id"]: row for row in side.roster_snapshot or []}
        for nr in team_record.ninjas:
            row = roster[nr.ninja_id]
            xp = rules_league.match_xp(
                nr.injuries,
                nr.chunin_stuns,
                nr.reveals,
                nr.all_star_awards,
                sum(challenge_xp.get(k, 0) * v for k, v in nr.challenge_feats.items()),
                is_chunin=row["is_chunin"],
                is_hero=row["kind"] == "hero",
                is_ronin=row["is_ronin"],
            ).total
            match_ninjas[nr.ninja_id] = MatchNinja(
                side=side,
                ninja_id=nr.ninja_id,
                name=row["name"],
                played=nr.played,
                injuries=nr.injuries,
                chunin_stuns=nr.chunin_stuns,
                reveals=nr.reveals,
                challenge_feats=nr.challenge_feats,
                in_healing_house=nr.in_healing_house,
                all_star_awards=nr.all_star_awards,
                xp_gained=xp,
            )
    MatchNinja.objects.bulk_create(match_ninjas.values())

    # 2. Revenue: win/draw/loss koban, the underdog's bonus koban, Shojo's Shrewd Negotiator.
    for side in sides.values():
        team = side.team
        shojo_hh = any(
            mn.in_healing_house and ninjas[nid].profile.slug == "shojo"
            for nid, mn in match_ninjas.items()
            if mn.side_id == side.pk
        )
        breakdown = rules_league.revenue(
            side.outcome,
            win=revenue_rates["win"],
            loss=revenue_rates["loss"],
            draw=revenue_rates["draw"],
            underdog_koban=side.bonus_koban,
            shojo_in_healing_house=shojo_hh,
        )
        treasury_post(
            team=team,
            amount=revenue_rates[side.outcome],
            reason=TreasuryEntry.Reason.REVENUE,
            match=match,
            note=f"{side.get_outcome_display()} the game",
            actor=actor,
        )
        if side.bonus_koban:
            treasury_post(
                team=team,
                amount=side.bonus_koban,
                reason=TreasuryEntry.Reason.UNDERDOG,
                match=match,
                note=f"Rating {side.rating} against a higher-rated team",
                actor=actor,
            )
        if shojo_hh:
            treasury_post(
                team=team,
                amount=rules_league.SHREWD_NEGOTIATOR_KOBAN,
                reason=TreasuryEntry.Reason.SHOJO,
                match=match,
                note="Shojo ended the game in the Healing House",
                actor=actor,
            )
        side.koban_earned = breakdown.total
    MatchTeam.objects.bulk_update(sides.values(), ["points", "outcome", "koban_earned"])

    # 3. Ronin upkeep, before downtime: pay or release; a fee the treasury cannot cover forces release.
    decisions: list[UpkeepDecision] = []
    released: set[int] = set()
    for side in sides.values():
        balance = side.team.treasury  # kept in step by treasury_post
        paid_total, paid_names = 0, []
        for row in side.roster_snapshot or []:
            ninja = ninjas.get(row["id"])
            if not row["is_ronin"] or ninja is None or ninja.status != Ninja.Status.ACTIVE:
                continue
            fee = row["upkeep"]
            wants_pay = upkeep.get(row["id"], "pay") == "pay"
            forced = wants_pay and balance - paid_total < fee
            paid = wants_pay and not forced
            if paid:
                paid_total += fee
                paid_names.append(f"{ninja.name} {fee}")
            else:
                ninja.status = Ninja.Status.RELEASED
                ninja.released_at = now
                ninja.release_reason = (
                    "Released: the treasury could not cover the upkeep"
                    if forced
                    else "Released instead of paying upkeep"
                )
                released.add(ninja.pk)
                dirty.add(ninja.pk)
            decisions.append(UpkeepDecision(match=match, ninja=ninja, fee=fee, paid=paid, forced_release=forced))
        if paid_total:
            treasury_post(
                team=side.team,
                amount=-paid_total,
                reason=TreasuryEntry.Reason.UPKEEP,
                match=match,
                note="Ronin upkeep: " + ", ".join(paid_names),
                actor=actor,
            )
    UpkeepDecision.objects.bulk_create(decisions)

    # 4. Availability moves on: this game counts as one missed game; a Healing House start is used up.
    for side in sides.values():
        for row in side.roster_snapshot or []:
            ninja = ninjas.get(row["id"])
            if ninja is None:
                continue
            if row["misses_games"] and ninja.misses_games:
                ninja.misses_games -= 1
                dirty.add(ninja.pk)
            if row["starts_in_healing_house"] and ninja.starts_in_healing_house:
                ninja.starts_in_healing_house = False
                dirty.add(ninja.pk)

    # 5. Downtime for each model that ended in the Healing House.
    rng = _rng(match, "downtime")
    water_xp: dict[int, int] = {}
    downtime_rows: list[DowntimeResult] = []
    for side in sides.values():
        hh = [
            nid
            for nid, mn in match_ninjas.items()
            if mn.side_id == side.pk and mn.in_healing_house and nid not in released
        ]
        outcomes: dict[int, rules_league.DowntimeOutcome] = {}
        for nid in hh:
            if entered_faces is not None:
                outcome = rules_league.downtime_effect(entered_faces[nid])
            else:
                outcome = rules_league.roll_downtime(rng=rng)
            dice.append(
                DiceRoll(
                    match=match,
                    ninja_id=nid,
                    purpose=DiceRoll.Purpose.DOWNTIME,
                    faces=[outcome.face.value],
                    entered_by_player=entered_faces is not None,
                )
            )
            outcomes[nid] = outcome
        spared_by = _spirit_spares(outcomes)
        for nid in hh:
            outcome = outcomes[nid]
            ninja = ninjas[nid]
            if nid in spared_by:
                downtime_rows.append(
                    DowntimeResult(
                        match=match,
                        ninja=ninja,
                        face=outcome.face.value,
                        spared_by_id=spared_by[nid],
                        effect=f"Rolled {outcome.face.value}, but spared by a Spirit: plays as normal",
                    )
                )
                continue
            downtime_rows.append(
                DowntimeResult(
                    match=match,
                    ninja=ninja,
                    face=outcome.face.value,
                    misses_games=outcome.misses_games,
                    starts_in_healing_house=outcome.starts_in_healing_house,
                    xp_bonus=outcome.xp_bonus,
                    effect=_downtime_text(outcome),
                )
            )
            if outcome.misses_games:
                ninja.misses_games = max(ninja.misses_games, outcome.misses_games)
                dirty.add(nid)
            if outcome.starts_in_healing_house:
                ninja.starts_in_healing_house = True
                dirty.add(nid)
            if outcome.xp_bonus:
                water_xp[nid] = outcome.xp_bonus
    DowntimeResult.objects.bulk_create(downtime_rows)

    # 6. XP, and an advancement roll for every experience level newly reached.
    adv_rng = _rng(match, "advancement")
    roll_dice = rules["dice_mode"] != HouseRules.DiceMode.ENTERED or match.simulated
    xp_events: list[XpEvent] = []
    rolls: list[AdvancementRoll] = []
    for nid, mn in match_ninjas.items():
        ninja = ninjas[nid]
        is_hero = ninja.profile.kind in ("hero", "ronin")
        bonus = 0 if is_hero else water_xp.get(nid, 0)
        if mn.xp_gained:
            xp_events.append(
                XpEvent(ninja=ninja, match=match, amount=mn.xp_gained, reason="Feats and awards in the match")
            )
        if bonus:
            xp_events.append(XpEvent(ninja=ninja, match=match, amount=bonus, reason="Downtime: Water"))
        total = mn.xp_gained + bonus
        if not total:
            continue
        old_xp = ninja.xp
        ninja.xp = old_xp + total
        dirty.add(nid)
        for level in rules_league.levels_gained(old_xp, ninja.xp):
            faces: list[str] = []
            if roll_dice:
                faces = [f.value for f in rules_league.roll_advancement(rng=adv_rng).faces]
                dice.append(DiceRoll(match=match, ninja=ninja, purpose=DiceRoll.Purpose.ADVANCEMENT, faces=faces))
            rolls.append(AdvancementRoll(ninja=ninja, match=match, level=level.rank, faces=faces))
    XpEvent.objects.bulk_create(xp_events)
    AdvancementRoll.objects.bulk_create(rolls)
    DiceRoll.objects.bulk_create(dice)
    if dirty:
        Ninja.objects.bulk_update(
            [ninjas[nid] for nid in sorted(dirty)],
            ["xp", "misses_games", "starts_in_healing_house", "status", "released_at", "release_reason"],
        )

    match.status = Match.Status.CONFIRMED
    match.confirmed_by = actor if getattr(actor, "pk", None) else None
    match.confirmed_at = now
    match.sequence_applied_at = now
    match.save(update_fields=["status", "confirmed_by", "confirmed_at", "sequence_applied_at"])
    transaction.on_commit(lambda: _after_confirm(match.pk))


def _after_confirm(match_id: int) -> None:
    """Hooks outside the sequence (e.g. playoff brackets); failures never undo a confirmed result."""
    try:
        from league import services as league_services
    except ImportError:  # pragma: no cover
        return
    hook = getattr(league_services, "on_match_confirmed", None)
    if hook is None:
        return
    try:
        hook(Match.objects.get(pk=match_id))
    except Exception:
        logger.exception("after-confirm hook failed for match %s", match_id)


_SEVERITY = {"Void": 3, "Fire": 2, "Air": 1}


def _spirit_spares(outcomes: Mapping[int, rules_league.DowntimeOutcome]) -> dict[int, int]:
    """Spirit: another Healing House model of the team plays as normal. Ruling: each Spirit spares
    the other model with the worst outcome (Void, then Fire, then Air); a Spirit is not spent on a
    model whose roll did it no harm. Returns {spared ninja id: sparing ninja id}."""
    spared: dict[int, int] = {}
    for nid, outcome in outcomes.items():
        if not outcome.spares_another:
            continue
        candidates = [
            (other, _SEVERITY.get(o.face.value, 0))
            for other, o in outcomes.items()
            if other != nid and other not in spared and _SEVERITY.get(o.face.value, 0) > 0
        ]
        if candidates:
            target = max(candidates, key=lambda c: (c[1], -c[0]))[0]
            spared[target] = nid
    return spared


def _downtime_text(outcome: rules_league.DowntimeOutcome) -> str:
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


# --- advancements --------------------------------------------------------------------------------


def advancement_options_for(roll: AdvancementRoll) -> list[rules_league.AdvancementOption]:
    ninja = roll.ninja
    line = team_selectors.ninja_line(ninja)
    categories = dict(Keyword.objects.values_list("name", "category"))
    return rules_league.advancement_options(
        roll.faces,
        affinities=line.affinities,
        current_keywords=line.base_keywords + line.gained_keywords,
        keyword_categories=categories,
    )


def option_key(option: rules_league.AdvancementOption) -> str:
    if option.kind == "keyword":
        return f"keyword:{option.keyword}"
    if option.kind == "attribute":
        return f"attribute:{option.attribute}"
    return f"affinity:{option.affinity.value if option.affinity else ''}"


def advancement_enter_faces(*, roll: AdvancementRoll, faces: Sequence[str], actor) -> AdvancementRoll:
    """Leagues that roll at the table: the player enters the two faces as rolled (once)."""
    valid = {e.value for e in Element}
    if len(faces) != 2 or any(f not in valid for f in faces):
        raise ValidationError("Enter both dice as rolled.")
    with transaction.atomic():
        locked = AdvancementRoll.objects.select_for_update().get(pk=roll.pk)
        if locked.faces:
            raise ValidationError("The dice for this roll are already recorded.")
        locked.faces = list(faces)
        locked.save(update_fields=["faces"])
        if locked.match_id:
            DiceRoll.objects.create(
                match_id=locked.match_id,
                ninja_id=locked.ninja_id,
                purpose=DiceRoll.Purpose.ADVANCEMENT,
                faces=list(faces),
                entered_by_player=True,
            )
    return locked


def advancement_choose(*, roll: AdvancementRoll, choice: str, actor=None) -> Advancement:
    """Take one option of a pending advancement roll (each chosen advancement is +1 team rating)."""
    with transaction.atomic():
        locked = (
            AdvancementRoll.objects.select_for_update(of=("self",)).select_related("ninja__profile").get(pk=roll.pk)
        )
        if locked.status != AdvancementRoll.Status.PENDING:
            raise ValidationError("This advancement roll has already been used.")
        if not locked.faces:
            raise ValidationError("Enter the dice first.")
        if locked.ninja.status != Ninja.Status.ACTIVE:
            raise ValidationError(f"{locked.ninja.name} has left the team.")
        options = {option_key(o): o for o in advancement_options_for(locked)}
        option = options.get(choice)
        if option is None:
            raise ValidationError("That is not one of this roll's options.")
        if option.kind == "keyword":
            adv = Advancement(
                ninja=locked.ninja,
                kind=Advancement.Kind.KEYWORD,
                keyword=Keyword.objects.get(name=option.keyword),
                roll=locked,
            )
        elif option.kind == "attribute":
            adv = Advancement(ninja=locked.ninja, kind=option.attribute, roll=locked)
        else:
            adv = Advancement(
                ninja=locked.ninja, kind=Advancement.Kind.AFFINITY, affinity=option.affinity.value, roll=locked
            )
        adv.save()
        locked.status = AdvancementRoll.Status.CHOSEN
        locked.save(update_fields=["status"])
    return adv


# --- voiding -------------------------------------------------------------------------------------


def void_refusal(match: Match) -> str | None:
    """Why this result cannot be voided (None when it can)."""
    if match.status != Match.Status.CONFIRMED:
        return "Only a confirmed result can be voided."
    for side in match.sides.select_related("team"):
        later = (
            MatchTeam.objects.filter(
                team_id=side.team_id, match__status__in=[Match.Status.CONFIRMED, Match.Status.SUBMITTED]
            )
            .filter(match__sequence_applied_at__gt=match.sequence_applied_at)
            .exclude(match=match)
        )
        if (
            later.exists()
            or MatchTeam.objects.filter(team_id=side.team_id, match__status=Match.Status.SUBMITTED)
            .exclude(match=match)
            .exists()
        ):
            return f"{side.team.name} has played since; only a team's most recent result can be voided."
    return None


def match_void(*, match: Match, actor, reason: str) -> Match:
    """Void the most recent result of its teams: every effect reversed by compensating rows."""
    if not is_master_of(actor, match) and not getattr(actor, "is_superuser", False):
        raise PermissionDenied("Only the league's ninja master may void a result.")
    if not reason.strip():
        raise ValidationError("Say why the result is voided.")
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        refusal = void_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        # Treasury: one compensating row per ledger row of the match.
        for entry in list(
            TreasuryEntry.objects.filter(match=locked).exclude(reason=TreasuryEntry.Reason.VOID).order_by("id")
        ):
            try:
                treasury_post(
                    team=entry.team,
                    amount=-entry.amount,
                    reason=TreasuryEntry.Reason.VOID,
                    match=locked,
                    note=f"Reverses: {entry.get_reason_display()}",
                    actor=actor,
                )
            except ValidationError as exc:
                raise ValidationError(
                    f"{entry.team.name} has spent the koban since; the result cannot be voided without a correction first."
                ) from exc
        # XP: compensating negative events.
        for event in list(XpEvent.objects.filter(match=locked, amount__gt=0)):
            XpEvent.objects.create(ninja_id=event.ninja_id, match=locked, amount=-event.amount, reason="Voided result")
            Ninja.objects.filter(pk=event.ninja_id).update(xp=F("xp") - event.amount)
        # Advancements made from the match's rolls are removed; the rolls are marked voided.
        rolls = AdvancementRoll.objects.filter(match=locked)
        Advancement.objects.filter(roll__in=rolls).delete()
        rolls.update(status=AdvancementRoll.Status.VOIDED)
        # Availability and ronin back to how the match found them.
        for side in locked.sides.all():
            for row in side.roster_snapshot or []:
                Ninja.objects.filter(pk=row["id"]).update(
                    misses_games=row["misses_games"], starts_in_healing_house=row["starts_in_healing_house"]
                )
        for decision in UpkeepDecision.objects.filter(match=locked, paid=False):
            Ninja.objects.filter(pk=decision.ninja_id).update(
                status=Ninja.Status.ACTIVE, released_at=None, release_reason=""
            )
        locked.status = Match.Status.VOIDED
        locked.voided_at = timezone.now()
        locked.void_reason = reason.strip()[:200]
        locked.save(update_fields=["status", "voided_at", "void_reason"])
    return locked
