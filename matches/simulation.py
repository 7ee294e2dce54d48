"""Simulated matches: the rules engine's match simulator, run on a fixture's kick-off rosters, and
its record put through the same post-game sequence as a result a player enters.

* :func:`simulate_match` simulates one fixture (idempotent: a match no longer scheduled is left
  alone). Everything it writes is one transaction, with a number of queries that does not grow
  with the rosters (the post-game sequence writes in bulk; so do the policy's advancements).
* :func:`simulation_request` records the master's request (a :class:`SimulationJob`: one fixture,
  one round, or the rest of a season) for a Celery task; :func:`simulation_job_run` is what the
  task runs, one match per transaction, so a retried task carries on where it stopped.

Post-game choices, by a stated policy (docs/simulation.md, "Simulated seasons"):

* **Ronin upkeep** (always, because a simulated result runs the whole sequence at once): pay each
  ronin, in roster order, while the treasury after this game's revenue covers its fee; release the
  others. The sequence itself forces a release when the treasury cannot pay.
* **Advancements** (policy ``auto``; ``pending`` leaves every roll to the players): see
  :func:`choose_advancement`.

Determinism: the match's stored seed drives everything. The simulator plays with
``random.Random(f"{seed}:simulation")``; downtime and advancement dice come from the same seed as
for any match (matches.services). A job derives each match's seed from its own seed and the match
id, and each generated round's schedule seed from its seed and the round.
"""

from __future__ import annotations

import random
import secrets
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Prefetch
from django.utils import timezone

from league.models import REGULAR_STAGE, ScheduleRun, Season
from matches import services
from matches.models import Match, MatchTeam, SimulationJob, SimulationRun
from outbox import jobs
from rules.catalog import catalog_data
from rules.engine import league as rules_league
from rules.engine import postgame
from rules.engine import simulator as engine
from rules.engine.dice import ELEMENTS, Element
from rules.engine.records import MatchRecord, SideSnapshot
from rules.models import Challenge, Keyword
from teams.models import Advancement, AdvancementRoll, Ninja
from teams.permissions import is_league_master

Progress = Callable[[int, int], None]

AUTO = SimulationJob.Policy.AUTO
PENDING = SimulationJob.Policy.PENDING
POLICIES = (AUTO, PENDING)

#: Doubles results, best first (the rulebook allows one of them per doubles roll).
ATTRIBUTE_PREFERENCE = ("attack", "defense", "movement")

#: Keywords the policy takes, best first (only those the roll offers; the model's element
#: Masteries come right after Close Combat Master). Ranged models put Ranged Master and Accurate
#: first. Unique keywords (Resilient, Hero, Ronin) can never be gained.
KEYWORD_PREFERENCE = (
    "Close Combat Master",
    "<Mastery>",
    "Dauntless",
    "Guard",
    "Combined Attack",
    "Tora's Claws",
    "Backstab",
    "Emptiness",
    "Tough",
    "Focus",
    "Dirty Fighter",
    "Sensei",
    "Precision Strike",
    "Gale of Blows",
    "Sprint",
    "Nimble",
    "Kitsune's Bite",
    "Engulf",
    "Blood Lust",
    "Fortune",
    "Regeneration",
    "Ika's Tentacles",
    "Tidal Wave",
    "Vigilance",
    "Sneaky",
)
RANGED_PREFERENCE = ("Ranged Master", "Accurate")


# --- converting at the edge ----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _catalog_profiles() -> dict[str, Mapping[str, Any]]:
    """Catalog entries by slug (profiles and ronin), for what the kick-off snapshot does not hold
    (the ranged profile). In memory: no query."""
    data = catalog_data()
    entries = {p["slug"]: p for clan in data["clans"] for p in clan["profiles"]}
    entries.update({r["slug"]: r for r in data["ronin"]})
    return entries


