"""A game's own house rule, declared in its package only (issue 28, part 1: "house rules with their
ranges and the sentence the league page shows"). Janken's ``wins_needed`` (site.py, a
``games.protocol.HouseRule``) is a field of the house-rules form in its range, the league page's
line, a season's frozen rule, the result form's and the result check's number of throws, the API's
``game_rules`` and a backup's, with no field of the core's for it."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from api.backup import league_export_json
from games import registry
from league import services as league_services
from league.models import League, Season
from matches import services as match_services
from matches.models import Match, MatchTeam
from tests.factories import UserFactory
from tests.games.janken import GAME
from tests.games.janken import site as janken_site
from tests.league.helpers import HOUSE_RULES

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


@pytest.fixture(autouse=True)
def janken():
    registry.register(janken_site.GAME_SITE)
    yield janken_site.GAME_SITE
    registry.unregister(GAME.key)


def found(client, master, **rules) -> object:
    """The founding form posted for a Janken league with these fields besides the usual rules."""
    from league.models import HouseRules

    client.force_login(master)
    data = {k: v for k, v in HOUSE_RULES.items() if k not in HouseRules.fields_not_for(GAME.key)}
    return client.post(
        reverse("league:create"),
        {**data, "name": "Janken Club", "game": GAME.key, "tie_breaker_1": "wins", **rules},
    )


def played_season(league: League, players: int = 2) -> tuple[Season, Match]:
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    users = [UserFactory(username=f"j{i}") for i in range(players)]
    for i, user in enumerate(users):
        entry = league_services.player_apply(league=league, user=user, display_name=f"Thrower {i}")
        league_services.application_accept(team=entry)
    match = Match.objects.create(league=league, season=season)
    for slot, entry in enumerate(league.teams.order_by("pk"), start=1):
        MatchTeam.objects.create(match=match, team=entry, slot=slot)
    return season, match


def test_the_founding_form_asks_the_games_own_rule_in_its_range(client):
    master = UserFactory(username="sensei")
    client.force_login(master)
    page = client.get(reverse("league:create"), {"game": GAME.key}).content.decode()
    assert 'name="rule_wins_needed"' in page and 'min="1"' in page and 'max="5"' in page
    assert "Throws to win a match" in page
    # an All-Stars league is not asked it
    assert 'name="rule_wins_needed"' not in client.get(reverse("league:create")).content.decode()
    # out of range: refused, nothing founded
    refused = found(client, master, rule_wins_needed="9")
    assert refused.status_code == 200 and "Ensure this value is less than or equal to 5" in refused.content.decode()
    assert not League.objects.exists()
    assert found(client, master, rule_wins_needed="3").status_code == 302
    league = League.objects.get()
    assert league.game_rules == {"wins_needed": 3}
    # the league page lists it by the game's sentence
    shown = client.get(league.get_absolute_url()).content.decode()
    assert "a match is won by the first to win 3 throws" in shown
    # left empty: the game's default
    League.objects.all().delete()
    assert found(client, master, rule_wins_needed="").status_code == 302
    assert League.objects.get().game_rules == {"wins_needed": 2}


def test_the_services_refuse_an_unknown_rule_or_a_value_out_of_range():
    master = UserFactory()
    with pytest.raises(ValidationError, match="between 1 and 5"):
        league_services.league_create(master=master, name="A", game=GAME.key, game_rules={"wins_needed": 0})
    with pytest.raises(ValidationError, match="no house rule 'lives'"):
        league_services.league_create(master=master, name="A", game=GAME.key, game_rules={"lives": 3})
    with pytest.raises(ValidationError, match="between 1 and 5"):
        league_services.league_create(master=master, name="A", game=GAME.key, game_rules={"wins_needed": True})
    assert not League.objects.exists()
    # founded without it: the default, stored
    league = league_services.league_create(master=master, name="B", game=GAME.key)
    assert league.game_rules == {"wins_needed": 2}


def test_a_season_freezes_the_rule_and_the_result_form_and_check_follow_it(client):
    master = UserFactory(username="sensei")
    league = league_services.league_create(
        master=master, name="Janken Club", game=GAME.key, game_rules={"wins_needed": 3}
    )
    season, match = played_season(league)
    assert season.game_rules == {"wins_needed": 3}
    # the league's rule changed later: the season keeps its own
    league_services.league_update(league=league, game_rules={"wins_needed": 1})
    season.refresh_from_db()
    assert season.game_rules == {"wins_needed": 3} and League.objects.get().game_rules == {"wins_needed": 1}
    page = client.get(season.get_absolute_url()).content.decode()
    assert "a match is won by the first to win 3 throws" in page

    client.force_login(master)
    url = reverse("matches:result", kwargs={"pk": match.pk})
    form = client.get(url).content.decode()
    assert "until one player has won 3" in form and 'name="throw_9_1"' in form  # 2 x 3 + 3 rows
    two = {"throw_1_1": "rock", "throw_1_2": "scissors", "throw_2_1": "rock", "throw_2_2": "scissors"}
    assert "Nobody has won 3 throws yet" in client.post(url, two).content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED
    # the service checks it too (the API's and a settlement's path)
    record = {"game": GAME.key, "throws": [["rock", "scissors"], ["rock", "scissors"]]}
    with pytest.raises(ValidationError, match="Nobody has won 3 throws yet"):
        match_services.match_submit_game_result(match=match, record=record, actor=master)
    three = {**two, "throw_3_1": "paper", "throw_3_2": "rock"}
    assert client.post(url, three).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED  # the master's entry needs no confirmation
    assert dict(match.sides.values_list("slot", "outcome")) == {1: "win", 2: "loss"}


def test_the_api_shows_the_rule_and_a_backup_keeps_it(client, tmp_path, django_capture_on_commit_callbacks):
    master = UserFactory(username="sensei")
    league = league_services.league_create(
        master=master, name="Janken Club", game=GAME.key, game_rules={"wins_needed": 4}
    )
    season, _match = played_season(league)
    body = client.get(reverse("api:league-detail", kwargs={"slug": league.slug})).json()
    assert body["house_rules"]["game_rules"] == {"wins_needed": 4}
    season_body = client.get(reverse("api:season-detail", kwargs={"pk": season.pk})).json()
    assert season_body["house_rules"]["game_rules"] == {"wins_needed": 4}
    # an All-Stars league's house rules show none (as before there were games' own rules)
    other = league_services.league_create(master=master, name="Stars")
    assert (
        "game_rules" not in client.get(reverse("api:league-detail", kwargs={"slug": other.slug})).json()["house_rules"]
    )
    other.delete()

    exported = league_export_json(league)
    from tests.api.test_backup_round_trip import wipe

    wipe()
    path = tmp_path / "janken.json"
    path.write_bytes(exported)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_league", str(path))
    restored = League.objects.get()
    assert restored.game_rules == {"wins_needed": 4} and restored.seasons.get().game_rules == {"wins_needed": 4}

    # a backup whose rule is out of the game's range is refused, and nothing is imported
    document = json.loads(exported)
    document["league"][0]["game_rules"] = {"wins_needed": 50}
    wipe()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(Exception, match="between 1 and 5"):
        call_command("import_league", str(bad))
    assert not League.objects.exists()
