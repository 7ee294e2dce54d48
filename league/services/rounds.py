"""The round life cycle (issue 13): forfeits and walkovers, replays of voided fixtures, round dates,
rescheduling a fixture and editing a pairing (docs/leagues.md, "The round life cycle")."""

from __future__ import annotations

import logging
import random
import secrets
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from common import invalidation, text
from common.bulk import update_rows
from league import hooks, readmodel, scheduling, selectors
from league.models import BracketSlot, Bye, Round, Season
from league.services.fixtures import _season_entry_ids, fixture_create
from league.services.playoffs import on_match_confirmed
from league.services.schedules import _check_dates
from matches.models import AWAITING_STATUSES, REGULAR_STAGE, Match, MatchTeam
from teams.models import Team, TreasuryEntry
from teams.services import treasury_post

logger = logging.getLogger(__name__)


# --- the round life cycle: forfeits and replays (issue 13) ---------------------------------------


def forfeit_refusal(match: Match) -> str | None:
    """Why a forfeit cannot be recorded for this fixture (None when it can)."""
    if match.season_id is None:
        return "Only a league fixture can be forfeited."
    if match.season.is_finished:
        return "The season is over."
    if match.league.game_site.tables:
        return (
            "A table plays on without a player who does not come: record that he dropped out instead "
            "(a table left too small is replayed or dissolved)."
        )
    if match.status in AWAITING_STATUSES:
        return "A result waits for confirmation or settlement: deal with it (or void it) first."
    if match.status != Match.Status.SCHEDULED:
        return f"This fixture is {match.get_status_display().lower()}: only a fixture not yet played can be forfeited."
    return None


def fixture_forfeit(*, match: Match, forfeiting: Collection[int], reason: str, actor=None) -> Match:
    """Record a forfeit: the sides in ``forfeiting`` (team ids) did not play.

    One side forfeiting is a walkover for the other: the winner gets the season's forfeit points
    and revenue (house rules: by default a win's points and the win revenue), the forfeiting side
    the forfeit-loss points and nothing else. Both forfeiting is a double forfeit: two losses, no
    koban. No post-game sequence runs for either side (no XP, upkeep, downtime or advancement
    rolls; absences still to serve are not shortened): the game was not played (docs/rulings.md,
    "Forfeits"). Who may do it (the master) is checked by the view.
    """
    reason = text.clean_single_line(reason, field="reason", max_length=200)
    if not reason:
        raise ValidationError({"reason": "Say why the fixture is forfeited."})
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = forfeit_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        sides = list(locked.sides.select_related("team").order_by("slot"))
        ids = {s.team_id for s in sides}
        forfeiting = set(forfeiting)
        if not forfeiting or not forfeiting <= ids:
            raise ValidationError({"forfeiting": "Choose a side of this fixture."})
        if len(forfeiting) == len(sides) and locked.stage.startswith("playoff-"):
            raise ValidationError({"forfeiting": "A playoff game needs a winner: one side forfeits."})
        season = locked.season
        winners = [s for s in sides if s.team_id not in forfeiting]
        revenue = season.forfeit_win_revenue if len(winners) == 1 else 0
        for side in sides:
            won = side in winners
            side.outcome = MatchTeam.Outcome.WIN if won else MatchTeam.Outcome.LOSS
            side.points = 0
            side.koban_earned = revenue if won else 0
        update_rows(MatchTeam, sides, ["outcome", "points", "koban_earned"])
        if revenue:
            losers = ", ".join(s.team.name for s in sides if s.team_id in forfeiting)
            treasury_post(
                team=winners[0].team,
                amount=revenue,
                reason=TreasuryEntry.Reason.REVENUE,
                match=locked,
                note=f"Walkover: {losers} forfeited"[:200],
                actor=actor,
            )
        locked.status = Match.Status.FORFEITED
        locked.forfeit_reason = reason
        locked.confirmed_by = actor if getattr(actor, "pk", None) else None
        locked.confirmed_at = timezone.now()
        locked.result_draft = None
        locked.save(update_fields=["status", "forfeit_reason", "confirmed_by", "confirmed_at", "result_draft"])
        readmodel.match_standings_refresh(locked)  # the table's rows, in this transaction
        transaction.on_commit(lambda: _after_forfeit(locked.pk))
    return locked


