"""What a confirmed result costs the ratings: rating the whole history again (the baseline, the
service's ``force=True``) against the incremental update (issue 29, part 4), side by side in one run.

Run by hand (PostgreSQL; a database of its own, "bench_ratings", made and dropped here):
    .venv/bin/python benchmarks/ratings_incremental.py                # 128 players, 16,256 games
    .venv/bin/python benchmarks/ratings_incremental.py --players 32 --rounds 3

A Ninjutsu league of ``--players`` entrants plays a double round robin (``--rounds`` cycles of
it: 128 players, two cycles, 16,256 games), its matches and sides bulk-written (the ratings read
only confirmed matches, their sides and the season entries). Each figure is the median of
``--repeat`` runs of CPU time (this process plus its PostgreSQL backend, as the pages benchmark
counts it) and wall time:

* **full**: every period rated again (what each result cost before);
* **latest**: a result of the latest round confirmed, then the update (the usual case);
* **late**: a result of a round ten rounds back confirmed late, then the update (that period and
  the ten after it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_ratings"


def database_url() -> str:
    url = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("DATABASE_URL") or DEFAULT_URL
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/bench_ratings"))


def admin(url: str):
    import psycopg

    return psycopg.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")), autocommit=True)


def backend_cpu() -> float:
    """The PostgreSQL backend's CPU seconds (/proc of the server process, same machine)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn) -> tuple[float, float, object]:
    cpu0, back0, wall0 = time.process_time(), backend_cpu(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu0 + backend_cpu() - back0, time.perf_counter() - wall0, result


def seed(players: int, cycles: int):
    from django.contrib.auth import get_user_model

    from games import registry as games
    from league.models import League, Season, SeasonEntry
    from league.scheduling import round_robin
    from matches.models import Match, MatchTeam
    from teams.models import Team

    User = get_user_model()
    master = User.objects.create(username="bench-master")
    league = League.objects.create(name="Bench Dojo", slug="bench-dojo", master=master, game=games.NINJUTSU)
    season = Season.objects.create(league=league, name="Bench 1", number=1, format=Season.Format.ROUND_ROBIN)
    users = User.objects.bulk_create(User(username=f"bench-{i}") for i in range(players))
    teams = Team.objects.bulk_create(
        Team(owner=u, name=f"Player {i}", game=games.NINJUTSU, league=league, entry_status="accepted")
        for i, u in enumerate(users)
    )
    SeasonEntry.objects.bulk_create(SeasonEntry(season=season, team=t) for t in teams)
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    pairs = []
    for rnd in round_robin([t.pk for t in teams], cycles=cycles):
        for p in rnd.pairings:
            pairs.append((rnd.number, p.home, p.away))
    matches = Match.objects.bulk_create(
        Match(
            league=league,
            season=season,
            round_number=number,
            status=Match.Status.CONFIRMED,
            confirmed_at=t0 + dt.timedelta(hours=number * 24, seconds=i),
        )
        for i, (number, _h, _a) in enumerate(pairs)
    )
    sides = []
    for i, (match, (_n, home, away)) in enumerate(zip(matches, pairs, strict=True)):
        first_wins = (i * 7919) % 3 != 0
        sides.append(MatchTeam(match=match, team_id=home, slot=1, outcome="win" if first_wins else "loss", points=1))
        sides.append(MatchTeam(match=match, team_id=away, slot=2, outcome="loss" if first_wins else "win", points=0))
    MatchTeam.objects.bulk_create(sides, batch_size=2000)
    return season, matches, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2, help="cycles of the round robin")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    url = database_url()
    with admin(url) as conn:
        conn.execute('DROP DATABASE IF EXISTS "bench_ratings" WITH (FORCE)')
        conn.execute('CREATE DATABASE "bench_ratings"')
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    import django

    django.setup()
    from django.core.management import call_command

    try:
        call_command("migrate", verbosity=0)
        from matches.models import Match
        from stats import ratings

        _season, matches, pairs = seed(args.players, args.rounds)
        last_round = max(p[0] for p in pairs)
        print(f"{len(matches):,} games, {last_round} rounds, {args.players} players")
        # hold back one game of the latest round and one ten rounds back, confirmed during the runs
        held = {}
        for label, number in (("latest", last_round), ("late", last_round - 10)):
            held[label] = [m for m, p in zip(matches, pairs, strict=True) if p[0] == number][: args.repeat]
            Match.objects.filter(pk__in=[m.pk for m in held[label]]).update(status=Match.Status.SCHEDULED)
        ratings.ratings_recompute(force=True)
        figures: dict[str, list[tuple[float, float, int]]] = {"full": [], "latest": [], "late": []}
        for i in range(args.repeat):
            cpu, wall, done = timed(lambda: ratings.ratings_recompute(force=True))
            figures["full"].append((cpu, wall, done.rerated))
            for label in ("latest", "late"):
                match = held[label][i]
                late = dt.timedelta(days=400 + i)
                Match.objects.filter(pk=match.pk).update(
                    status=Match.Status.CONFIRMED, confirmed_at=match.confirmed_at + late
                )
                cpu, wall, done = timed(ratings.ratings_recompute)
                figures[label].append((cpu, wall, done.rerated))
        print(f"{'update':<8} {'CPU s (median)':>15} {'wall s':>8} {'periods rated':>14}")
        for label, rows in figures.items():
            cpu = statistics.median(r[0] for r in rows)
            wall = statistics.median(r[1] for r in rows)
            print(f"{label:<8} {cpu:>15.3f} {wall:>8.3f} {rows[-1][2]:>14}")
        full = statistics.median(r[0] for r in figures["full"])
        latest = statistics.median(r[0] for r in figures["latest"])
        print(f"a result of the latest round costs {latest / full:.3f} of rating the whole history")
    finally:
        from django.db import connections

        connections.close_all()
        with admin(url) as conn:
            conn.execute('DROP DATABASE IF EXISTS "bench_ratings" WITH (FORCE)')


if __name__ == "__main__":
    main()
