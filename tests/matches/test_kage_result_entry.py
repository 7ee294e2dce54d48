"""A Kage Masters league's table results (issue 17, part 3): any player at the table enters the
result on a phone-sized form (a block a player: Kage Master, coins, Location rewards, seat), any
other player at the table or the master confirms or rejects it, another player's own record
disputes it and the master settles by picking one; every side gets its outcome, its treasure as
points and its league points under the season's scheme; the table ranks by league points, then
total treasure. Also Ninjutsu's time limit, a house rule, from entry to the table."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse

from games import registry as games
from games.kage_masters.forms import KageMastersResultForm
from league import services as league_services
from league.models import Season
from league.selectors import league_table
from matches import services
from matches.models import Match, MatchTeam
from tests.factories import LeagueFactory, UserFactory, own_rules

pytestmark = pytest.mark.usefixtures("catalog")

MASTERS = ("Spy", "Assassin", "Firebrand", "Trickster", "Chain Specialist")


def kage_season(n: int, **house_rules):
    """A Kage Masters league founded by the service (its founding tie-breakers), its open season
    and ``n`` players accepted (display names K1..Kn)."""
    master = UserFactory()
    league = league_services.league_create(
        master=master,
        name=f"Kage Nights {n} {Season.objects.count()}",
        game=games.KAGE_MASTERS,
        **own_rules(games.KAGE_MASTERS, house_rules),
    )
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    players = []
    for i in range(n):
        entry = league_services.player_apply(user=UserFactory(), league=league, display_name=f"K{i + 1}")
        league_services.application_accept(team=entry)
        players.append(entry)
    return season, players


def table(season, players) -> Match:
    match = services.match_create(teams=players, season=season, round_number=1)
    return Match.objects.select_related("league", "season").get(pk=match.pk)


def form_data(rows) -> dict:
    """Form data from (master, coins, rewards, seat) per slot (None: left blank)."""
    data = {}
    for slot, (master, coins, rewards, seat) in enumerate(rows, start=1):
        data[f"kage_master_{slot}"] = master
        data[f"coins_{slot}"] = "" if coins is None else str(coins)
        data[f"rewards_{slot}"] = "" if rewards is None else str(rewards)
        data[f"seat_{slot}"] = "" if seat is None else str(seat)
    return data


def record(rows) -> dict:
    return {
        "game": "kage_masters",
        "seats": [
            {"slot": slot, "kage_master": m, "coins": c, "rewards": r, "seat": s}
            for slot, (m, c, r, s) in enumerate(rows, start=1)
        ],
    }


# Four players: K3 wins with 14, K1 and K4 share 2nd with 10, K2 is last with 4.
FOUR = [("Spy", 7, 3, 2), ("Assassin", 4, 0, 1), ("Firebrand", 9, 5, 4), ("Trickster", 10, 0, 3)]

THREE = [(*row[:3], None) for row in FOUR[:3]]


def test_a_player_enters_a_four_player_table_and_another_confirms(client, django_assert_max_num_queries):
    season, players = kage_season(4)
    match = table(season, players)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    client.force_login(players[0].owner)
    page = client.get(match.get_absolute_url()).content.decode()
    assert url in page and "Entering results is not yet available" not in page and "Pre-match sheet" not in page
    with django_assert_max_num_queries(6):
        form = client.get(url)
    html = form.content.decode()
    assert form.status_code == 200 and all(f'name="coins_{slot}"' in html for slot in range(1, 5))
    assert "K1: Kage Master" in html and "K4: first-round seat" in html and 'inputmode="numeric"' in html
    assert 'data-testid="kage-seat-4"' in html and "kick" not in html.lower()

    bad = client.post(url, form_data([FOUR[0], ("Spy", 4, 0, 1), *FOUR[2:]])).content.decode()
    assert "K1 already plays the Spy" in bad
    seats = client.post(url, form_data([(*row[:3], 1) for row in FOUR])).content.decode()
    assert "Seats are numbered 1 to 4, each once." in seats
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.submitted_record is None  # nothing half-saved

    with django_assert_max_num_queries(14):
        response = client.post(url, form_data(FOUR))
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED and match.submitted_record == record(FOUR)
    waiting = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="kage-table"' in waiting and "=2nd" in waiting and "Firebrand" in waiting

    # The submitter cannot confirm his own result, nor can anyone outside the table.
    with pytest.raises(PermissionDenied):
        services.match_confirm(match=match, actor=players[0].owner)
    with pytest.raises(PermissionDenied):
        services.match_confirm(match=match, actor=UserFactory())
    other_table = table(season, kage_season_extra(season, 2))
    assert other_table.pk != match.pk
    with pytest.raises(PermissionDenied):
        services.match_confirm(match=match, actor=other_table.sides.first().team.owner)

    client.force_login(players[2].owner)
    with django_assert_max_num_queries(23):
        client.post(reverse("matches:confirm", kwargs={"pk": match.pk}), {"decision": "confirm"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.confirmed_by == players[2].owner
    sides = {s.slot: s for s in match.sides.all()}
    got = {slot: (s.outcome, s.points, s.league_points, s.team_name) for slot, s in sides.items()}
    # one point for each opponent beaten (the default scheme): 14 beats three, the 10s beat one
    assert got == {
        1: ("loss", 10, 1, "K1"),
        2: ("loss", 4, 0, "K2"),
        3: ("win", 14, 3, "K3"),
        4: ("loss", 10, 1, "K4"),
    }
    assert not match.dice_rolls.exists() and not match.treasury_entries.exists()  # no post-game sequence
    rows = {row.team.pk: row for row in league_table(season) if row.played}
    assert (rows[players[2].pk].won, rows[players[2].pk].points, rows[players[2].pk].points_for) == (1, 3, 14)
    assert (rows[players[0].pk].lost, rows[players[0].pk].points, rows[players[0].pk].points_against) == (1, 1, 28)

    client.logout()
    with django_assert_max_num_queries(3):
        played = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="game-played"' in played and 'data-testid="kage-table"' in played
    assert "Chain Specialist" not in played and ">14<" in played and "post-game sequence" not in played.lower()


def kage_season_extra(season, n: int):
    """``n`` more players accepted into the league of ``season`` (another table's)."""
    extra = []
    for _ in range(n):
        entry = league_services.player_apply(user=UserFactory(), league=season.league, display_name="")
        league_services.application_accept(team=entry)
        extra.append(entry)
    return extra


def test_a_five_player_table_disputed_and_settled_by_the_master(client, django_assert_max_num_queries):
    season, players = kage_season(5)
    match = table(season, players)
    five = [(m, 3 + i, i, None) for i, m in enumerate(MASTERS)]
    services.match_submit_game_result(match=match, record=record(five), actor=players[1].owner)
    client.force_login(players[3].owner)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    with django_assert_max_num_queries(6):  # as for four players: the page's reads do not grow with the table
        start = client.get(url).content.decode()
    assert 'data-testid="counter-intro"' in start and 'value="Chain Specialist" selected' in start
    other = [*five[:4], ("Chain Specialist", 20, 0, None)]  # K5 remembers 20 coins
    with django_assert_max_num_queries(14):
        client.post(url, form_data(other))
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED and match.counter_record == record(other)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "First record" in page and "Second record" in page and page.count('data-testid="kage-table"') == 2

    with pytest.raises(PermissionDenied):  # only the master settles
        services.match_settle(match=match, actor=players[0].owner, pick="first")
    client.force_login(season.league.master)
    settle = client.get(reverse("matches:settle", kwargs={"pk": match.pk})).content.decode()
    assert "Apply the second record" in settle and 'data-testid="kage-table"' in settle
    client.post(reverse("matches:settle", kwargs={"pk": match.pk}), {"pick": "second"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.settlement == Match.Settlement.SECOND
    got = {s.slot: (s.outcome, s.points, s.league_points) for s in match.sides.all()}
    assert got == {1: ("loss", 3, 0), 2: ("loss", 5, 1), 3: ("loss", 7, 2), 4: ("loss", 9, 3), 5: ("win", 20, 4)}


def test_another_player_rejects_and_the_same_record_confirms():
    season, players = kage_season(3)
    match = table(season, players)
    three = [(*row[:3], None) for row in FOUR[:3]]
    services.match_submit_game_result(match=match, record=record(three), actor=players[0].owner)
    services.match_reject(match=match, actor=players[1].owner, reason="K2 had 5 coins")
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.result_draft["reason"] == "K2 had 5 coins"
    services.match_submit_game_result(match=match, record=record(three), actor=players[0].owner)
    services.match_submit_game_result(match=match, record=record(three), actor=players[2].owner)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.counter_record is None


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({}, {1: 1, 2: 0, 3: 3, 4: 1}),
        ({"kage_points": "winner_only"}, {1: 0, 2: 0, 3: 1, 4: 0}),
        # fixed: a shared 2nd place scores 2nd's points, the 4th place 4th's
        ({"kage_points": "fixed", "kage_fixed_points": "5,3,1,1,0"}, {1: 3, 2: 1, 3: 5, 4: 3}),
    ],
    ids=["opponents_beaten", "winner_only", "fixed"],
)
def test_league_points_follow_the_seasons_scheme(rules, expected):
    season, players = kage_season(4, **rules)
    match = table(season, players)
    services.match_submit_game_result(match=match, record=record(FOUR), actor=season.league.master)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED  # the master's entry needs no confirmation
    assert {s.slot: s.league_points for s in match.sides.all()} == expected
    rows = {row.team.pk: row.points for row in league_table(season)}
    assert {slot: rows[players[slot - 1].pk] for slot in expected} == expected


def test_the_table_ranks_by_league_points_then_total_treasure():
    season, players = kage_season(4)
    assert season.tie_breaker_list[0] == "points_for"  # a Kage Masters league is founded so
    first, second = table(season, players[:2]), table(season, players[2:])
    # Each winner scores 1 league point; K3 won with more treasure than K1.
    services.match_submit_game_result(
        match=first, record=record([("Spy", 6, 0, None), ("Assassin", 5, 0, None)]), actor=season.league.master
    )
    services.match_submit_game_result(
        match=second, record=record([("Spy", 9, 4, None), ("Assassin", 2, 0, None)]), actor=season.league.master
    )
    order = [row.team.name for row in league_table(season)]
    assert order == ["K3", "K1", "K2", "K4"]
    html = Client().get(season.get_absolute_url()).content.decode()
    table_html = html.split('data-testid="league-table"')[1].split("</table>")[0]
    assert 'title="Total treasure">Treasure</th>' in table_html  # the table shows it, on a phone too


def test_an_all_stars_league_keeps_its_tie_breakers_and_the_kage_form_offers_treasure_first(client):
    master = UserFactory()
    allstars = league_services.league_create(master=master, name="Old Dojo")
    assert allstars.tie_breakers == "points_difference,points_for,head_to_head"
    client.force_login(master)
    html = client.get(reverse("league:create") + "?game=kage_masters").content.decode()
    first = html.split('name="tie_breaker_1"')[1].split("</select>")[0]
    assert 'value="points_for" selected' in first


def test_a_two_player_table():
    season, players = kage_season(2)
    match = table(season, players)
    services.match_submit_game_result(
        match=match, record=record([("Trickster", 5, 2, 2), ("Spy", 8, 0, 1)]), actor=players[1].owner
    )
    services.match_confirm(match=match, actor=players[0].owner)
    got = {s.slot: (s.outcome, s.points, s.league_points) for s in match.sides.all()}
    assert got == {1: ("loss", 7, 0), 2: ("win", 8, 1)}


def test_equal_treasure_shares_first_place():
    season, players = kage_season(3)
    match = table(season, players)
    services.match_submit_game_result(
        match=match,
        record=record([("Trickster", 5, 2, None), ("Spy", 7, 0, None), ("Assassin", 3, 0, None)]),
        actor=season.league.master,
    )
    got = {s.slot: (s.outcome, s.points, s.league_points) for s in match.sides.all()}
    assert got == {1: ("win", 7, 1), 2: ("win", 7, 1), 3: ("loss", 3, 0)}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("Spy", 3, 0, None), ("Spy", 4, 0, None)], "already plays the Spy"),
        ([("Spy", 3, 0, 1), ("Assassin", 4, 0, None)], "Give every player's first-round seat, or none."),
        ([("Spy", 3, 0, 1), ("Assassin", 4, 0, 3)], "Seats are numbered 1 to 2, each once."),
        ([("Spy", 201, 0, None), ("Assassin", 4, 0, None)], "less than or equal to 200"),
        ([("Spy", -1, 0, None), ("Assassin", 4, 0, None)], "greater than or equal to 0"),
        ([("", 3, 0, None), ("Assassin", 4, 0, None)], "This field is required."),
        ([("Spy", None, 0, None), ("Assassin", 4, 0, None)], "This field is required."),
        ([("Ninja", 3, 0, None), ("Assassin", 4, 0, None)], "Select a valid choice."),
    ],
)
def test_the_form_refuses_bad_tables(rows, message):
    form = KageMastersResultForm(form_data(rows), names=("A", "B"))
    assert not form.is_valid()
    assert any(message in error for errors in form.errors.values() for error in errors), form.errors