def _after_forfeit(match_id: int) -> None:
    """A forfeited playoff game may complete its round (as a confirmation does); a failure there
    never undoes the forfeit."""
    try:
        on_match_confirmed(Match.objects.select_related("season").get(pk=match_id))
    except Exception:
        logger.exception("after-forfeit hook failed for match %s", match_id)


def replay_refusal(match: Match) -> str | None:
    """Why this fixture cannot be replayed (None when it can)."""
    if match.season_id is None:
        return "Only a league fixture can be replayed."
    if match.status != Match.Status.VOIDED:
        return "Only a voided fixture can be replayed."
    if match.season.is_finished:
        return "The season is over."
    if Match.objects.filter(replay_of=match).exists():
        return "This fixture has been replayed already."
    return None


def fixture_replay(*, match: Match, actor=None) -> Match:
    """A new fixture between the same teams (same slots, round, stage and challenge) in place of a
    voided one. A playoff replay takes the voided game's place in the bracket. Once per voided
    fixture (``Match.replay_of`` is unique)."""
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=match.season_id) if match.season_id else None
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = replay_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        teams = [s.team for s in locked.sides.select_related("team").order_by("slot")]
        # Two sides: home and away as before; a table (3 to 5 sides): the same players in the same seats.
        home, away, sides = (teams[0], teams[1], ()) if len(teams) == 2 else (None, None, teams)
        replay = fixture_create(
            season=season,
            round_number=locked.round_number,
            home=home,
            away=away,
            sides=sides,
            challenge=locked.challenge,
            rng=random.Random(secrets.randbits(63)),
            stage=locked.stage,
            pairing_reason=f"replay of the voided fixture #{locked.pk}",
            date=None,
        )
        replay.replay_of = locked
        replay.deadline, replay.place = locked.deadline, locked.place
        replay.save(update_fields=["replay_of", "deadline", "place"])
        BracketSlot.objects.filter(match=locked).update(match=replay)
        hooks.fixtures_created([replay])
    return replay


# --- the round life cycle: dates, rescheduling, editing a pairing (issue 13) ---------------------


def round_set_dates(*, season: Season, stage: str, round_number: int, starts_on=None, deadline=None) -> Round:
    """Set (or clear) a round's start and deadline; its fixtures inherit them unless they have
    their own. The round must exist (have a fixture or a bye)."""
    _check_dates(starts_on, deadline)
    if season.is_finished:
        raise ValidationError("The season is over.")
    exists = (
        season.matches.filter(stage=stage, round_number=round_number).exists()
        or season.byes.filter(stage=stage, round_number=round_number).exists()
    )
    if not exists:
        raise ValidationError(f"Round {round_number} has not been drawn.")
    with transaction.atomic():
        rnd, _ = Round.objects.update_or_create(
            season=season,
            stage=stage,
            round_number=round_number,
            defaults={"starts_on": starts_on, "deadline": deadline},
        )
    return rnd


def _open_fixture_refusal(match: Match, what: str) -> str | None:
    if match.season_id is None:
        return f"Only a league fixture can be {what}."
    if match.season.is_finished:
        return "The season is over."
    if match.status != Match.Status.SCHEDULED or match.kicked_off_at is not None:
        return f"Only a fixture not yet kicked off can be {what}."
    return None


def reschedule_refusal(match: Match) -> str | None:
    return _open_fixture_refusal(match, "rescheduled")


def fixture_reschedule(*, match: Match, date=None, deadline=None, place: str = "", actor=None) -> Match:
    """Give a fixture its own date, deadline and place (empty date or deadline: the round's).
    Marks it rescheduled. Who may do it (the master) is checked by the view."""
    place = text.clean_single_line(place or "", field="place", max_length=Match._meta.get_field("place").max_length)
    _check_dates(date, deadline)
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = reschedule_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        locked.date, locked.deadline, locked.place = date, deadline, place
        locked.rescheduled_at = timezone.now()
        locked.save(update_fields=["date", "deadline", "place", "rescheduled_at"])
    return locked


