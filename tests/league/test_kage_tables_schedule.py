"""Kage Masters seasons scheduled as tables (issue 17, part 3): the table formats, the planners
over games.tables, the Celery task path, byes, replays, and the pages listing 3-5 sided fixtures."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games import registry as games
from games import tables as game_tables
from league import selectors, services
from league.forms import SeasonForm
from league.models import Bye, ScheduleRun, Season
from league.readmodel import match_standings_refresh
from league.services.schedules import swiss_standings
from matches.models import Match, MatchTeam
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import generate

pytestmark = pytest.mark.usefixtures("catalog")

TABLES = ScheduleRun.Kind.TABLES
SWISS_TABLES = ScheduleRun.Kind.SWISS_TABLES


def kage_season(n: int, *, format: str = Season.Format.TABLES, rounds: int = 4, **house_rules) -> Season:
    """A Kage Masters league's open season of ``rounds`` rounds with ``n`` players (K01..Kn)."""
    league = LeagueFactory(game=games.KAGE_MASTERS, **house_rules)
    season = services.season_create(league=league, format=format, swiss_rounds=rounds)
    for i in range(n):
        entry = services.player_apply(user=UserFactory(), league=league, display_name=f"K{i + 1:02d}")
        services.application_accept(team=entry)
    return season


def play_table(match: Match, treasure: dict[int, int]) -> None:
    """A table's result written straight into the database (result entry is another part of issue
    17): each side's treasure as its points, one league point per opponent with less treasure,
    first place (shared too) a win; the table's rows follow, as the services would."""
    sides = list(match.sides.all())
    best = max(treasure[s.team_id] for s in sides)
    for side in sides:
        mine = treasure[side.team_id]
        side.points = mine
        side.league_points = sum(1 for o in sides if treasure[o.team_id] < mine)
        side.outcome = "win" if mine == best else "loss"
        side.save(update_fields=["points", "league_points", "outcome"])
    match.status = Match.Status.CONFIRMED
    match.save(update_fields=["status"])
    match_standings_refresh(match)


def play_round(season: Season, round_number: int, treasure) -> None:
    for match in Match.objects.filter(season=season, round_number=round_number, status="scheduled"):
        play_table(match, {s.team_id: treasure(s.team_id) for s in match.sides.all()})


def tables_of(season: Season, round_number: int | None = None) -> list[tuple[int, ...]]:
    """The season's regular tables (sides' team ids in slot order), in match order."""
    rows = MatchTeam.objects.filter(match__season=season, match__stage="").exclude(match__status="voided")
    if round_number is not None:
        rows = rows.filter(match__round_number=round_number)
    tables: dict[int, list[int]] = {}
    for match_id, team_id in rows.order_by("match_id", "slot").values_list("match_id", "team_id"):
        tables.setdefault(match_id, []).append(team_id)
    return [tuple(t) for t in tables.values()]


def entry_ids(season: Season) -> list[int]:
    return sorted(season.entries.values_list("team_id", flat=True))


# --- formats by game -------------------------------------------------------------------------------


def test_each_game_offers_its_own_formats():
    assert Season.formats_for(games.KAGE_MASTERS) == ("tables", "swiss_tables", "self_arranged")
    pairwise = ("round_robin", "double_round_robin", "random_weekly", "swiss", "self_arranged")
    assert Season.formats_for(games.ALLSTARS) == Season.formats_for(games.NINJUTSU) == pairwise


@pytest.mark.parametrize(
    ("game", "format", "message"),
    [
        (games.KAGE_MASTERS, "round_robin", "its games are tables of several players"),
        (games.KAGE_MASTERS, "swiss", "Choose one of: tables of 3 to 5"),
        (games.ALLSTARS, "tables", "its games are one side against another"),
        (games.NINJUTSU, "swiss_tables", "Choose one of: single round robin"),
    ],
)
def test_a_format_of_another_game_is_refused(game, format, message):
    league = LeagueFactory(game=game)
    with pytest.raises(ValidationError, match=message):
        services.season_create(league=league, format=format, swiss_rounds=3)
    assert not league.seasons.exists()