def test_the_service_refuses_records_not_of_this_table():
    season, players = kage_season(3)
    match = table(season, players)
    owner = players[0].owner
    with pytest.raises(ValidationError, match="one line for each player of this table"):
        services.match_submit_game_result(match=match, record=record(FOUR[:2]), actor=owner)
    wrong_slots = record(THREE)
    wrong_slots["seats"][2]["slot"] = 7
    with pytest.raises(ValidationError, match="one line for each player of this table"):
        services.match_submit_game_result(match=match, record=wrong_slots, actor=owner)
    with pytest.raises(ValidationError, match="not a Kage Masters result"):
        services.match_submit_game_result(match=match, record={"game": "ninjutsu", "winner": 1}, actor=owner)
    with pytest.raises(ValidationError, match="not a Kage Masters result"):
        services.match_submit_game_result(match=match, record={**record(THREE), "extra": 1}, actor=owner)
    with pytest.raises(PermissionDenied):
        services.match_submit_game_result(match=match, record=record(THREE), actor=UserFactory())
    assert Match.objects.get(pk=match.pk).status == Match.Status.SCHEDULED


def test_a_finished_season_takes_no_more_results():
    """Rights come from the match as it is now: a side of this match in a season not finished."""
    season, players = kage_season(3)
    match, waiting = table(season, players), table(season, players)
    services.match_submit_game_result(match=waiting, record=record(THREE), actor=players[0].owner)
    Season.objects.filter(pk=season.pk).update(status=Season.Status.FINISHED)
    with pytest.raises(ValidationError, match="not entered with a players' game form"):
        services.match_submit_game_result(match=match, record=record(THREE), actor=players[0].owner)
    with pytest.raises(ValidationError, match="This season is finished"):
        services.match_confirm(match=waiting, actor=players[1].owner)
    assert Match.objects.get(pk=waiting.pk).status == Match.Status.SUBMITTED