@dataclass
class PairingPlan:
    """What editing one fixture's pairing would change, and the schedule's rules it would break."""

    match: Match
    home: Team
    away: Team
    #: {fixture: (new home, new away)} for every fixture whose teams change (the edited one first)
    fixtures: dict[Match, tuple[Team, Team]] = field(default_factory=dict)
    #: {bye row: new team} for byes handed on
    byes: dict[Bye, Team] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


VIOLATION_TEXT = {
    "plays_twice": "{0} plays twice in this round.",
    "same_owner": "{0} and {1} belong to the same player.",
    "rematch": "{0} and {1} meet more often than the format allows (a rematch).",
    "score_groups": "{0} and {1} have different scores (swiss pairs teams of the same score).",
    "unpaired": "{0} has neither a game nor a bye in this round.",
}


def _round_label(match: Match) -> str:
    if match.stage.startswith("playoff-"):
        return f"Playoffs, round {match.round_number}"
    return f"Round {match.round_number}" if match.round_number else "Arranged game"


def pairing_refusal(match: Match) -> str | None:
    refusal = _open_fixture_refusal(match, "re-paired")
    if refusal:
        return refusal
    if match.stage.startswith("playoff-"):
        return "Playoff pairings follow the bracket."
    if match.season.is_tables:
        return "A table's seating is drawn by the table scheduler; it is not edited here."
    return None


def pairing_plan(*, match: Match, home: Team, away: Team) -> PairingPlan:
    """What setting ``match`` to ``home`` v ``away`` changes, with the schedule's rules checked.

    A team taken from another fixture of the same round is swapped: the team it replaces takes its
    place there (or its bye). Refusals (a fixture played or kicked off, a team outside the season,
    a team against itself) raise ValidationError; broken rules of the schedule (same player, a
    rematch, swiss score groups, a team left without a game) are listed in ``violations`` for the
    master to accept or not.
    """
    refusal = pairing_refusal(match)
    if refusal:
        raise ValidationError(refusal)
    if home.pk == away.pk:
        raise ValidationError("Choose two different teams.")
    season = match.season
    entered = _season_entry_ids(season)
    missing = [t.name for t in (home, away) if t.pk not in entered]
    if missing:
        raise ValidationError(f"Not in this season: {', '.join(missing)}.")
    plan = PairingPlan(match=match, home=home, away=away)
    old_sides = [s.team for s in match.sides.select_related("team").order_by("slot")]
    new = [home, away]
    if [t.pk for t in old_sides] == [t.pk for t in new]:
        raise ValidationError("That is the pairing already.")
    plan.fixtures[match] = (home, away)
    in_round = round_number = match.round_number
    others: list[Match] = []
    if in_round is not None:
        others = list(
            season.matches.filter(stage=match.stage, round_number=round_number)
            .exclude(pk=match.pk)
            .exclude(status=Match.Status.VOIDED)
            .prefetch_related(selectors.sides_prefetch())
        )
    byes = list(Bye.objects.filter(season=season, stage=match.stage, round_number=round_number).select_related("team"))
    old_ids = [t.pk for t in old_sides]
    outgoing = [t for t in old_sides if t.pk not in {home.pk, away.pk}]
    incoming = [t for t in new if t.pk not in old_ids]
    for team, replacement in zip(incoming, outgoing, strict=False):
        holder = next((m for m in others if team.pk in {s.team_id for s in m.sides.all()}), None)
        if holder is not None:
            if holder.status != Match.Status.SCHEDULED or holder.kicked_off_at is not None:
                raise ValidationError(f"{team.name} has already played (or kicked off) its game of this round.")
            teams = list(plan.fixtures.get(holder, tuple(s.team for s in holder.sides.all())))
            teams = [replacement if t.pk == team.pk else t for t in teams]
            plan.fixtures[holder] = (teams[0], teams[1])
            continue
        bye = next((b for b in byes if b.team_id == team.pk), None)
        if bye is not None:
            plan.byes[bye] = replacement
    # the round as it would be
    games = {m.pk: tuple(s.team for s in m.sides.all()) for m in others}
    for fixture, teams in plan.fixtures.items():
        games[fixture.pk] = teams
    label = _round_label(match)
    for fixture, (h, a) in plan.fixtures.items():
        before = " v ".join(s.team.name for s in fixture.sides.all())
        plan.changes.append(f"{label}: {before} becomes {h.name} v {a.name}.")
    for bye, team in plan.byes.items():
        plan.changes.append(f"{label}: the bye passes from {bye.team.name} to {team.name}.")
    bye_ids = {plan.byes.get(b, b.team).pk for b in byes}
    names = {t.pk: t.name for pair in games.values() for t in pair} | {t.pk: t.name for t in old_sides}
    names |= {b.team_id: b.team.name for b in byes} | {t.pk: t.name for t in plan.byes.values()}
    owners = {t.pk: t.owner_id for pair in games.values() for t in pair}
    pairs = [(h.pk, a.pk) for h, a in games.values()]
    max_meetings, scores, everyone = None, None, ()
    if in_round is not None:
        everyone = list(names)
        meetings = Counter(
            pair for pair in _history_except(season, exclude_round=(match.stage, round_number)) if len(pair) == 2
        )
        max_meetings = 2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1
        if season.format == Season.Format.SWISS:
            scores = {row.team.pk: row.points for row in selectors.league_table(season)}
    else:
        meetings = Counter()
    for v in scheduling.pairing_violations(
        pairs,
        owners=owners,
        meetings=meetings,
        max_meetings=max_meetings,
        scores=scores,
        everyone=everyone,
        byes=bye_ids,
    ):
        plan.violations.append(VIOLATION_TEXT[v.rule].format(*(names.get(t, str(t)) for t in v.teams)))
    return plan