def test_a_table_season_needs_its_number_of_rounds_and_has_no_playoffs():
    league = LeagueFactory(game=games.KAGE_MASTERS)
    with pytest.raises(ValidationError, match="how many rounds of tables"):
        services.season_create(league=league, format=Season.Format.TABLES)
    with pytest.raises(ValidationError, match="has no playoffs: the league table after the last round decides"):
        services.season_create(league=league, format=Season.Format.SWISS_TABLES, swiss_rounds=3, playoff_teams=4)
    season = services.season_create(league=league, format=Season.Format.SWISS_TABLES, swiss_rounds=3)
    assert (season.swiss_rounds, season.playoff_teams, season.is_tables) == (3, 0, True)
    _, problems = services.schedule_next(season, ScheduleRun.Kind.PLAYOFF)
    assert problems == [
        "A Ninja Dice: Kage Masters season has no playoffs: the league table after the last round decides."
    ]
    # a self-arranged Kage season keeps no count of rounds
    season.status = Season.Status.FINISHED
    season.save(update_fields=["status"])
    arranged = services.season_create(league=league, format=Season.Format.SELF_ARRANGED, swiss_rounds=3)
    assert arranged.swiss_rounds is None


def test_the_season_form_shows_the_games_formats_only(client, django_assert_max_num_queries):
    kage = LeagueFactory(game=games.KAGE_MASTERS)
    form = SeasonForm(game=games.KAGE_MASTERS)
    assert [v for v, _ in form.fields["format"].choices] == ["tables", "swiss_tables", "self_arranged"]
    assert "playoff_teams" not in form.fields
    assert [v for v, _ in SeasonForm().fields["format"].choices][:4] == [
        "round_robin",
        "double_round_robin",
        "random_weekly",
        "swiss",
    ]
    client.force_login(kage.master)
    url = reverse("league:season_create", kwargs={"slug": kage.slug})
    with django_assert_max_num_queries(5):
        html = client.get(url).content.decode()
    assert 'value="tables"' in html and 'value="round_robin"' not in html and 'name="playoff_teams"' not in html
    page = client.post(url, {"name": "", "format": "round_robin", "swiss_rounds": 3})
    assert page.status_code == 200 and "Select a valid choice" in page.content.decode()
    page = client.post(url, {"name": "", "format": "tables", "swiss_rounds": ""})
    assert "Say how many rounds of tables the season has." in page.content.decode()
    response = client.post(url, {"name": "Winter Tables", "format": "tables", "swiss_rounds": 5})
    season = kage.seasons.get()
    assert response.status_code == 302 and (season.format, season.swiss_rounds) == ("tables", 5)


# --- tables of 3 to 5, fewest repeat meetings -----------------------------------------------------


def test_a_season_of_13_players_sits_everyone_at_tables_of_3_to_5_every_round():
    season = kage_season(13, rounds=4)
    ids = entry_ids(season)
    rng = random.Random(7)
    reported = 0
    for number in range(1, 5):
        before = tables_of(season)
        run = generate(season, TABLES, seed=1000 + number)
        assert run.status == ScheduleRun.Status.DONE and run.round_number == number
        tables = tables_of(season, number)
        seated = [p for t in tables for p in t]
        byes = list(Bye.objects.filter(season=season, round_number=number).values_list("team_id", flat=True))
        # every player plays or has a recorded bye, once
        assert sorted(seated + byes) == ids
        assert byes == [] and sorted(len(t) for t in tables) == [4, 4, 5]
        # the planner's tables are games.tables' for this seed and this history
        expected = game_tables.table_round(ids, history=before, rng=random.Random(1000 + number), number=number)
        assert [tuple(t.players) for t in expected.tables] == tables
        reported += expected.repeats
        # each fixture names its table and the pairs meeting again
        for match in Match.objects.filter(season=season, round_number=number):
            assert match.pairing_reason.startswith(f"table of {match.sides.count()}")
        play_round(season, number, lambda team_id: rng.randint(0, 20))
    # the repeat meetings are those games.tables reported, and no fewer than its lower bound
    meetings = game_tables.meeting_counts(tables_of(season))
    repeats = sum(m - 1 for m in meetings.values())
    assert repeats == reported
    assert repeats >= game_tables.repeat_lower_bound(13, [(5, 4, 4)] * 4)
    # the season is over after its rounds
    _, problems = services.schedule_next(season, TABLES)
    assert problems == ["All 4 rounds of tables have been seated."]