def sim_ninja(row: Mapping[str, Any]) -> engine.SimNinja:
    """One kick-off roster snapshot row as the simulator's model (current attributes, gained
    keywords and affinities, chosen abilities, availability)."""
    entry = _catalog_profiles().get(row.get("profile_slug", ""), {})
    return engine.SimNinja(
        ninja_id=row["id"],
        name=row["name"],
        kind=row["kind"],
        movement=row["movement"],
        attack=row["attack"],
        defense=row["defense"],
        affinities=tuple(row["affinities"]),
        keywords=frozenset(row["keywords"]),
        abilities=frozenset(row["abilities"]),
        ranged=entry.get("ranged"),
        ranged_attack_bonus=entry.get("ranged_attack_bonus") or 0,
        ranged_text=entry.get("ranged_text") or "",
        available=row["available"],
        starts_in_healing_house=row["starts_in_healing_house"],
    )


def sim_teams(sides: Sequence[MatchTeam]) -> list[engine.SimTeam]:
    return [
        engine.SimTeam(side.team_id, tuple(sim_ninja(row) for row in side.roster_snapshot or []), name=side.team.name)
        for side in sides
    ]


def sim_challenge(challenge: Challenge) -> engine.SimChallenge:
    known = engine.CHALLENGES.get(challenge.slug)
    if known is not None:
        return known
    return engine.SimChallenge.from_catalog(
        {
            "slug": challenge.slug,
            "name": challenge.name,
            "ninjas_allowed": challenge.ninjas_allowed,
            "rounds": challenge.rounds,
            "xp_awards": [{"key": a.key} for a in challenge.xp_awards.all()],
        }
    )


def underdog_for(sides: Sequence[MatchTeam]) -> list[rules_league.UnderdogBonus]:
    """The bonuses recorded at kick-off, one per side in slot order."""
    return services.kicked_off_bonuses(sides)


def derived_seed(seed: int, what: str) -> int:
    """A seed for one part of a job (a match, a round's schedule) from the job's seed."""
    return random.Random(f"{seed}:{what}").getrandbits(62)


# --- the post-game policy ------------------------------------------------------------------------


def upkeep_policy(*, sides: Sequence[MatchTeam], record: MatchRecord, rules: Mapping[str, Any]) -> dict[int, str]:
    """Pay each ronin (roster order) while the treasury after this game's revenue covers its fee;
    release the rest. Returns {ninja id: "pay" | "release"}. The revenue is the post-game
    sequence's own (rules.engine.postgame.side_revenue)."""
    revenue_rules = services.postgame_rules(rules)
    decisions: dict[int, str] = {}
    for side in sides:
        roster = tuple(services.roster_entry(row) for row in side.roster_snapshot or [])
        ronin = [entry for entry in roster if entry.is_ronin]
        if not ronin:
            continue
        snapshot = SideSnapshot(team_id=side.team_id, name="", roster=roster, bonus_koban=side.bonus_koban)
        outcome = record.outcome_for(side.team_id)
        earned = postgame.side_revenue(snapshot, record.team(side.team_id), outcome, rules=revenue_rules)
        balance = side.team.treasury + earned.total
        for entry in ronin:
            if balance >= entry.upkeep:
                decisions[entry.ninja_id] = "pay"
                balance -= entry.upkeep
            else:
                decisions[entry.ninja_id] = "release"
    return decisions


