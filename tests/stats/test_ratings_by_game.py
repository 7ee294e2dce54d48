"""Ratings and careers by game, and the club board (issue 28, part 5): a member who plays two games
has a rating in each, never one across them; the lists' game and league filters select (on the
site and in the API); the club board sets a member's games side by side without adding them; a
Kage Masters table of two is rated as a table, and the league table's Str. is the player's
Plackett-Luce rating."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import registry as games
from league import services as league_services
from league.models import Season
from matches import services as match_services
from ratings.history import Period, Result, rate_history
from stats import ratings
from stats.selectors import ratings as rating_selectors
from teams.models import StrengthRating
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import add_team
from tests.stats.helpers import settle

pytestmark = pytest.mark.usefixtures("catalog")

GLICKO2, PL = StrengthRating.System.GLICKO2, StrengthRating.System.PLACKETT_LUCE


def self_arranged(league):
    return league_services.season_create(
        league=league, format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
    )


def entry(league, user, name):
    team = league_services.player_apply(user=user, league=league, display_name=name)
    league_services.application_accept(team=team)
    team.refresh_from_db()
    return team


@pytest.fixture
def two_games(db):
    """Ume and Vex: an All-Stars team each (Ume's wins their game) and a Ninjutsu entry each (Vex's
    wins theirs), in the same week."""
    ume, vex = UserFactory(username="ume"), UserFactory(username="vex")
    nas = LeagueFactory(name="Moonlight", slug="moonlight")
    nas_season = self_arranged(nas)
    tigers, squids = add_team(nas, owner=ume, name="Tigers"), add_team(nas, owner=vex, name="Squids")
    nj = LeagueFactory(name="Ink nights", slug="ink-nights", game=games.NINJUTSU)
    nj_season = self_arranged(nj)
    ink, fox = entry(nj, ume, "Ink Shadow"), entry(nj, vex, "Moon Fox")
    a = settle(
        match_services.match_create(teams=[tigers, squids], season=nas_season),
        (3, 1),
        ratings=(100, 100),
        koban=(0, 0),
        minute=10,
    )
    n = settle(
        match_services.match_create(teams=[ink, fox], season=nj_season),
        (0, 1),
        ratings=(0, 0),
        koban=(0, 0),
        minute=20,
    )
    ratings.ratings_recompute()
    return {
        "ume": ume,
        "vex": vex,
        "nas": nas,
        "nj": nj,
        "tigers": tigers,
        "squids": squids,
        "ink": ink,
        "fox": fox,
        "allstars_match": a,
        "ninjutsu_match": n,
    }


def coach_row(user, game, system=GLICKO2) -> StrengthRating:
    return StrengthRating.objects.get(coach=user, game=game, system=system)


def test_a_member_in_two_games_has_a_rating_in_each(two_games):
    w = two_games
    ume_nas, ume_nj = coach_row(w["ume"], games.ALLSTARS), coach_row(w["ume"], games.NINJUTSU)
    # one game each, each rated from its own game alone: the win in All-Stars, the loss in Ninjutsu
    assert (ume_nas.games, ume_nj.games) == (1, 1)
    alone = rate_history([Period("week", (Result(1, ("u", "v"), (1, 2)),))]).glicko["u"]
    assert (ume_nas.rating, ume_nas.deviation) == (alone.rating, alone.rd)
    lost = rate_history([Period("week", (Result(1, ("u", "v"), (2, 1)),))]).glicko["u"]
    assert (ume_nj.rating, ume_nj.deviation) == (lost.rating, lost.rd)
    assert ume_nas.rating > 1500 > ume_nj.rating
    # the same figures as the team and the entry they played with, and no row across the games
    tigers = StrengthRating.objects.get(team=w["tigers"], system=GLICKO2)
    ink = StrengthRating.objects.get(team=w["ink"], system=GLICKO2)
    assert (tigers.game, ink.game) == (games.ALLSTARS, games.NINJUTSU)
    assert (tigers.rating, ink.rating) == (ume_nas.rating, ume_nj.rating)
    assert StrengthRating.objects.filter(coach=w["ume"]).count() == 2
    # a rerun on the same history writes nothing; a full one the same rows
    assert ratings.ratings_recompute().skipped
    forced = ratings.ratings_recompute(force=True)
    assert (forced.created, forced.updated, forced.deleted) == (0, 0, 0)


def test_a_kage_table_of_two_is_rated_as_a_table(db):
    kage = LeagueFactory(game=games.KAGE_MASTERS)
    season = self_arranged(kage)
    one, two = entry(kage, UserFactory(), "Kage One"), entry(kage, UserFactory(), "Kage Two")
    settle(
        match_services.match_create(teams=[one, two], season=season), (12, 5), ratings=(0, 0), koban=(0, 0), minute=1
    )
    ratings.ratings_recompute()
    assert not StrengthRating.objects.filter(system=GLICKO2).exists()
    rows = StrengthRating.objects.filter(team=one)
    assert [(r.game, r.system, r.games) for r in rows] == [(games.KAGE_MASTERS, PL, 1)]
    assert rows[0].rating > StrengthRating.objects.get(team=two).rating
    assert coach_row(one.owner, games.KAGE_MASTERS, PL).rating == rows[0].rating


def test_the_selector_lists_one_game_and_the_league_filter_selects(two_games):
    w = two_games

    def names(**kw):
        rows = rating_selectors.strength_ratings(system=GLICKO2, **kw)
        return [r.team.name if r.team_id else r.coach.username for r in rows]

    assert names(coaches=False) == ["Tigers", "Squids"]  # the first game, All-Stars, by default
    assert names(coaches=False, game=games.NINJUTSU) == ["Moon Fox", "Ink Shadow"]
    assert names(coaches=False, league=w["nj"]) == ["Moon Fox", "Ink Shadow"]  # the league's game
    assert names(coaches=True, game=games.ALLSTARS) == ["ume", "vex"]
    assert names(coaches=True, game=games.NINJUTSU) == ["vex", "ume"]
    other = LeagueFactory(game=games.NINJUTSU)
    assert names(coaches=False, league=other) == [] and names(coaches=True, league=other) == []
    entry(other, w["ume"], "Ume elsewhere")  # a member of it: listed with their Ninjutsu rating
    assert names(coaches=True, league=other) == ["ume"]


def _table(html: str) -> str:
    return html.split('data-testid="ratings"')[1].split("</table>")[0] if 'data-testid="ratings"' in html else ""


def test_the_ratings_pages_are_one_game_each_with_a_working_league_filter(
    client, two_games, django_assert_max_num_queries
):
    url, coaches = reverse("stats:ratings"), reverse("stats:coach_ratings")
    with django_assert_max_num_queries(10):
        page = client.get(url, {"game": games.NINJUTSU}).content.decode()
    table = _table(page)
    assert "Moon Fox" in table and "Ink Shadow" in table and "Tigers" not in table
    note = page.split('data-testid="ratings-note"')[1].split("</p>")[0]
    assert "two players" in note and not re.search(r"\bteams?\b", note, re.I)  # a players' game's words
    members = re.sub(r"<[^>]+>", " ", _table(client.get(coaches, {"game": games.NINJUTSU}).content.decode()))
    assert "Member" in members and not re.search(r"\bteams?\b|\bcoach", members, re.I)
    # the league filter keeps the league's entrants, and the list is of the league's game
    with django_assert_max_num_queries(11):
        page = client.get(url, {"league": "moonlight"}).content.decode()
    assert "Tigers" in _table(page) and "Moon Fox" not in _table(page)
    other = LeagueFactory(name="Empty hall", slug="empty-hall")
    page = client.get(url, {"league": other.slug}).content.decode()
    assert _table(page) == "" and "Nobody is rated yet in Ninja All-Stars in Empty hall" in page
    # a league of another game, an unknown game or a system the game does not use: said on the page
    resp = client.get(url, {"game": games.ALLSTARS, "league": "ink-nights"})
    assert (
        resp.status_code == 200 and "Ink nights is a league of Ninjutsu: Battle of the Ninjas" in resp.content.decode()
    )
    assert "Tigers" in _table(resp.content.decode())  # the game chosen, every league
    resp = client.get(url, {"game": games.NINJUTSU, "system": PL})
    assert resp.status_code == 200 and "is not rated by Plackett–Luce" in resp.content.decode()
    assert "Moon Fox" in _table(resp.content.decode())
    assert client.get(url, {"game": "chess"}).status_code == 200


def test_the_table_rating_text_is_the_games_own(client, db):
    kage = client.get(reverse("stats:ratings"), {"game": games.KAGE_MASTERS}).content.decode()
    note = kage.split('data-testid="ratings-note"')[1].split("</p>")[0]
    km = games.get(games.KAGE_MASTERS)  # a table seats up to five players
    assert km.max_players == 5 and f"Plackett–Luce for every game of {km.min_players} to 5 players" in note
    assert "3- and 4-team" not in kage and "Glicko-2" not in note
    nas = client.get(reverse("stats:ratings")).content.decode()
    assert "Plackett–Luce for every game of 3 or 4 teams" in nas and "Glicko-2 for games of two teams" in nas


def test_the_api_lists_one_game_and_refuses_a_league_of_another(client, two_games):
    url = reverse("api:ratings")
    rows = client.get(url, {"game": games.NINJUTSU}).json()["results"]
    assert [(r["team"]["name"], r["game"]) for r in rows] == [
        ("Moon Fox", games.NINJUTSU),
        ("Ink Shadow", games.NINJUTSU),
    ]
    rows = client.get(url, {"league": "ink-nights", "kind": "coach"}).json()["results"]
    assert [(r["coach"]["username"], r["game"]) for r in rows] == [("vex", games.NINJUTSU), ("ume", games.NINJUTSU)]
    assert [r["team"]["name"] for r in client.get(url).json()["results"]] == ["Tigers", "Squids"]
    resp = client.get(url, {"game": games.ALLSTARS, "league": "ink-nights"})
    assert resp.status_code == 400 and "league" in resp.json()
    resp = client.get(url, {"game": games.NINJUTSU, "system": PL})
    assert resp.status_code == 400 and "system" in resp.json()
    assert client.get(url, {"game": games.KAGE_MASTERS}).json()["count"] == 0  # its own system, none yet


def test_the_club_board_sets_a_members_games_side_by_side_never_added(client, two_games, django_assert_max_num_queries):
    w = two_games
    rows = rating_selectors.club_rows(rating_selectors.club_members())
    assert [r.member.username for r in rows] == ["ume", "vex"]  # two games each, then by name
    ume = rows[0]
    assert set(ume.cells) == {games.ALLSTARS, games.NINJUTSU} and ume.games == 2
    nas, nj = ume.cells[games.ALLSTARS], ume.cells[games.NINJUTSU]
    assert nas.rating == coach_row(w["ume"], games.ALLSTARS) and nj.rating == coach_row(w["ume"], games.NINJUTSU)
    assert (nas.rank, nas.of, nj.rank, nj.of) == (1, 2, 2, 2)  # each game's own list
    by_ninjutsu = rating_selectors.club_rows(rating_selectors.club_members(order=games.NINJUTSU))
    assert [r.member.username for r in by_ninjutsu] == ["vex", "ume"]
    # the page: a column a game, each cell that game's rating; no figure of the two together
    with django_assert_max_num_queries(10):
        html = client.get(reverse("stats:club_ratings")).content.decode()
    board = html.split('data-testid="club-ratings"')[1].split("</table>")[0]
    heads = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', board)
    assert heads == ["Member", *(g.name for g in games.GAMES.values()), "Games"]
    ume_row = board.split(">ume</a>")[1].split("</tr>")[0]
    cells = re.findall(r'<td class="text-end">(.*?)</td>', ume_row)
    assert f"<strong>{nas.rating.rating:.0f}</strong>" in cells[0] and "#1 of 2" in cells[0]
    assert f"<strong>{nj.rating.rating:.0f}</strong>" in cells[1] and "#2 of 2" in cells[1]
    assert cells[2] == "—" and cells[3] == "2"
    total = f"{nas.rating.rating + nj.rating.rating:.0f}"
    assert total not in board
    # the league filter keeps the league's members, with every game of theirs
    add_team(w["nas"], owner=UserFactory(username="wren"), name="Wrens")  # a member rated in no game yet

    def members(league):
        return [r.member.username for r in rating_selectors.club_rows(rating_selectors.club_members(league=league))]

    assert members(w["nj"]) == members(w["nas"]) == ["ume", "vex"]
    lonely = LeagueFactory(game=games.KAGE_MASTERS)
    entry(lonely, w["vex"], "Vex at the table")
    page = client.get(reverse("stats:club_ratings"), {"league": lonely.slug}).content.decode()
    assert ">vex</a>" in page and ">ume</a>" not in page
    # the API: the same rows
    api = client.get(reverse("api:club_ratings")).json()["results"]
    assert [r["member"]["username"] for r in api] == ["ume", "vex"]
    assert api[0]["ratings"][games.ALLSTARS]["rating"] == nas.rating.rating
    assert api[0]["ratings"][games.NINJUTSU]["rank"] == 2 and api[0]["ratings"][games.KAGE_MASTERS] is None
    assert client.get(reverse("api:club_ratings"), {"order": "sum"}).status_code == 400


def test_the_coach_page_shows_a_career_and_a_rating_a_game(client, two_games, django_assert_max_num_queries):
    w = two_games
    with django_assert_max_num_queries(10):
        html = client.get(reverse("stats:coach", kwargs={"username": "ume"})).content.decode()
    table = html.split('data-testid="coach-games"')[1].split("</table>")[0]
    rows = re.findall(r'<tr data-game="(\w+)">(.*?)</tr>', table, re.S)
    assert [key for key, _ in rows] == [games.ALLSTARS, games.NINJUTSU]
    nas, nj = (re.sub(r"<[^>]+>", "", row) for _, row in rows)
    a, n = coach_row(w["ume"], games.ALLSTARS), coach_row(w["ume"], games.NINJUTSU)
    assert "Ninja All-Stars" in nas and "1 won, 0 drawn, 0 lost" in nas
    assert f"{a.rating:.0f} ± {a.spread:.0f} over 1 two-team game" in nas
    assert "Ninjutsu: Battle of the Ninjas" in nj and "0 won, 1 lost" in nj and "drawn" not in nj
    assert f"{n.rating:.0f} ± {n.spread:.0f} over 1 two-player game" in nj and "team" not in nj
    teams = html.split('data-testid="coach-teams"')[1].split("</table>")[0]
    assert "Tigers" in teams and "Ink Shadow" in teams


def test_the_kage_tables_strength_column_is_the_players_plackett_luce_rating(client, db):
    from tests.trust.world import KAGE_RECORD

    kage = LeagueFactory(name="Kage nights", game=games.KAGE_MASTERS)
    season = self_arranged(kage)
    players = [entry(kage, UserFactory(), f"Kage {i}") for i in range(3)]
    table = match_services.match_create(teams=players, season=season)
    match_services.match_submit_game_result(match=table, record=KAGE_RECORD, actor=players[0].owner)
    for player in players[1:]:
        match_services.match_confirm(match=type(table).objects.get(pk=table.pk), actor=player.owner)
    ratings.ratings_recompute()
    html = client.get(season.get_absolute_url()).content.decode()
    league_table = html.split('data-testid="league-table"')[1].split("</table>")[0]
    for player in players:
        rating = StrengthRating.objects.get(team=player, system=PL)
        row = league_table.split(player.name)[1].split("</tr>")[0]
        assert f'<span title="± {rating.spread:.1f}">{rating.rating:.1f}</span>' in row, row


def test_the_all_time_leaderboards_are_of_one_game(client, two_games, django_assert_max_num_queries):
    url = reverse("stats:leaderboards")

    def board(html, key="wins"):
        return html.split(f'data-testid="board-{key}"')[1].split("</section>")[0]

    with django_assert_max_num_queries(20):
        nas = client.get(url).content.decode()
    assert "Tigers" in board(nas) and "Ink Shadow" not in board(nas) and "Moon Fox" not in board(nas)
    with django_assert_max_num_queries(12):
        nj = client.get(url, {"game": games.NINJUTSU}).content.decode()
    assert "Moon Fox" in board(nj) and "Tigers" not in nj.split("<main")[-1]
    assert 'data-testid="board-koban"' not in nj and "Every league of Ninjutsu: Battle of the Ninjas" in nj
    bad = client.get(url, {"game": "chess"})
    assert bad.status_code == 200 and "Tigers" in board(bad.content.decode())
    # the API and the CSV: the same scope
    api = client.get(reverse("api:leaderboards"), {"game": games.NINJUTSU, "board": "wins"}).json()["results"][0]
    assert [r["team"]["name"] for r in api["rows"]] == ["Moon Fox"] and api["csv_url"].endswith(
        "?game=ninjutsu&board=wins"
    )
    assert client.get(reverse("api:leaderboards"), {"game": games.NINJUTSU, "league": "moonlight"}).status_code == 400
    csv = client.get(reverse("exports:leaderboards_csv"), {"game": games.NINJUTSU, "board": "wins"}).content.decode()
    assert "Moon Fox" in csv and "Tigers" not in csv
    assert client.get(reverse("exports:leaderboards_csv"), {"game": "chess"}).status_code == 400


def visible_main(html: str) -> str:
    main = html.split('<main id="main"')[1].split("</main>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))


def test_a_players_pages_speak_of_players(client, db):
    """A member who plays only Ninjutsu: their page and their game's lists say nothing of teams or
    coaches (the All-Stars words)."""
    nj = LeagueFactory(name="Ink nights", slug="ink-nights", game=games.NINJUTSU)
    season = self_arranged(nj)
    ink, fox = entry(nj, UserFactory(username="ume"), "Ink Shadow"), entry(nj, UserFactory(), "Moon Fox")
    settle(match_services.match_create(teams=[ink, fox], season=season), (1, 0), ratings=(0, 0), koban=(0, 0), minute=1)
    ratings.ratings_recompute()
    pages = [
        reverse("stats:coach", kwargs={"username": "ume"}),
        reverse("stats:ratings") + "?game=ninjutsu",
        reverse("stats:coach_ratings") + "?league=ink-nights",
    ]
    for url in pages:
        text = visible_main(client.get(url).content.decode())
        assert "Ink Shadow" in text or "ume" in text, url
        assert not re.search(r"\bteams?\b|\bcoach(es)?\b", text, re.I), (url, text)