def test_the_same_seed_gives_the_same_tables():
    def draw(seed: int) -> list[list[int]]:
        season = kage_season(13, rounds=2)
        base = min(entry_ids(season))
        generate(season, TABLES, seed=seed)
        return [[p - base for p in t] for t in tables_of(season, 1)]

    assert draw(99) == draw(99)
    assert draw(99) != draw(100)


def test_a_round_waits_for_the_last_one_and_a_run_done_is_not_run_again():
    season = kage_season(8, rounds=3)
    run = generate(season, TABLES)
    assert sorted(len(t) for t in tables_of(season, 1)) == [4, 4]
    _, problems = services.schedule_next(season, TABLES)
    assert problems == ["Every fixture of round 1 must be played (or voided) first."]
    # the same request again finds the same run; running it again writes nothing
    assert services.schedule_request(season=season, kind=TABLES, round_number=1).pk == run.pk
    services.schedule_generate(run_id=run.pk)
    assert Match.objects.filter(season=season).count() == 2
    # the pairwise kinds are not this season's
    _, problems = services.schedule_next(season, ScheduleRun.Kind.ROUND_ROBIN)
    assert problems == ["A tables of 3 to 5, fewest repeat meetings season has no round robin schedule."]


def test_too_few_players_for_a_table():
    season = kage_season(2, rounds=2)
    _, problems = services.schedule_next(season, TABLES)
    assert problems == ["At least 3 players must be entered (a table seats 3 to 5)."]


def test_a_bye_is_recorded_with_its_reason_when_the_numbers_do_not_divide(monkeypatch):
    """With 3 to 5 every count from 3 seats everyone; tables of exactly 4 leave the rest out."""
    season = kage_season(10, rounds=3)
    real = game_tables.table_round
    monkeypatch.setattr(game_tables, "table_round", lambda *a, **kw: real(*a, **kw, min_size=4, max_size=4))
    for number in (1, 2):
        generate(season, TABLES, seed=number)
        byes = Bye.objects.filter(season=season, round_number=number)
        assert byes.count() == 2 and sorted(len(t) for t in tables_of(season, number)) == [4, 4]
        assert byes.first().reason == "bye: 10 players cannot all sit at tables of 3 to 5; fewest byes so far"
        play_round(season, number, lambda team_id: team_id % 7)
    # the byes went to four different players (the fewest byes so far)
    assert len(set(Bye.objects.filter(season=season).values_list("team_id", flat=True))) == 4
    # a bye scores nothing in a table season
    assert not season.entries.filter(byes__gt=0).exists()


def test_a_voided_table_is_replayed_with_the_same_players_in_the_same_seats():
    season = kage_season(5, rounds=1)
    generate(season, TABLES)
    match = Match.objects.get(season=season)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED)  # as the season's end voids it
    replay = services.fixture_replay(match=match)
    assert list(replay.sides.order_by("slot").values_list("team_id", flat=True)) == list(
        match.sides.order_by("slot").values_list("team_id", flat=True)
    )
    assert (
        services.pairing_refusal(replay) == "A table's seating is drawn by the table scheduler; it is not edited here."
    )


def test_fixture_create_refuses_a_table_larger_than_the_game_allows():
    season = kage_season(6, rounds=1)
    players = list(season.league.teams.order_by("id"))
    with pytest.raises(ValidationError, match="2 to 5 sides"):
        services.fixture_create(season=season, round_number=1, sides=players, rng=random.Random(1))
    with pytest.raises(ValidationError, match="twice at a table"):
        services.fixture_create(season=season, round_number=1, sides=players[:2] * 2, rng=random.Random(1))


# --- swiss tables ----------------------------------------------------------------------------------


