"""A Ninjutsu league's results (issue 17, part 2): a player enters the result on a phone-sized form
(no kick-off, no roster, no post-game sequence), the opponent confirms it or enters his own record
(the same confirms, a different one disputes), the master settles a dispute by picking a record;
the sides' outcomes and the league table follow."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from league.models import ScheduleRun
from league.selectors import league_table
from matches import services
from matches.models import Match
from tests.league.helpers import generate
from tests.league.test_games_players import ninjutsu_season

pytestmark = pytest.mark.usefixtures("catalog")

GOOD = {
    "winner": "1",
    "ending": "soke_attacked",
    "card": "jump",
    "starter": "2",
    "colour_1": "Red",
    "colour_2": "Black",
    "ninjas_left_1": "4",
    "ninjas_left_2": "0",
}


def fixture():
    season = ninjutsu_season(2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    match = Match.objects.select_related("league").get(season=season)
    home, away = (side.team for side in match.sides.select_related("team").order_by("slot"))
    return season, match, home, away


def test_a_player_enters_the_result_and_the_opponent_confirms_it(client, django_assert_max_num_queries):
    season, match, home, away = fixture()
    url = reverse("matches:result", kwargs={"pk": match.pk})
    client.force_login(home.owner)
    page = client.get(match.get_absolute_url()).content.decode()
    assert url in page and "Entering results is not yet available" not in page and "Pre-match sheet" not in page
    with django_assert_max_num_queries(12):
        form = client.get(url)
    html = form.content.decode()
    assert form.status_code == 200 and 'name="colour_1"' in html and f"{home.name}&#x27;s colour" in html
    assert 'inputmode="numeric"' in html and "kick" not in html.lower()

    bad = client.post(url, {**GOOD, "card": "smoke", "ending": "soke_attacking"})
    assert bad.status_code == 200 and "A card opens the way to the Soke only when" in bad.content.decode()
    half = client.post(url, {**GOOD, "ninjas_left_2": ""})
    assert "Give both players&#x27; ninjas left, or neither." in half.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.submitted_record is None  # nothing half-saved

    response = client.post(url, GOOD)
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED and match.kicked_off_at is None
    assert match.submitted_record["winner"] == 1 and match.submitted_record["ninjas_left"] == [4, 0]
    waiting = client.get(match.get_absolute_url()).content.decode()
    assert "The submitted result" in waiting and "The Soke was attacked and lost the battle" in waiting
    assert f"{home.name} Red, {away.name} Black" in waiting

    client.force_login(away.owner)
    client.post(reverse("matches:confirm", kwargs={"pk": match.pk}), {"decision": "confirm"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    sides = {s.slot: s for s in match.sides.all()}
    assert (sides[1].outcome, sides[1].points, sides[2].outcome, sides[2].points) == ("win", 4, "loss", 0)
    assert not match.dice_rolls.exists() and not match.treasury_entries.exists()  # no post-game sequence
    rows = {row.team.pk: row for row in league_table(season)}
    assert (rows[home.pk].won, rows[home.pk].points, rows[away.pk].lost) == (1, 3, 1)
    with django_assert_max_num_queries(10):
        played = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="game-played"' in played and "Won" in played and "4 ninjas left" in played
    assert "Jump" in played and "post-game sequence" not in played.lower()


def test_a_different_record_disputes_and_the_master_picks_one(client):
    season, match, home, away = fixture()
    services.match_submit_game_result(match=match, record={**_record(GOOD)}, actor=home.owner)
    client.force_login(away.owner)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    start = client.get(url).content.decode()
    assert 'data-testid="counter-intro"' in start and 'value="Red"' in start  # starts from the first record
    client.post(
        url, {**GOOD, "winner": "2", "ending": "conceded", "card": "none", "ninjas_left_1": "1", "ninjas_left_2": "3"}
    )
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED and match.counter_record["winner"] == 2
    page = client.get(match.get_absolute_url()).content.decode()
    assert "First record" in page and "The loser conceded" in page

    client.force_login(season.league.master)
    settle = client.get(reverse("matches:settle", kwargs={"pk": match.pk})).content.decode()
    assert "Apply the second record" in settle and "edit a merged record" not in settle
    client.post(reverse("matches:settle", kwargs={"pk": match.pk}), {"pick": "second"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.settlement == Match.Settlement.SECOND
    sides = {s.slot: s.outcome for s in match.sides.all()}
    assert sides == {1: "loss", 2: "win"}


def test_the_same_record_from_the_opponent_confirms():
    _season, match, home, away = fixture()
    services.match_submit_game_result(match=match, record=_record(GOOD), actor=home.owner)
    services.match_submit_game_result(match=match, record=_record(GOOD), actor=away.owner)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.counter_record is None


def test_the_master_enters_a_result_confirmed_at_once_and_may_void_it():
    season, match, _home, _away = fixture()
    services.match_submit_game_result(match=match, record=_record(GOOD), actor=season.league.master)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    services.match_void(match=match, actor=season.league.master, reason="Wrong players")
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED
    assert all(row.played == 0 for row in league_table(season))


def test_who_may_enter_and_what_is_refused():
    from django.core.exceptions import PermissionDenied

    from tests.factories import UserFactory

    _season, match, home, _away = fixture()
    with pytest.raises(PermissionDenied):
        services.match_submit_game_result(match=match, record=_record(GOOD), actor=UserFactory())
    with pytest.raises(ValidationError, match="This league has no time limit"):
        services.match_submit_game_result(
            match=match, record={**_record(GOOD), "ending": "time_limit"}, actor=home.owner
        )
    with pytest.raises(ValidationError, match="not a Ninjutsu result"):
        services.match_submit_game_result(match=match, record={"teams": []}, actor=home.owner)


def _record(data: dict) -> dict:
    from games.ninjutsu.forms import NinjutsuResultForm

    form = NinjutsuResultForm(data, names=("Player 1", "Player 2"))
    assert form.is_valid(), form.errors
    return form.record