def choose_advancement(
    options: Sequence[rules_league.AdvancementOption],
    *,
    affinities: Iterable[str],
    ranged: bool = False,
) -> rules_league.AdvancementOption:
    """The policy's pick among an advancement roll's options:

    1. a doubles attribute: +1 Attack, else +1 Defense, else +1 Movement;
    2. an additional affinity (Earth doubles): the first missing element in die order
       (Spirit, Void, Earth, Air, Water, Fire);
    3. a keyword, by :data:`KEYWORD_PREFERENCE` (ranged models: Ranged Master and Accurate first;
       ``<Mastery>`` stands for the Mastery of each of the model's affinities, in order);
    4. otherwise the first option offered.
    """
    if not options:
        raise ValueError("an advancement roll always offers something")
    attributes = {o.attribute: o for o in options if o.kind == "attribute"}
    for attribute in ATTRIBUTE_PREFERENCE:
        if attribute in attributes:
            return attributes[attribute]
    new_affinities = {o.affinity: o for o in options if o.kind == "affinity"}
    for element in ELEMENTS:
        if element in new_affinities:
            return new_affinities[element]
    keywords = {o.keyword: o for o in options if o.kind == "keyword"}
    preference: list[str] = list(RANGED_PREFERENCE) if ranged else []
    for name in KEYWORD_PREFERENCE:
        if name == "<Mastery>":
            preference.extend(f"{Element(a).value} Mastery" for a in affinities)
        else:
            preference.append(name)
    for name in preference:
        if name in keywords:
            return keywords[name]
    return options[0]


def _auto_advance(match: Match) -> list[dict[str, Any]]:
    """Take the pending advancement rolls (dice rolled) this simulated match earned by the policy,
    in bulk: a fixed number of queries however many rolls there are. Returns what was chosen.

    Only this match's rolls: a roll earned in a match the players played, or left to them by a
    "pending" simulation, stays theirs to choose (issue 13)."""
    rolls = [
        r
        for r in AdvancementRoll.objects.filter(
            match=match,
            status=AdvancementRoll.Status.PENDING,
            ninja__status=Ninja.Status.ACTIVE,
        ).order_by("ninja_id", "id")
        if r.faces
    ]
    if not rolls:
        return []
    ninjas = (
        Ninja.objects.filter(pk__in={r.ninja_id for r in rolls})
        .select_related("profile")
        .prefetch_related(
            "profile__keywords", Prefetch("advancements", queryset=Advancement.objects.select_related("keyword"))
        )
        .in_bulk()
    )
    keyword_rows = {k.name: k for k in Keyword.objects.only("id", "name", "category")}
    categories = {name: k.category for name, k in keyword_rows.items()}
    state: dict[int, tuple[list[str], set[str]]] = {}
    for nid, ninja in ninjas.items():
        advs = list(ninja.advancements.all())
        affinities = list(ninja.profile.affinities) + [a.affinity for a in advs if a.kind == Advancement.Kind.AFFINITY]
        keywords = {k.name for k in ninja.profile.keywords.all()} | {
            a.keyword.name for a in advs if a.kind == Advancement.Kind.KEYWORD and a.keyword_id
        }
        state[nid] = (affinities, keywords)
    made: list[Advancement] = []
    chosen: list[dict[str, Any]] = []
    for roll in rolls:
        affinities, keywords = state[roll.ninja_id]
        options = rules_league.advancement_options(
            roll.faces,
            affinities=affinities,
            current_keywords=keywords,
            keyword_categories=categories,
        )
        ranged = bool(_catalog_profiles().get(ninjas[roll.ninja_id].profile.slug, {}).get("ranged"))
        option = choose_advancement(options, affinities=affinities, ranged=ranged)
        if option.kind == "keyword":
            made.append(
                Advancement(
                    ninja_id=roll.ninja_id,
                    kind=Advancement.Kind.KEYWORD,
                    keyword=keyword_rows[option.keyword],
                    roll=roll,
                )
            )
            keywords.add(option.keyword)
        elif option.kind == "attribute":
            made.append(Advancement(ninja_id=roll.ninja_id, kind=option.attribute, roll=roll))
        else:
            made.append(
                Advancement(
                    ninja_id=roll.ninja_id, kind=Advancement.Kind.AFFINITY, affinity=option.affinity.value, roll=roll
                )
            )
            affinities.append(option.affinity.value)
        roll.status = AdvancementRoll.Status.CHOSEN
        chosen.append(
            {"ninja": roll.ninja_id, "roll": roll.pk, "faces": roll.faces, "choice": services.option_key(option)}
        )
    Advancement.objects.bulk_create(made)
    AdvancementRoll.objects.bulk_update(rolls, ["status"])
    return chosen