# --- Ninjutsu's time limit ------------------------------------------------------------------------

ON_TIME = {
    "winner": "1",
    "ending": "time_limit",
    "card": "none",
    "starter": "2",
    "colour_1": "Red",
    "colour_2": "Black",
    "ninjas_left_1": "4",
    "ninjas_left_2": "2",
}


def ninjutsu_match(**house_rules):
    league = LeagueFactory(game=games.NINJUTSU, **house_rules)
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    entries = []
    for i in range(2):
        entry = league_services.player_apply(user=UserFactory(), league=league, display_name=f"N{i + 1}")
        league_services.application_accept(team=entry)
        entries.append(entry)
    return season, entries, table(season, entries)


def test_a_league_with_a_time_limit_takes_a_game_on_time_and_scores_it_by_the_house_rule(client):
    season, (home, away), match = ninjutsu_match(time_limit_minutes=45, points_time_win=2, points_time_loss=1)
    client.force_login(home.owner)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    html = client.get(url).content.decode()
    assert "Stopped by the league&#x27;s time limit" in html and "Nobody (stopped by the time limit" in html
    assert client.post(url, ON_TIME).status_code == 302
    services.match_confirm(match=match, actor=away.owner)
    got = {s.slot: (s.outcome, s.points, s.league_points) for s in match.sides.all()}
    assert got == {1: ("win", 4, 2), 2: ("loss", 2, 1)}
    rows = {row.team.pk: row.points for row in league_table(season)}
    assert (rows[home.pk], rows[away.pk]) == (2, 1)
    played = client.get(match.get_absolute_url()).content.decode()
    assert "Stopped by the league&#x27;s time limit" in played and "2 league points" in played


