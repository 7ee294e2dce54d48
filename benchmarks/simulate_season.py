"""A simulated season: engine-only matches per second, then the full season with persistence.

Run by hand (PostgreSQL; the script makes and drops its own database, named by --db-name):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python benchmarks/simulate_season.py [--teams 16] [--seed 1] [--db-name moonlight_bench_sim]

Sixteen teams (the six demo clans' legal starting rosters, in turn) play a double round robin:
240 matches. Printed:

* engine only: the same 240 fixtures simulated by rules.engine.simulator from the kick-off roster
  snapshots (no database), matches per second of CPU time, the median of --engine-rounds passes,
  at the interpreter's default garbage collector and as the simulation jobs run the engine (the
  collector's generation-0 threshold raised, common.collector.fewer_collections), alternately;
  then the same for allowance-maximum rosters;
* full season: league.services.simulations.simulation_job_run for "the rest of the season" (what the
  Celery task runs, here called in-process: no broker), i.e. kick-off snapshots, the simulator,
  the post-game sequence, the policy's advancement choices, one transaction per match; matches
  per second and SQL queries per match;
* the same season's league table leaders, as a sanity check.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _database_url(base: str, name: str) -> tuple[str, str]:
    parts = urlsplit(base)
    if not parts.scheme.startswith("postgres"):
        raise SystemExit("DATABASE_URL must point at a PostgreSQL server (postgres://...)")
    admin = urlunsplit(parts._replace(path="/postgres"))
    return urlunsplit(parts._replace(path=f"/{name}")), admin


def _recreate(admin_url: str, name: str, *, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db-name", default="moonlight_bench_sim")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database afterwards")
    parser.add_argument(
        "--max-roster-matches", type=int, default=120, help="engine-only matches between allowance-maximum rosters"
    )
    parser.add_argument(
        "--engine-rounds", type=int, default=3, help="passes of each engine-only workload and collector (median)"
    )
    parser.add_argument("--json", help="also write the figures to this file (benchmarks/run_all.py)")
    args = parser.parse_args()

    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    url, admin = _database_url(base, args.db_name)
    _recreate(admin, args.db_name)
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)  # in-process: no broker
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    os.environ["DEBUG"] = "0"  # as in production: no query log kept in memory
    os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-not-for-production")
    try:
        _run(args)
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _recreate(admin, args.db_name, drop_only=True)


class Cpu:
    """CPU seconds of this process plus its PostgreSQL backend (``/proc/<pid>/schedstat``: local server)."""

    def __init__(self, connection):
        self.connection = connection

    def now(self) -> float:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        backend = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
        return time.process_time() + backend


def _engine_times(play, rounds: int) -> tuple[float, float]:
    """The median CPU seconds of ``play()`` at the interpreter's default collector and under the
    simulation jobs' own (``fewer_collections``, league.services.simulations), ``rounds`` passes
    of each, alternately (so a machine's slow spell falls on both)."""
    from common.collector import fewer_collections

    default, job = [], []
    for _ in range(max(1, rounds)):
        start = time.process_time()
        play()
        default.append(time.process_time() - start)
        with fewer_collections():
            start = time.process_time()
            play()
            job.append(time.process_time() - start)
    return statistics.median(default), statistics.median(job)


def _run(args) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.exceptions import ValidationError
    from django.core.management import call_command
    from django.db import connection

    from games.allstars.demo import DEMO_TEAMS
    from league import services as league_services
    from league.models import League, ScheduleRun, Season
    from league.selectors import league_table
    from league.services import simulations
    from matches import services as match_services
    from matches import simulation
    from matches.models import Match, SimulationJob
    from rules.engine import league as rules_league
    from rules.engine import simulator as engine
    from rules.models import Clan, Profile
    from teams import services as team_services
    from teams.models import Team

    t0 = time.perf_counter()
    call_command("migrate", verbosity=0)
    User = get_user_model()
    master = User.objects.create(username="bench-master")

    def make_league(name: str, slug: str) -> tuple:
        league = League.objects.create(name=name, slug=slug, master=master)
        season = league_services.season_create(league=league, format=Season.Format.DOUBLE_ROUND_ROBIN)
        for i in range(args.teams):
            _, _, clan, roster = DEMO_TEAMS[i % len(DEMO_TEAMS)]
            owner = User.objects.create(username=f"{slug}-{i}")
            team = team_services.team_create(
                owner=owner, name=f"Team {i + 1}", clan=Clan.objects.get(slug=clan), league=league
            )
            for profile_slug, count in roster:
                profile = Profile.objects.get(slug=profile_slug)
                chosen = list(profile.abilities.all()[: profile.choose_abilities])
                for _ in range(count):
                    team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen)
            team_services.team_mark_ready(team=team)
            league_services.application_accept(team=team)
        run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, seed=args.seed)
        league_services.schedule_generate(run_id=run.pk)
        return league, season

    _, season = make_league("Benchmark League", "benchmark")
    matches = list(Match.objects.filter(season=season).select_related("challenge").order_by("round_number", "id"))
    setup = time.perf_counter() - t0

    # Engine only: every fixture from its kick-off rosters (snapshots taken without writing).
    # A fixture whose challenge a player is to choose plays a Brawl here.
    fixtures = []
    for match in matches:
        sides = []
        for side, team, rating in match_services.live_sides(match):
            side.roster_snapshot = match_services.roster_snapshot(team)
            side.rating = rating
            sides.append(side)
        bonuses = rules_league.underdog_bonuses([s.rating for s in sides])
        challenge = simulation.sim_challenge(match.challenge) if match.challenge_id else engine.CHALLENGES["brawl"]
        fixtures.append((simulation.sim_teams(sides), challenge, bonuses))

    # The engine's rates are CPU time (no database: the process's own), robust to a busy machine,
    # each the median of --engine-rounds passes, measured at the interpreter's default collector
    # and as the simulation jobs run the engine (common.collector.fewer_collections), alternately.
    def play_fixtures():
        for i, (teams, challenge, bonuses) in enumerate(fixtures):
            engine.simulate_match(teams, challenge, rng=random.Random(f"{args.seed}:{i}"), underdog=bonuses)

    engine_time, engine_job_time = _engine_times(play_fixtures, args.engine_rounds)

    # Full season with persistence: what the Celery task runs.
    job, _ = simulations.simulation_request(actor=master, scope="season", season=season, seed=args.seed)
    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    cpu = Cpu(connection)
    start, cpu0 = time.perf_counter(), cpu.now()
    with connection.execute_wrapper(count):
        job = simulations.simulation_job_run(job_id=job.pk)
    full_time, full_cpu = time.perf_counter() - start, cpu.now() - cpu0

    # Round by round: another league of the same teams, one "simulate this round" job a round
    # (what a master clicking round after round runs), in CPU time with the database's.
    _, weekly = make_league("Benchmark League, round by round", "benchmark-rounds")
    rounds_played, round_cpu, cpu0 = 0, 0.0, cpu.now()
    while Match.objects.filter(season=weekly, status=Match.Status.SCHEDULED).exists():
        round_job, _ = simulations.simulation_request(
            actor=master, scope=SimulationJob.Scope.ROUND, season=weekly, max_rounds=1, seed=args.seed
        )
        round_job = simulations.simulation_job_run(job_id=round_job.pk)
        rounds_played += round_job.done
        if not round_job.done:
            break
    round_cpu = cpu.now() - cpu0

    n = len(matches)
    print(f"{args.teams} teams, double round robin: {n} matches (setting up the league took {setup:.1f} s)")
    print(
        f"engine only, CPU time:    {n / engine_time:6.1f} matches/s ({1000 * engine_time / n:.1f} ms a match); "
        f"as the jobs run it (fewer collections): {n / engine_job_time:6.1f} matches/s"
    )
    print(
        f"full season, PostgreSQL:  {job.done / full_time:6.1f} matches/s ({1000 * full_time / job.done:.1f} ms a match, "
        f"{queries[0] / job.done:.1f} SQL queries a match)"
    )
    print(
        f"full season, CPU time:    {job.done / full_cpu:6.1f} matches/s (process and PostgreSQL backend; "
        f"{1000 * full_cpu / job.done:.1f} ms a match)"
    )
    print(
        f"round by round, CPU time: {rounds_played / round_cpu:6.1f} matches/s ({rounds_played} matches, "
        f"one job a round; process and PostgreSQL backend)"
    )
    leaders = league_table(season)[:3]
    print("leaders: " + ", ".join(f"{r.team.name} {r.points} pts ({r.won}-{r.drawn}-{r.lost})" for r in leaders))

    # Engine only, rosters at the allowance maximum: every profile of the clan as many times as
    # its allowance lets (heroes once), paid for with a koban correction so recruitment's checks
    # still run. One team per demo clan, each against the next, the challenges in turn.
    from matches.models import MatchTeam
    from rules.models import Challenge
    from teams.selectors import teams_with_ratings

    big = []
    for i, (_, _, clan_slug, _) in enumerate(DEMO_TEAMS):
        clan = Clan.objects.get(slug=clan_slug)
        owner = User.objects.create(username=f"bench-max-{i}")
        team = team_services.team_create(owner=owner, name=f"Full {clan.name}", clan=clan)
        team_services.treasury_post(team=team, amount=10_000, reason="correction", note="benchmark: full roster")
        for profile in Profile.objects.filter(clan=clan).prefetch_related("abilities").order_by("order"):
            chosen = list(profile.abilities.all()[: profile.choose_abilities])
            for _ in range(profile.allowance_max or 1):
                with contextlib.suppress(ValidationError):  # a hero's second copy, say
                    team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen)
        big.append(team.pk)
    full = list(teams_with_ratings(Team.objects.filter(pk__in=big).order_by("pk")))
    models = [len(t.roster) for t in full]
    challenges = [simulation.sim_challenge(c) for c in Challenge.objects.prefetch_related("xp_awards").order_by("id")]
    pairs = []
    for i in range(args.max_roster_matches):
        home, away = full[i % len(full)], full[(i + 1) % len(full)]
        sides = [
            MatchTeam(team=t, slot=k + 1, roster_snapshot=match_services.roster_snapshot(t))
            for k, t in enumerate((home, away))
        ]
        pairs.append((simulation.sim_teams(sides), challenges[i % len(challenges)]))

    def play_pairs():
        for i, (teams, challenge) in enumerate(pairs):
            engine.simulate_match(teams, challenge, rng=random.Random(f"{args.seed}:max:{i}"))

    max_time, max_job_time = _engine_times(play_pairs, args.engine_rounds)
    print(
        f"engine only, allowance-maximum rosters ({min(models)}-{max(models)} models a team): "
        f"{len(pairs) / max_time:6.1f} matches/s ({1000 * max_time / len(pairs):.1f} ms a match); "
        f"as the jobs run it: {len(pairs) / max_job_time:6.1f} matches/s"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "matches": n,
                    "engine_per_s": n / engine_time,
                    "persisted_per_s": job.done / full_time,
                    "persisted_cpu_per_s": job.done / full_cpu,
                    "round_by_round_cpu_per_s": rounds_played / round_cpu,
                    "queries_per_match": queries[0] / job.done,
                    "engine_max_roster_per_s": len(pairs) / max_time,
                    "engine_job_per_s": n / engine_job_time,
                    "engine_max_roster_job_per_s": len(pairs) / max_job_time,
                    "engine_rounds": args.engine_rounds,
                    "max_roster_models": [min(models), max(models)],
                }
            )
        )


if __name__ == "__main__":
    main()