def _history_except(season: Season, *, exclude_round: tuple[str, int]) -> list[frozenset]:
    """Every regular-season meeting (not voided) outside one round, once per game."""
    stage, number = exclude_round
    sides: dict[int, list[int]] = {}
    for match_id, team_id in (
        MatchTeam.objects.filter(match__season=season, match__stage=REGULAR_STAGE)
        .exclude(match__status=Match.Status.VOIDED)
        .exclude(match__stage=stage, match__round_number=number)
        .values_list("match_id", "team_id")
    ):
        sides.setdefault(match_id, []).append(team_id)
    return [frozenset(t) for t in sides.values()]


def fixture_edit_pairing(
    *, match: Match, home: Team, away: Team, accept_violations: bool = False, actor=None
) -> PairingPlan:
    """Apply a pairing edit (see :func:`pairing_plan`), swapping teams within the round. The plan
    is made again under the season's lock; if it breaks a rule of the schedule the master must
    have accepted it (``accept_violations``)."""
    # The season's pages show the pairings (the fixtures' and byes' update() below).
    with invalidation.changing(("season", match.season_id)), transaction.atomic():
        Season.objects.select_for_update().get(pk=match.season_id)
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        plan = pairing_plan(match=locked, home=home, away=away)
        if plan.violations and not accept_violations:
            raise ValidationError(plan.violations)
        fixtures = list(plan.fixtures)
        for fixture in Match.objects.select_for_update().filter(pk__in=[m.pk for m in fixtures]).order_by("pk"):
            if fixture.status != Match.Status.SCHEDULED or fixture.kicked_off_at is not None:
                raise ValidationError("A fixture of this change has kicked off meanwhile: look again.")
        MatchTeam.objects.filter(match__in=fixtures).delete()
        MatchTeam.objects.bulk_create(
            MatchTeam(match=fixture, team=team, slot=slot)
            for fixture, pair in plan.fixtures.items()
            for slot, team in enumerate(pair, start=1)
        )
        Match.objects.filter(pk__in=[m.pk for m in fixtures]).update(pairing_reason="pairing edited by the master")
        for bye, team in plan.byes.items():
            Bye.objects.filter(pk=bye.pk).update(team=team, reason="bye: handed on by the master's pairing edit")
        if plan.byes and match.stage == REGULAR_STAGE and readmodel.counts_bye_points(locked.season):
            moved = {b.team_id for b in plan.byes} | {t.pk for t in plan.byes.values()}
            readmodel.standings_refresh(season=locked.season, team_ids=moved)  # the bye's points move
    return plan