# --- one match -----------------------------------------------------------------------------------


def _dice_summary(dice: Sequence[engine.DiceRecord]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for d in dice:
        entry = summary.setdefault(d.kind, {"rolls": 0, "dice": 0, "faces": Counter()})
        entry["rolls"] += 1
        entry["dice"] += len(d.faces)
        entry["faces"].update(d.faces)
    for entry in summary.values():
        entry["faces"] = dict(entry["faces"])
    return summary


def _pick_challenge(match: Match) -> Challenge:
    """A fixture whose challenge is still to be chosen: the chooser's pick is made at random
    (from the match's seed) among the eight challenges."""
    challenges = list(Challenge.objects.order_by("order", "id"))
    return random.Random(f"{match.seed}:challenge").choice(challenges)


def simulate_match(
    *,
    match: Match,
    seed: int | None = None,
    actor=None,
    policy: str = AUTO,
    job: SimulationJob | None = None,
) -> SimulationRun | None:
    """Simulate a scheduled fixture and apply its post-game sequence; None when there is nothing
    to do (the match is already played, submitted or voided: simulating twice is a no-op).

    ``seed`` (optional) becomes the match's seed; without it the stored seed (or a new one) is
    used. ``policy``: "auto" takes the advancement rolls this match earned by
    :func:`choose_advancement` (never a roll left to the players from another match); "pending"
    leaves them to the players. A team with an unchosen roll cannot kick off
    (:class:`matches.services.KickOffBlocked`). Who may ask is checked by
    the caller (views: the league's master).
    """
    if policy not in POLICIES:
        raise ValidationError(f"Unknown simulation policy {policy!r}.")
    started = time.perf_counter()
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .get(pk=match.pk)
        )
        if locked.status != Match.Status.SCHEDULED:
            return None
        fields = []
        if seed is not None and locked.seed != seed:
            locked.seed = seed
            fields.append("seed")
        elif locked.seed is None:
            locked.seed = secrets.randbits(62)
            fields.append("seed")
        if locked.challenge_id is None:
            locked.challenge = _pick_challenge(locked)
            fields.append("challenge")
        if fields:
            locked.save(update_fields=fields)
        services.match_kick_off(match=locked)
        sides = list(locked.sides.select_related("team").order_by("slot"))
        result = engine.simulate_match(
            sim_teams(sides),
            sim_challenge(locked.challenge),
            rng=random.Random(f"{locked.seed}:simulation"),
            underdog=underdog_for(sides),
        )
        record = result.record
        upkeep = upkeep_policy(sides=sides, record=record, rules=services.house_rules_for(locked))
        services.match_submit_result(match=locked, record=record, actor=actor, upkeep=upkeep, simulated=True)
        advancements: list[dict[str, Any]] = []
        if policy == AUTO:
            advancements = _auto_advance(locked)
        run = SimulationRun.objects.create(
            match=locked,
            job=job,
            seed=locked.seed,
            policy=policy,
            rounds_played=result.rounds_played,
            ended_early=result.ended_early,
            log=list(result.log),
            dice=[[d.round, d.kind, d.model, list(d.faces)] for d in result.dice],
            dice_summary=_dice_summary(result.dice),
            decisions={"upkeep": {str(k): v for k, v in upkeep.items()}, "advancements": advancements},
            elapsed_ms=int((time.perf_counter() - started) * 1000),
            created_by=actor if getattr(actor, "pk", None) else None,
        )
        if job is not None:  # the job's progress moves with the match, in the same transaction
            SimulationJob.objects.filter(pk=job.pk).update(done=F("done") + 1)
    match.refresh_from_db()
    return run


# --- jobs: one fixture, a round, the rest of a season ---------------------------------------------

OPEN = (SimulationJob.Status.PENDING, SimulationJob.Status.RUNNING)