def test_swiss_tables_seat_players_by_standing():
    season = kage_season(12, format=Season.Format.SWISS_TABLES, rounds=3)
    generate(season, SWISS_TABLES)
    assert sorted(len(t) for t in tables_of(season, 1)) == [4, 4, 4]
    # treasure by team id: at each table the higher id wins
    play_round(season, 1, lambda team_id: team_id)
    generate(season, SWISS_TABLES)
    order = [e.team_id for e in swiss_standings(season, selectors.league_table(season))]
    expected = game_tables.swiss_tables(order, history=tables_of(season, 1), number=2)
    assert tables_of(season, 2) == [tuple(t.players) for t in expected.tables]
    # tables go down the standings: the leader sits at table 1, and each table's players are
    # placed lower on average than the table before
    place = {team_id: i for i, team_id in enumerate(order, start=1)}
    tables = tables_of(season, 2)
    assert place[tables[0][0]] == 1
    means = [sum(place[p] for p in t) / len(t) for t in tables]
    assert means == sorted(means)
    reasons = list(
        Match.objects.filter(season=season, round_number=2).order_by("id").values_list("pairing_reason", flat=True)
    )
    assert reasons[0].startswith("by standing: places 1-")


# --- the task path ---------------------------------------------------------------------------------


def test_the_task_generates_a_round_of_tables_with_progress():
    from league.tasks import schedule_generate_task

    season = kage_season(13, rounds=2)
    run = services.schedule_request(season=season, kind=TABLES, seed=3)
    result = schedule_generate_task.apply_async(args=[run.pk], task_id=run.task_id)
    assert result.get() == {"run": run.pk, "status": "done", "done": 3, "total": 3, "error": ""}
    assert schedule_generate_task.delay(run.pk).get()["total"] == 3  # a run done is not run again
    assert Match.objects.filter(season=season).count() == 3
    seen = []
    play_round(season, 1, lambda team_id: team_id % 5)
    run2 = services.schedule_request(season=season, kind=TABLES, seed=4)
    services.schedule_generate(run_id=run2.pk, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_the_master_seats_the_next_round_from_the_season_page(
    client, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    season = kage_season(9, rounds=2)
    client.force_login(season.league.master)
    with django_assert_max_num_queries(16):
        html = client.get(season.get_absolute_url()).content.decode()
    assert "Seat round 1 of tables" in html and 'name="challenge"' not in html
    with django_capture_on_commit_callbacks(execute=True):  # the task dispatched after commit (eager here)
        response = client.post(
            reverse("league:schedule_generate", kwargs={"slug": season.league.slug, "number": season.number}),
            {"kind": "tables", "round_number": 1},
        )
    run = ScheduleRun.objects.get(season=season)
    assert response["Location"] == run.get_absolute_url() and run.status == ScheduleRun.Status.DONE
    html = client.get(run.get_absolute_url()).content.decode()
    assert "Round of tables: round 1" in html
    assert sorted(len(t) for t in tables_of(season, 1)) == [4, 5]


# --- pages -----------------------------------------------------------------------------------------


def five_sided_season(tables: int = 6) -> Season:
    """A Kage season whose round 1 is ``tables`` tables of 5 (games.tables prefers 4: the tables
    are made here as a run would write them), the first one played."""
    season = kage_season(5 * tables, rounds=2)
    players = list(season.league.teams.order_by("id"))
    for k in range(tables):
        services.fixture_create(
            season=season,
            round_number=1,
            sides=players[5 * k : 5 * k + 5],
            rng=random.Random(k),
            pairing_reason="table of 5",
        )
    first = Match.objects.filter(season=season).order_by("id").first()
    play_table(first, {s.team_id: 10 + s.slot for s in first.sides.all()})
    return season


def test_the_fixtures_page_lists_every_side_of_a_table(client, django_assert_max_num_queries):
    season = five_sided_season(6)
    url = reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number})
    client.force_login(season.league.master)
    # 10: the rounds' sizes (the fixtures' and the byes' counts) cut the page into whole rounds
    with django_assert_max_num_queries(10):
        html = client.get(url).content.decode()
    played, *others = Match.objects.filter(season=season).order_by("id").prefetch_related("sides__team")
    names = [s.team.name for s in played.sides.order_by("slot")]
    # a played table: every side with its treasure, in the order of the table
    item = html.split(f'id="match-{played.pk}"')[1].split("</li>")[0]
    assert all(name in item for name in names) and "15" in item and "11" in item
    for match in others:
        item = html.split(f'id="match-{match.pk}"')[1].split("</li>")[0]
        sides = [s.team.name for s in match.sides.order_by("slot")]
        assert all(name in item for name in sides)
        assert f"{sides[3]}</a> and" in item  # "A, B, C, D and E"
        assert "Edit the pairing" not in item
    # more tables cost no more queries
    bigger = five_sided_season(10)
    url = reverse("league:season_fixtures", kwargs={"slug": bigger.league.slug, "number": bigger.number})
    client.force_login(bigger.league.master)
    with django_assert_max_num_queries(10):
        assert client.get(url).status_code == 200


