"""The playoff bracket: deciding slots and creating the next round once a round is complete."""

from __future__ import annotations

import random
import secrets
import uuid

from django.db import transaction

from league import hooks, scheduling
from league.models import BracketSlot, ScheduleRun, Season
from league.services.fixtures import fixture_create
from league.services.schedules import run_done, write_plan
from matches.models import Match, MatchTeam, playoff_stage


def _slot_winner(slot: BracketSlot, sides: list[MatchTeam]) -> int | None:
    """The team going through from a decided slot, None while undecided.

    A drawn playoff game sends the better seed (home) through (docs/rulings.md, "Leagues").
    """
    if slot.is_bye:
        return slot.home_id
    match = slot.match
    if match is None or not match.is_decided:
        return None
    for side in sides:
        if side.outcome == MatchTeam.Outcome.WIN:
            return side.team_id
    return slot.home_id


def playoffs_advance(*, season: Season, rng: random.Random | None = None) -> list[Match]:
    """Decide finished playoff slots and create the next round once a round is complete.

    Safe to call at any time and any number of times: it creates nothing until every game of
    the latest round is confirmed, and the next round's run is unique. A voided playoff game is
    replaced by a new fixture between the same teams. Returns the fixtures it created.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=season.pk)
        slots = list(
            BracketSlot.objects.filter(season=season)
            .select_related("match")
            .prefetch_related("match__sides")
            .order_by("round_number", "slot")
        )
        if not slots or season.is_finished:
            return []
        last = max(s.round_number for s in slots)
        current = [s for s in slots if s.round_number == last]
        rng = rng or random.Random(secrets.randbits(63))
        made: list[Match] = []
        for slot in current:
            if slot.winner_id is None and slot.match is not None and slot.match.status == Match.Status.VOIDED:
                replay = fixture_create(
                    season=season,
                    round_number=last,
                    home=slot.home,
                    away=slot.away,
                    rng=rng,
                    stage=playoff_stage(last),
                    pairing_reason=f"replay: seed {slot.home_seed} v seed {slot.away_seed}",
                )
                replay.replay_of = slot.match
                replay.save(update_fields=["replay_of"])
                slot.match = replay
                slot.save(update_fields=["match"])
                made.append(replay)
                hooks.fixtures_created([replay])
                continue
            if slot.winner_id is None:
                winner = _slot_winner(slot, list(slot.match.sides.all()) if slot.match else [])
                if winner is not None:
                    slot.winner_id = winner
                    slot.save(update_fields=["winner"])
        if made or any(s.winner_id is None for s in current) or len(current) == 1:
            return made
        results = [
            (
                scheduling.BracketMatch(
                    round=s.round_number,
                    slot=s.slot,
                    home=s.home_id,
                    away=s.away_id,
                    home_seed=s.home_seed,
                    away_seed=s.away_seed,
                ),
                s.winner_id,
            )
            for s in current
        ]
        upcoming = scheduling.next_round(results)
        nxt = last + 1
        run, created = ScheduleRun.objects.get_or_create(
            season=season,
            kind=ScheduleRun.Kind.PLAYOFF,
            round_number=nxt,
            defaults={"task_id": str(uuid.uuid4()), "seed": secrets.randbits(63)},
        )
        if not created and run.status == ScheduleRun.Status.DONE:
            return []
        fixtures = []
        for bm in upcoming:
            slot = BracketSlot(
                season=season,
                round_number=nxt,
                slot=bm.slot,
                home_id=bm.home,
                away_id=bm.away,
                home_seed=bm.home_seed,
                away_seed=bm.away_seed,
            )
            fixtures.append((nxt, bm.home, bm.away, f"seed {bm.home_seed} v seed {bm.away_seed}", slot))
        run.total = len(fixtures)
        made = write_plan(run=run, season=season, fixtures=fixtures, byes=[], rng=random.Random(run.seed))
        run_done(run, len(made))
        return made


def on_match_confirmed(match: Match) -> list[Match]:
    """Hook for the post-game sequence: a confirmed playoff game may complete its round.

    A safe no-op for anything but a playoff match of a season.
    """
    if not match.season_id or match.playoff_round is None:
        return []
    return playoffs_advance(season=match.season)