def next_round(season: Season) -> tuple[str, int | None] | None:
    """The round "simulate this round" plays: the earliest (stage, round) with a scheduled
    fixture (regular season first, then the playoff rounds); None when nothing is scheduled."""
    first = (
        season.matches.filter(status=Match.Status.SCHEDULED)
        .order_by("stage", "round_number", "id")
        .values("stage", "round_number")
        .first()
    )
    return (first["stage"], first["round_number"]) if first else None


def default_weekly_rounds(season: Season) -> int:
    return max(1, season.entries.count() - 1)


def _asked_again(job: SimulationJob) -> SimulationJob:
    """A request for a fixture or season with an unfinished job: the job, with
    ``job.request_outcome`` saying what became of the request. The job is refused as "under way"
    only while it is really alive ("running"); a job whose worker stopped (no sign of life for
    JOB_STALE_SECONDS) is resumed now ("resumed"); one whose task waits in the outbox for the
    broker is "waiting" (beat sends it when the broker is back)."""
    kind = jobs.kind_of(SimulationJob)
    outcome = jobs.state(kind, job, backoff=False)
    if outcome == "stopped" and jobs.resume_if_stopped(kind, job.pk, asked=True):
        job.refresh_from_db()
        outcome = "resumed"
    # "alive", or "stopped" but its row locked by a worker after all: under way.
    job.request_outcome = outcome if outcome in ("resumed", "waiting") else "running"
    return job


def simulation_request(
    *,
    actor,
    scope: str,
    policy: str = AUTO,
    match: Match | None = None,
    season: Season | None = None,
    max_rounds: int | None = None,
    seed: int | None = None,
) -> tuple[SimulationJob, bool]:
    """Record the master's request; the caller dispatches :func:`matches.tasks.simulation_job_task`
    after commit when the job is new. Asking again while a job for the same fixture (or season) is
    unfinished returns that job, resumed if its worker stopped (see :func:`_asked_again`).
    Returns (job, created)."""
    if policy not in POLICIES:
        raise ValidationError(f"Unknown simulation policy {policy!r}.")
    if scope not in SimulationJob.Scope.values:
        raise ValidationError(f"Unknown simulation scope {scope!r}.")
    with transaction.atomic():
        if scope == SimulationJob.Scope.MATCH:
            if match is None:
                raise ValidationError("Which fixture?")
            match = Match.objects.select_for_update(of=("self",)).select_related("league", "season").get(pk=match.pk)
            if not services.is_master_of(actor, match):
                raise PermissionDenied("Only the league's ninja master may simulate a fixture.")
            existing = SimulationJob.objects.filter(match=match, scope=scope, status__in=OPEN).first()
            if existing is not None:
                return _asked_again(existing), False
            if match.status != Match.Status.SCHEDULED:
                raise ValidationError(f"This match is already {match.get_status_display().lower()}.")
            if match.kicked_off_at is None:
                blockers = services.kick_off_blockers(match)
                if blockers:
                    raise ValidationError(services.kick_off_blocker_messages(blockers))
            fields = {
                "league_id": match.league_id,
                "season_id": match.season_id,
                "match": match,
                "round_number": match.round_number,
            }
        else:
            if season is None:
                raise ValidationError("Which season?")
            season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=season.pk)
            if not is_league_master(actor, season.league):
                raise PermissionDenied("Only the league's ninja master may simulate the season.")
            existing = SimulationJob.objects.filter(
                season=season, scope__in=["round", "season"], status__in=OPEN
            ).first()
            if existing is not None:
                return _asked_again(existing), False
            if season.is_finished:
                raise ValidationError("The season is over.")
            fields = {"league_id": season.league_id, "season": season}
            if scope == SimulationJob.Scope.ROUND:
                current = next_round(season)
                if current is None:
                    raise ValidationError("No fixture is waiting to be played: generate the next round first.")
                fields["stage"], fields["round_number"] = current
            elif season.format == Season.Format.RANDOM_WEEKLY:
                fields["max_rounds"] = max_rounds or default_weekly_rounds(season)
        try:
            with transaction.atomic():
                job = SimulationJob.objects.create(
                    scope=scope,
                    policy=policy,
                    seed=secrets.randbits(62) if seed is None else seed,
                    task_id=str(uuid.uuid4()),
                    requested_by=actor if getattr(actor, "pk", None) else None,
                    queued_at=timezone.now(),
                    **fields,
                )
        except IntegrityError:  # pragma: no cover - the row locks above serialise requests
            raise ValidationError("A simulation is already running here.") from None
    return job, True


