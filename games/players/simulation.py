"""Simulated fixtures of the games whose entrants are players (issue 17, part 4): a strength model,
not a game engine, shared by them; each game's package draws its own record
(``games/<key>/simulation.py``, its ``Game.strength_record``). The books leave out what an engine would need (the board, piece counts, card
values, die faces), so the players' ratings decide the result and the game's pure simulator
(``games.*.engine``) dresses it as the game's result record:

* **Ninjutsu**: the first side's chance of winning is Glicko-2's expected score from the two
  players' stored strength ratings (:func:`ratings.glicko2.win_probabilities`; an unrated player
  counts as a new one); ``games.ninjutsu.engine.simulate_game`` draws the starter (the d6 toss),
  the winner and how the Soke died (the battle odds as flavour). The colours are "Red" and "Blue",
  given by a coin toss (the book does not name them, NJ l.22).
* **Kage Masters**: the players' Plackett-Luce strengths come from their stored table ratings
  (:func:`ratings.multiplayer.table_strengths`); the Kage Masters are dealt at random, all
  different (KM l.9), the first-round turn order is shuffled, and
  ``games.kage_masters.engine.simulate_table`` draws the finishing order and the treasures.

The record is the one a player would enter (matches.game_results; the Kage Masters record of
docs/leagues.md) and is confirmed through the same service path as an entered result
(:func:`matches.services._apply_game_result`): each side's outcome and points, the league table,
the result's events; nothing of the All-Stars post-game sequence runs. Everything is drawn from
``random.Random(f"{match.seed}:simulation")`` (the seed is stored on the match and on its
:class:`~matches.models.SimulationRun`), so a simulated game replays.

:func:`simulate_batch` is the players' games' counterpart of :func:`matches.simulation.simulate_batch`
(a round's fixtures, no player twice, in one transaction): its queries do not grow with the number
of matches beyond a fixed few per match, and a job reads the ratings once (:class:`SeasonRatings`).
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from common import invalidation
from games import registry
from matches import services
from matches.models import Match, MatchTeam, SimulationJob, SimulationRun
from ratings import glicko2, multiplayer
from teams.models import StrengthRating

if TYPE_CHECKING:
    from django.contrib.auth.models import User

GLICKO2, PLACKETT_LUCE = StrengthRating.System.GLICKO2, StrengthRating.System.PLACKETT_LUCE

Ratings = Mapping[int, Mapping[str, StrengthRating]]


def simulated_games() -> frozenset[str]:
    """The games a strength model simulates (those whose ``Game`` has a ``strength_record``)."""
    return frozenset(key for key, site in registry.sites().items() if site.strength_record is not None)


def ratings_of(team_ids: Sequence[int]) -> dict[int, dict[str, StrengthRating]]:
    """{team id: {system: rating}} of the given players, in one query."""
    found: dict[int, dict[str, StrengthRating]] = {}
    for row in StrengthRating.objects.filter(team_id__in=list(team_ids)):
        found.setdefault(row.team_id, {})[row.system] = row
    return found


class SeasonRatings:
    """The players' ratings a simulation job reads, loaded once: the first batch reads those of
    every player with a fixture in its season (one query), a later batch only players it has not
    seen (none in a season whose fixtures existed; one query for a round generated with a player
    new to the job). The ratings do not move while a job runs (their recomputation follows it)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, StrengthRating]] = {}
        self.known: set[int] = set()

    def load(self, team_ids: set[int], season_id: int | None) -> dict[int, dict[str, StrengthRating]]:
        """The ratings of ``team_ids`` (and, the first time, of the season's players)."""
        wanted = team_ids - self.known
        if not wanted:
            return self.rows
        if season_id is not None and not self.known:
            wanted |= set(
                MatchTeam.objects.filter(match__season_id=season_id).values_list("team_id", flat=True).distinct()
            )
        for row in StrengthRating.objects.filter(team_id__in=sorted(wanted)):
            self.rows.setdefault(row.team_id, {})[row.system] = row
        self.known |= wanted
        return self.rows


def glicko_rating(stored: Mapping[str, StrengthRating] | None) -> glicko2.Rating:
    row = (stored or {}).get(GLICKO2)
    return glicko2.Rating(row.rating, row.deviation, row.volatility) if row else glicko2.Rating()


def table_rating(stored: Mapping[str, StrengthRating] | None) -> multiplayer.TableRating:
    row = (stored or {}).get(PLACKETT_LUCE)
    return multiplayer.TableRating(row.rating, row.deviation) if row else multiplayer.TableRating()


# --- the records ---------------------------------------------------------------------------------