def test_the_season_page_shows_each_players_next_table(client, django_assert_max_num_queries):
    season = five_sided_season(6)
    client.force_login(season.league.master)
    # the master's page: the table (with its head-to-head tie-break), the next tables, the
    # schedule and simulation panels; the same at any number of tables
    with django_assert_max_num_queries(17):
        html = client.get(season.get_absolute_url()).content.decode()
    match = Match.objects.filter(season=season, status="scheduled").order_by("id").first()
    names = [s.team.name for s in match.sides.order_by("slot").select_related("team")]
    assert f"v {names[1]}, {names[2]}, {names[3]} and {names[4]} (R1)" in html


def test_the_match_page_and_the_dashboard_show_every_side(client, django_assert_max_num_queries):
    season = five_sided_season(2)
    match = Match.objects.filter(season=season, status="scheduled").get()
    sides = list(match.sides.order_by("slot").select_related("team", "team__owner"))
    names = [s.team.name for s in sides]
    client.force_login(sides[0].team.owner)
    with django_assert_max_num_queries(9):
        html = client.get(match.get_absolute_url()).content.decode()
    assert f"{names[0]}, {names[1]}, {names[2]}, {names[3]} and {names[4]}" in html
    with django_assert_max_num_queries(10):
        html = client.get(reverse("home")).content.decode()
    assert all(name in html for name in names)
    assert f">{names[1]}</a>, <a" in html and f">{names[3]}</a> and <a" in html  # the player's opponents
    # an overdue table on the master's desk
    Match.objects.filter(pk=match.pk).update(deadline=dt.date(2020, 1, 1))
    client.force_login(season.league.master)
    desk = reverse("league:season_desk", kwargs={"slug": season.league.slug, "number": season.number})
    with django_assert_max_num_queries(12):
        html = client.get(desk).content.decode()
    overdue = html.split('data-testid="desk-overdue"')[1]
    assert f">{names[1]}</a>, <a" in overdue and f">{names[3]}</a> and <a" in overdue


def test_every_pair_at_a_table_counts_in_the_history():
    from league.services.schedules import _history

    season = kage_season(5, rounds=2)
    generate(season, TABLES)
    history = Counter(_history(season))
    assert len(history) == 10 and set(history.values()) == {1}


def test_a_table_season_rolls_over_into_another_with_its_rounds(client, django_assert_max_num_queries):
    season = kage_season(4, rounds=3)
    client.force_login(season.league.master)
    url = reverse("league:season_rollover", kwargs={"slug": season.league.slug, "number": season.number})
    with django_assert_max_num_queries(8):
        html = client.get(url).content.decode()
    assert (
        'value="swiss_tables"' in html
        and 'value="swiss"' not in html
        and 'value="3"' in html
        and 'name="playoff_teams"' not in html
    )
    response = client.post(url, {"name": "", "format": "swiss_tables", "swiss_rounds": 3, "confirm": "on"})
    new = season.league.seasons.get(number=2)
    assert response.status_code == 302
    assert (new.format, new.swiss_rounds, new.playoff_teams, new.entries.count()) == ("swiss_tables", 3, 0, 4)