def simulation_job_failed(*, job_id: int, error: str) -> None:
    SimulationJob.objects.filter(pk=job_id).exclude(status=SimulationJob.Status.DONE).update(
        status=SimulationJob.Status.FAILED, error=error[:300], finished_at=timezone.now()
    )


class _Runner:
    """Plays a job's matches one transaction at a time, keeping the progress record in step."""

    def __init__(self, job: SimulationJob, progress: Progress | None) -> None:
        self.job = job
        self.progress = progress
        self.done = job.runs.count()  # a retried job counts what it already played
        self.total = max(job.total, self.done)

    def report(self, total: int | None = None) -> None:
        """Send the progress to the task; a new total is also written to the job row (``done``
        is counted there by each match's own transaction)."""
        if total is not None and max(total, self.done) != self.total:
            self.total = max(total, self.done)
            SimulationJob.objects.filter(pk=self.job.pk).update(total=self.total)
        if self.progress is not None:
            self.progress(self.done, self.total)
        jobs.heartbeat(SimulationJob, self.job.pk)  # throttled: one write every few seconds

    def play(self, matches: Iterable[Match]) -> int:
        played = 0
        for match in matches:
            run = simulate_match(
                match=match,
                seed=derived_seed(self.job.seed, f"match:{match.pk}"),
                actor=self.job.requested_by,
                policy=self.job.policy,
                job=self.job,
            )
            if run is not None:
                played += 1
                self.done += 1
                self.report()
        return played


def _scheduled(season: Season, **filters):
    return season.matches.filter(status=Match.Status.SCHEDULED, **filters).order_by("stage", "round_number", "id")


def _season_remaining(job: SimulationJob, season: Season) -> int:
    """Matches still to simulate in the rest of the season: scheduled ones plus an estimate of the
    rounds still to generate (the progress bar's total)."""
    from league import services as league_services

    n = season.entries.count()
    per_round = n // 2
    remaining = _scheduled(season).count()
    kind = league_services.FORMAT_KIND.get(season.format)
    regular = season.matches.filter(stage=REGULAR_STAGE).exclude(status=Match.Status.VOIDED)
    last = season.schedule_runs.filter(kind=kind).aggregate(n=Max("round_number"))["n"] or 0
    if kind == ScheduleRun.Kind.ROUND_ROBIN and not regular.exists():
        remaining += n * (n - 1) // 2 * (2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1)
    elif kind == ScheduleRun.Kind.RANDOM_WEEKLY:
        remaining += max(0, (job.max_rounds or default_weekly_rounds(season)) - last) * per_round
    elif kind == ScheduleRun.Kind.SWISS:
        remaining += max(0, (season.swiss_rounds or 0) - last) * per_round
    if season.playoff_teams >= 2 and not season.bracket_slots.exists():
        remaining += min(season.playoff_teams, n) - 1
    return remaining


def _generate(season: Season, kind: str, round_number: int, job: SimulationJob) -> ScheduleRun:
    from league import services as league_services

    run = league_services.schedule_request(
        season=season,
        kind=kind,
        round_number=round_number,
        actor=job.requested_by,
        seed=derived_seed(job.seed, f"schedule:{kind}:{round_number}"),
    )
    run = league_services.schedule_generate(run_id=run.pk)
    if run.status == ScheduleRun.Status.FAILED:
        raise ValidationError(f"Could not generate {run}: {run.error}")
    return run


