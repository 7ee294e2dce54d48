"""A game per league (issue 17, part 1): founding a league of each game, the game shown on every
page that lists or shows a league, and the API's league carrying it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games import registry as games
from league import services
from league.models import HouseRules, League, Season
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import HOUSE_RULES, make_season

pytestmark = pytest.mark.usefixtures("catalog")

#: The founding form of a game without team scrolls, as posted: no All-Stars-only rule in it.
PLAYER_RULES = {k: v for k, v in HOUSE_RULES.items() if k not in HouseRules.ALLSTARS_ONLY_FIELDS}


def test_the_registry_knows_the_three_games():
    assert list(games.GAMES) == ["allstars", "ninjutsu", "kage_masters"]
    assert games.get("ninjutsu").is_one_on_one and not games.get("ninjutsu").has_team_scrolls
    kage = games.get("kage_masters")
    assert (kage.min_players, kage.max_players, kage.has_team_scrolls) == (2, 5, False)
    assert games.get("allstars").has_team_scrolls
    with pytest.raises(KeyError, match="known: allstars"):
        games.get("chess")


def test_a_league_is_all_stars_unless_told():
    league = services.league_create(master=UserFactory(), name="Old Ways")
    assert league.game == games.ALLSTARS and league.has_team_scrolls
    with pytest.raises(ValidationError) as caught:
        services.league_create(master=UserFactory(), name="Chess Club", game="chess")
    assert "game" in caught.value.message_dict


@pytest.mark.parametrize("game", list(games.GAMES))
def test_founding_a_league_of_each_game(client, django_assert_max_num_queries, game):
    user = UserFactory()
    client.force_login(user)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("league:create"), {"game": game})
    html = page.content.decode()
    assert page.status_code == 200 and f'value="{game}" selected' in html
    # the page asks the rules of its game only
    assert ('name="starting_koban"' in html) == (game == games.ALLSTARS)
    assert ('name="underdog_bonuses"' in html) == (game == games.ALLSTARS)
    data = {**(HOUSE_RULES if game == games.ALLSTARS else PLAYER_RULES), "name": f"Club of {game}", "game": game}
    with django_assert_max_num_queries(12):
        response = client.post(reverse("league:create"), data)
    league = League.objects.get(name=f"Club of {game}")
    assert response.status_code == 302 and league.game == game and league.master == user
    assert league.starting_koban == 100  # unused by the other games: at its default


def test_switching_to_all_stars_on_another_games_page_asks_for_its_rules(client):
    client.force_login(UserFactory())
    data = {**PLAYER_RULES, "name": "Switched", "game": games.ALLSTARS}
    page = client.post(reverse("league:create"), data)
    html = page.content.decode()
    assert page.status_code == 200 and not League.objects.filter(name="Switched").exists()
    assert "has house rules of its own" in html and 'name="starting_koban"' in html
    assert client.post(reverse("league:create"), {**data, **HOUSE_RULES}).status_code == 302


def test_the_game_cannot_be_changed_by_the_house_rules_form(client):
    league = LeagueFactory(game=games.NINJUTSU)
    client.force_login(league.master)
    page = client.get(reverse("league:edit", kwargs={"slug": league.slug}))
    html = page.content.decode()
    assert "plays Ninjutsu: Battle of the Ninjas" in html
    assert 'name="game"' not in html and 'name="starting_koban"' not in html
    response = client.post(
        reverse("league:edit", kwargs={"slug": league.slug}), {**PLAYER_RULES, "game": games.KAGE_MASTERS}
    )
    league.refresh_from_db()
    assert response.status_code == 302 and league.game == games.NINJUTSU


def test_the_game_is_shown_on_the_list_the_league_page_and_the_dashboard(client, django_assert_max_num_queries):
    ninjutsu = LeagueFactory(name="Dojo Nights", game=games.NINJUTSU)
    kage = make_season(
        0, league=LeagueFactory(name="Dice Hall", game=games.KAGE_MASTERS), format=Season.Format.TABLES, swiss_rounds=3
    ).league
    allstars = make_season(2).league
    with django_assert_max_num_queries(6):
        html = client.get(reverse("league:list")).content.decode()
    for league in (ninjutsu, kage, allstars):
        assert league.get_game_display() in html
    with django_assert_max_num_queries(12):
        html = client.get(ninjutsu.get_absolute_url()).content.decode()
    assert 'data-testid="league-game">Ninjutsu: Battle of the Ninjas<' in html
    # the house-rules box (the footer names Ninja Dice: Kage Masters among the games, issue 28)
    assert "Starting koban" not in html and "Dice" not in html.split('data-testid="house-rules"')[1].split("</dl>")[0]
    assert "No player accepted yet." in html
    assert "Balance statistics" not in html  # the clans' balance: All-Stars only
    html = client.get(allstars.get_absolute_url()).content.decode()
    assert 'data-testid="league-game">Ninja All-Stars<' in html and "Starting koban" in html
    client.force_login(kage.master)
    with django_assert_max_num_queries(10):
        html = client.get(reverse("home")).content.decode()
    assert "Dice Hall" in html and "Ninja Dice: Kage Masters" in html


def test_the_api_shows_the_game(client, django_assert_max_num_queries):
    league = LeagueFactory(game=games.KAGE_MASTERS)
    LeagueFactory()
    with django_assert_max_num_queries(6):
        body = client.get(reverse("api:league-detail", kwargs={"slug": league.slug})).json()
    assert (body["game"], body["game_name"]) == ("kage_masters", "Ninja Dice: Kage Masters")
    listed = client.get(reverse("api:league-list")).json()["results"]
    assert sorted(row["game"] for row in listed) == ["allstars", "kage_masters"]


def test_each_game_has_its_interface_and_all_stars_wraps_what_exists():
    from games.registry import game_of
    from games.registry import sites as _sites

    GAMES = _sites()
    from league.readmodel import side_points
    from matches.forms import ResultForm
    from matches.services import validate_record
    from matches.simulation import simulate_match
    from stats.selectors.balance import balance

    assert set(GAMES) == set(games.GAMES)
    allstars = game_of(LeagueFactory())
    assert (allstars.result_form, allstars.validate_result, allstars.simulator) == (
        ResultForm,
        validate_record,
        simulate_match,
    )
    assert allstars.points is side_points and allstars.statistics is balance
    assert allstars.can_enter_results and allstars.can_simulate and allstars.has_team_scrolls
    season = make_season(0, points_win=4)
    assert allstars.season_points(season, "win") == 4
    from games.ninjutsu.forms import NinjutsuResultForm
    from games.ninjutsu.results import check

    ninjutsu = game_of(games.NINJUTSU)
    assert (ninjutsu.result_form, ninjutsu.validate_result) == (NinjutsuResultForm, check)
    assert ninjutsu.can_enter_results and ninjutsu.can_simulate  # the strength model (matches.game_simulation)
    for key in (games.NINJUTSU, games.KAGE_MASTERS):
        game = game_of(key)
        assert game.info is games.get(key) and not game.has_team_scrolls
        assert game.statistics is not None  # stats.games, registered by StatsConfig.ready()
        assert game.season_points(season, "win") == 4
    from games.kage_masters.forms import KageMastersResultForm
    from games.kage_masters.results import check as kage_check

    kage = game_of(games.KAGE_MASTERS)  # its table results since issue 17, part 3
    assert (kage.result_form, kage.validate_result) == (KageMastersResultForm, kage_check) and kage.can_enter_results


@pytest.mark.parametrize(
    ("game", "shown", "hidden"),
    [
        (games.ALLSTARS, "starting_koban", ("rule_time_limit_minutes", "rule_kage_points")),
        (games.NINJUTSU, "rule_time_limit_minutes", ("starting_koban", "rule_kage_points", "rule_kage_fixed_points")),
        (games.KAGE_MASTERS, "rule_kage_points", ("starting_koban", "rule_time_limit_minutes", "rule_points_time_win")),
    ],
)
def test_each_game_asks_its_own_house_rules_only(client, game, shown, hidden):
    client.force_login(UserFactory())
    html = client.get(reverse("league:create"), {"game": game}).content.decode()
    assert f'name="{shown}"' in html
    for name in hidden:
        assert f'name="{name}"' not in html


def test_a_ninjutsu_time_limit_and_kage_place_points_are_house_rules(client):
    user = UserFactory()
    client.force_login(user)
    # the game's own rules (its package's HouseRule), each a field of the form
    data = {
        **PLAYER_RULES,
        "name": "Clockwork",
        "game": games.NINJUTSU,
        "rule_time_limit_minutes": 45,
        "rule_points_time_win": 2,
    }
    client.post(reverse("league:create"), data)
    league = League.objects.get(name="Clockwork")
    assert league.own_rules == {"time_limit_minutes": 45, "points_time_win": 2, "points_time_loss": None}
    from games.ninjutsu.house_rules import time_points

    assert time_points(league) == (2, 0)  # a loss on time: a loss's points
    season = services.season_create(league=league, format="round_robin")
    assert season.own_rules["time_limit_minutes"] == 45  # frozen on the season
    bad = {**PLAYER_RULES, "name": "Dice Den", "game": games.KAGE_MASTERS, "rule_kage_points": "fixed"}
    for points, message in (
        ("3,2,1", "five places"),
        ("1,2,3,0,0", "more than the place above"),
        ("30,2,1,0,0", "at most"),
    ):
        page = client.post(reverse("league:create"), {**bad, "rule_kage_fixed_points": points})
        assert page.status_code == 200 and message in page.content.decode()
        assert not League.objects.filter(name="Dice Den").exists()
    client.post(reverse("league:create"), {**bad, "rule_kage_fixed_points": "5,3,2,1,0"})
    from games.kage_masters.house_rules import fixed_points

    assert fixed_points(League.objects.get(name="Dice Den")) == (5, 3, 2, 1, 0)


def test_the_house_rules_box_shows_each_games_own_rules(client):
    """Issue 27, finding 10: the league page's house-rules box left out the Ninjutsu time limit and
    how a Kage Masters table's places score (before: neither "Time limit" nor "Places score" was in it)."""
    timed = LeagueFactory(name="Clockwork", game=games.NINJUTSU, time_limit_minutes=45, points_time_win=2)
    untimed = LeagueFactory(name="Open Dojo", game=games.NINJUTSU)
    kage = LeagueFactory(name="Dice Hall", game=games.KAGE_MASTERS, kage_points="fixed", kage_fixed_points="5,3,2,1,0")

    def box(league):
        return client.get(league.get_absolute_url()).content.decode().split('data-testid="house-rules"')[1]

    assert "45 minutes; won on time 2/0 points" in box(timed)
    assert "None: every game has a winner" in box(untimed)
    kage_box = box(kage)
    assert "(5,3,2,1,0); total treasure breaks ties" in kage_box and "Time limit" not in kage_box
    assert "Places score" not in box(timed)


@pytest.mark.parametrize(("game", "word"), [(games.NINJUTSU, "players"), (games.ALLSTARS, "teams")])
def test_a_new_season_counts_its_entrants_in_the_games_word(client, game, word):
    """Issue 27, finding 10: a new Ninjutsu season said "open with 0 teams" (players' games have players)."""
    league = LeagueFactory(name="Counting House", game=game)
    client.force_login(league.master)
    data = {"name": "Spring", "format": "round_robin", "swiss_rounds": 3, "playoff_teams": 0}
    page = client.post(reverse("league:season_create", args=[league.slug]), data, follow=True).content.decode()
    assert f"Spring is open with 0 {word} and the league" in page