def test_a_draw_on_time_scores_a_draws_points():
    season, (home, away), match = ninjutsu_match(time_limit_minutes=45, points_time_win=2, points_time_loss=1)
    draw = {
        "game": "ninjutsu",
        "winner": None,
        "starter": 1,
        "colours": ["Red", "Black"],
        "ending": "time_limit",
        "card": "none",
        "ninjas_left": [3, 3],
        "shuriken": None,
        "cards": None,
    }
    services.match_submit_game_result(match=match, record=draw, actor=season.league.master)
    got = {s.slot: (s.outcome, s.league_points) for s in MatchTeam.objects.filter(match=match)}
    assert got == {1: ("draw", None), 2: ("draw", None)}
    assert {row.team.pk: row.points for row in league_table(season)} == {home.pk: 1, away.pk: 1}


def test_a_league_without_a_time_limit_refuses_a_game_on_time(client):
    _season, (home, _away), match = ninjutsu_match()
    client.force_login(home.owner)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    html = client.get(url).content.decode()
    assert "Stopped by the league&#x27;s time limit" not in html
    response = client.post(url, ON_TIME)
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    record_on_time = {
        "game": "ninjutsu",
        "winner": 1,
        "starter": 2,
        "colours": ["Red", "Black"],
        "ending": "time_limit",
        "card": "none",
        "ninjas_left": [4, 2],
        "shuriken": None,
        "cards": None,
    }
    with pytest.raises(ValidationError, match="This league has no time limit"):
        services.match_submit_game_result(match=match, record=record_on_time, actor=home.owner)
