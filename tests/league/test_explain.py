"""Every query the member pages run on the tables that grow with a league's history can use an
index (issue 15, part 2): each SELECT the season table, fixtures, team scroll and match pages run
is EXPLAINed on PostgreSQL with sequential scans disabled, and no plan may still scan one of those
tables whole. (With ``enable_seqscan = off`` the planner takes an index whenever one fits the
query, so a sequential scan left in the plan means no index can serve it, at any league size.)"""

from __future__ import annotations

import re

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import PASSWORD
from tests.league.helpers import generate, make_season, play, regular

#: The tables that grow with the number of teams, games and seasons.
GROWING = (
    "matches_match",
    "matches_matchteam",
    "matches_matchninja",
    "teams_treasuryentry",
    "teams_ninja",
    "teams_advancementroll",
    "league_seasonentry",
    "league_round",
)


def plans_scanning_growing_tables(client: Client, url: str) -> tuple[list[str], int]:
    """(the plans that still scan a growing table whole, how many plans touched one)."""
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    bad, touched = [], 0
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            for query in ctx.captured_queries:
                sql = query["sql"]
                if not sql.lstrip().upper().startswith("SELECT"):
                    continue
                cursor.execute("EXPLAIN " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                touched += any(t in sql for t in GROWING)
                scanned = [t for t in GROWING if re.search(rf"Seq Scan on {t}\b", plan)]
                if scanned:
                    bad.append(f"{url}: {scanned} in\n{sql}\n{plan}")
        finally:
            cursor.execute("SET enable_seqscan = on")
    return bad, touched


def test_member_pages_use_indexes_on_the_growing_tables(postgres, catalog):
    season = make_season(8)
    generate(season, "round_robin")
    for match in regular(season).order_by("round_number", "pk")[:8]:
        play(match, 3, 1)
    master = Client()
    master.login(username=season.league.master.username, password=PASSWORD)
    team = season.entries.select_related("team").first().team
    match = regular(season).order_by("round_number", "pk").first()
    urls = [
        season.get_absolute_url(),
        reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number}),
        reverse("teams:detail", args=[team.pk]),
        reverse("matches:detail", args=[match.pk]),
    ]
    bad = []
    for url in urls:
        found, touched = plans_scanning_growing_tables(master, url)
        assert touched >= 2, f"{url}: only {touched} queries on the growing tables were checked"
        bad += found
    assert not bad, "\n\n".join(bad)


def test_the_check_sees_a_query_no_index_serves(postgres, catalog):
    """The same EXPLAIN check flags a filter on a column without an index."""
    from matches.models import Match

    sql = str(Match.objects.filter(place="Dojo").query)
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN " + sql.replace("= Dojo", "= 'Dojo'"))
            plan = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("SET enable_seqscan = on")
    assert "Seq Scan on matches_match" in plan


def test_the_counts_by_round_are_read_off_their_index_alone(postgres, catalog):
    """The master's desk and a league's front page count every fixture of the season by round
    (``league.dashboard.round_progress``; 32,640 at 256 teams): the groups are a prefix of
    ``match_round_progress_idx`` and every column the count reads is in it, so the plan is an
    index-only scan aggregated in the index's order (no table row read, nothing hashed or sorted);
    the rounds' dates are read with no join."""
    from league import dashboard

    season = make_season(8)
    generate(season, "round_robin")
    for match in regular(season).order_by("round_number", "pk")[:5]:
        play(match, 3, 1)
    with CaptureQueriesContext(connection) as ctx:
        rounds = dashboard.round_progress(season)
    assert sum(r.played for r in rounds) == 5 and sum(r.total for r in rounds) == 28
    counts, dates = (q["sql"] for q in sorted(ctx.captured_queries, key=lambda q: "matches_match" not in q["sql"]))
    assert "JOIN" not in dates.upper() and "league_round" in dates
    with connection.cursor() as cursor:
        # Every other way of reading the table or of grouping is priced out (for this test's
        # transaction), so the planner takes an index-only scan in the index's order whenever the
        # index can serve one, whatever the statistics of a database the suite has filled; a
        # disabled plan is still chosen when nothing else fits, and shows here.
        for method in ("seqscan", "indexscan", "bitmapscan", "sort", "hashagg"):
            cursor.execute(f"SET LOCAL enable_{method} = off")
        cursor.execute("EXPLAIN " + counts)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using match_round_progress_idx" in plan, plan
    assert "HashAggregate" not in plan and "Sort" not in plan, plan


def test_a_teams_latest_ledger_lines_are_read_off_its_own_index(postgres, catalog):
    """The scroll's latest ledger lines (``teams.selectors.recent_ledger``) and the ledger's pages
    read ``ledger_team_id_idx`` (team, id) backwards from the team's last line: the index holds the
    filter and the order. With the team's index alone the plan walked the primary key backwards
    and filtered out every newer line of every other team (44,000 rows at 64 teams, 6 ms), or read
    the team's every line and sorted them."""
    from teams import selectors as team_selectors
    from teams import services as team_services

    season = make_season(4)
    teams = [entry.team for entry in season.entries.select_related("team")]
    for i in range(3):
        for team in teams:
            team_services.treasury_post(team=team, amount=1 + i, reason="correction", note="explain")
    with CaptureQueriesContext(connection) as ctx:
        lines = team_selectors.recent_ledger(teams[0], limit=2)
    assert [line.amount for line in lines] == [3, 2]
    (sql,) = (q["sql"] for q in ctx.captured_queries)
    with connection.cursor() as cursor:
        # a scan of the whole table and a sort of the team's lines priced out, as above
        for method in ("seqscan", "sort"):
            cursor.execute(f"SET LOCAL enable_{method} = off")
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan Backward using ledger_team_id_idx" in plan, plan
    assert "Filter" not in plan and "Sort" not in plan, plan