def _run_season(job: SimulationJob, runner: _Runner) -> str:
    """Play every scheduled fixture, generating the next rounds (weekly, swiss) or the whole round
    robin when none exists, then the playoffs if the season has them. Returns why it stopped."""
    from league import services as league_services

    season = job.season
    kind = league_services.FORMAT_KIND.get(season.format)
    while True:
        season.refresh_from_db()
        if season.is_finished:
            return "The season is over."
        runner.report(runner.done + _season_remaining(job, season))
        regular = list(_scheduled(season, stage=REGULAR_STAGE))
        if regular:
            runner.play(regular)
            continue
        if kind is None:
            break  # self-arranged: only the fixtures the players arranged
        regular_exists = season.matches.filter(stage=REGULAR_STAGE).exclude(status=Match.Status.VOIDED).exists()
        if kind == ScheduleRun.Kind.ROUND_ROBIN and regular_exists:
            break
        round_number, problems = league_services.schedule_next(season, kind)
        if problems:
            if kind == ScheduleRun.Kind.SWISS and season.swiss_rounds and round_number > season.swiss_rounds:
                break
            return "Stopped: " + " ".join(problems)
        if kind == ScheduleRun.Kind.RANDOM_WEEKLY and round_number > (job.max_rounds or default_weekly_rounds(season)):
            break
        _generate(season, kind, round_number, job)
    if season.playoff_teams < 2:
        return "Every round of the season is played."
    if not season.bracket_slots.exists():
        _, problems = league_services.schedule_next(season, ScheduleRun.Kind.PLAYOFF)
        if problems:
            return "Regular season played; playoffs not started: " + " ".join(problems)
        _generate(season, ScheduleRun.Kind.PLAYOFF, 1, job)
    while True:
        league_services.playoffs_advance(season=season)  # idempotent; also run after each confirmation
        playoff = [m for m in _scheduled(season) if m.stage != REGULAR_STAGE]
        runner.report(runner.done + _scheduled(season).count())
        if not playoff:
            return "Every round of the season and the playoffs are played."
        runner.play(playoff)


def simulation_job_run(*, job_id: int, progress: Progress | None = None) -> SimulationJob:
    """Run a job (what the Celery task calls). Safe to run again: a done job returns at once, each
    match is its own transaction and a played match is skipped."""
    job = SimulationJob.objects.select_related("season", "season__league", "match", "requested_by").get(pk=job_id)
    if job.is_finished:
        return job
    SimulationJob.objects.filter(pk=job.pk, status=SimulationJob.Status.PENDING).update(
        status=SimulationJob.Status.RUNNING
    )
    jobs.heartbeat(SimulationJob, job.pk, force=True)
    runner = _Runner(job, progress)
    note = ""
    try:
        if job.scope == SimulationJob.Scope.MATCH:
            runner.report(runner.done + (1 if job.match.status == Match.Status.SCHEDULED else 0))
            runner.play([job.match])
        elif job.scope == SimulationJob.Scope.ROUND:
            matches = list(_scheduled(job.season, stage=job.stage, round_number=job.round_number))
            runner.report(runner.done + len(matches))
            runner.play(matches)
            if job.stage != REGULAR_STAGE:
                from league import services as league_services

                league_services.playoffs_advance(season=job.season)
        else:
            note = _run_season(job, runner)
    except services.KickOffBlocked as exc:
        # The simulator never makes a choice left to the players: it stops where a team waits for one.
        note = "Stopped: " + " ".join(exc.messages)
    except ValidationError as exc:
        simulation_job_failed(job_id=job.pk, error="; ".join(exc.messages))
        return SimulationJob.objects.get(pk=job.pk)
    SimulationJob.objects.filter(pk=job.pk).update(
        status=SimulationJob.Status.DONE,
        done=runner.done,
        total=runner.done,
        note=note[:300],
        finished_at=timezone.now(),
        error="",
    )
    job.refresh_from_db()
    if progress is not None:
        progress(job.done, job.total)
    return job