def simulated_record(
    game: str, sides: Sequence[MatchTeam], ratings: Ratings, *, rng: random.Random, rules: Any = None
) -> dict[str, Any]:
    """The record of a simulated fixture of ``game`` between ``sides`` (in slot order), drawn by
    that game's own ``Game.strength_record`` (its package's ``simulation.py``), under the season's
    ``rules`` (the game reads its own from them: Ninjutsu's time limit)."""
    site = registry.sites().get(game)
    if site is None or site.strength_record is None:
        raise ValidationError(f"No strength-model simulator for {game!r}.")
    return site.strength_record(sides, ratings, rng=rng, rules=rules)


# --- simulating fixtures -------------------------------------------------------------------------


def _confirm(locked: Match, record: dict[str, Any], *, actor: User | None, also_save: Sequence[str]) -> None:
    """Submit and confirm a simulated record at once (a simulation is the master's own result):
    the same confirmation as an entered result's (outcome, points, the table's rows, events)."""
    locked.submitted_record = record
    locked.status = Match.Status.SUBMITTED
    locked.submitted_by = actor if getattr(actor, "pk", None) else None
    locked.submitted_at = timezone.now()
    locked.simulated = True
    locked.result_draft = None
    fields = [*also_save, "submitted_record", "submitted_by", "submitted_at", "simulated", "result_draft"]
    services._apply_game_result(locked, actor=actor, data=record, also_save=fields)


def simulate_batch(
    matches: Sequence[Match],
    *,
    seeds: Mapping[int, int],
    actor: User | None = None,
    policy: str = SimulationJob.Policy.AUTO,
    job: SimulationJob | None = None,
    ratings: SeasonRatings | None = None,
) -> tuple[list[SimulationRun], None]:
    """Simulate scheduled fixtures of a players' game in one transaction (``seeds``: by match id;
    a match no longer scheduled is left alone). The matches are locked and read with their sides
    in two queries, the players' ratings in one, the league table's rows brought up to date once
    (:func:`matches.services.results_written_once`) and the runs written in one. ``ratings``: a
    job's :class:`SeasonRatings`, kept from batch to batch so the job reads the ratings once.
    Returns the runs and None (nothing stops a players' game kicking off: it has none)."""
    made: list[SimulationRun] = []
    with transaction.atomic(), services.results_written_once():
        ids = [m.pk for m in matches]
        locked = {
            m.pk: m
            for m in Match.objects.select_for_update(of=("self",))
            .filter(pk__in=ids)
            .select_related("league", "season")
            .order_by("pk")
        }
        sides: dict[int, list[MatchTeam]] = {pk: [] for pk in ids}
        for side in MatchTeam.objects.filter(match_id__in=ids).order_by("match_id", "slot"):
            sides[side.match_id].append(side)
        team_ids = {s.team_id for found in sides.values() for s in found}
        if ratings is None:
            ratings = SeasonRatings()
        season_id = next((m.season_id for m in locked.values() if m.season_id is not None), None)
        rated = ratings.load(team_ids, season_id)
        for pk in ids:
            started = time.perf_counter()
            match = locked[pk]
            if match.status != Match.Status.SCHEDULED:
                continue
            if not services.players_game(match) or match.league.game not in simulated_games():
                raise ValidationError(f"{match} is not a fixture of a players' game.")
            seed = seeds.get(pk)
            fields = []
            if seed is not None and match.seed != seed:
                match.seed = seed
                fields.append("seed")
            elif match.seed is None:
                match.seed = secrets.randbits(62)
                fields.append("seed")
            record = simulated_record(
                match.league.game,
                sides[pk],
                rated,
                rng=random.Random(f"{match.seed}:simulation"),
                rules=services.house_rules_for(match),
            )
            _confirm(match, record, actor=actor, also_save=fields)
            made.append(
                SimulationRun(
                    match=match,
                    job=job,
                    seed=match.seed,
                    policy=policy,
                    log=[f"Strength model: {match.league.game}"],
                    decisions={"record": record},
                    elapsed_ms=int((time.perf_counter() - started) * 1000),
                    created_by=actor if getattr(actor, "pk", None) else None,
                )
            )
        runs = SimulationRun.objects.bulk_create(made)
        if job is not None and runs:
            with invalidation.changing():  # a job's progress: shown on no cached page
                SimulationJob.objects.filter(pk=job.pk).update(done=F("done") + len(runs))
    for match in matches:
        if match.pk in locked:
            services.copy_columns(locked[match.pk], match)
    return runs, None


def simulate_match(
    *,
    match: Match,
    seed: int | None = None,
    actor: User | None = None,
    policy: str = SimulationJob.Policy.AUTO,
    job: SimulationJob | None = None,
    **_: Any,
) -> SimulationRun | None:
    """Simulate one fixture of a players' game (None when it is no longer scheduled)."""
    runs, _blocked = simulate_batch(
        [match], seeds={match.pk: seed} if seed is not None else {}, actor=actor, job=job, policy=policy
    )
    return runs[0] if runs else None
