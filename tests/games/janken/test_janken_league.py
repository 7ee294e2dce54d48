"""A fourth game in one package (issue 28, part 2): Janken lives only in tests/games/janken/ and
registers itself through the protocol (games.registry.register); a league of it runs end to end
through the real interfaces, the test client on the web pages and the API: founded, joined,
scheduled, a result entered and confirmed, the table, the statistics, a newsletter, the API, and
an export imported into an empty database. No file outside this package names it."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from api.backup import league_export_json
from games import registry
from league.models import HouseRules, League, Season
from matches.models import Match, MatchTeam
from newsletters.models import Newsletter
from tests.factories import UserFactory
from tests.games.janken import GAME
from tests.games.janken import site as janken_site
from tests.league.helpers import HOUSE_RULES
from tests.support import run_tasks_eagerly

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

ROOT = Path(__file__).resolve().parents[3]
celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def janken():
    """Registered for these tests only, through the protocol and nothing else."""
    registry.register(janken_site.GAME_SITE)
    yield janken_site.GAME_SITE
    registry.unregister(GAME.key)


def test_nothing_outside_the_package_names_janken():
    assert not any("janken" in path for path in settings.MOONLIGHT_GAMES)
    here = Path(__file__).resolve().parent
    named = [
        str(path.relative_to(ROOT))
        for pattern in ("*.py", "*.html", "*.json", "*.toml")
        for path in ROOT.rglob(pattern)
        if here not in path.parents
        and not {".venv", "node_modules", ".git"} & set(path.parts)
        and re.search(r"\bjanken\b", path.read_text(errors="ignore"), re.IGNORECASE)
        and "rulebook" not in path.name
    ]
    assert named == []


def test_seed_demo_seeds_a_janken_league_when_janken_is_registered(capsys):
    """The command asks every registered game for its demo (Game.demo), in the registry's order:
    the site's own demos already there, it seeds Janken's alone, through the game's hook."""
    master = UserFactory(username="demo-master")
    for key, game in registry.sites().items():
        if key != GAME.key and game.demo:
            League.objects.create(name=game.demo.slug, slug=game.demo.slug, master=master)
    call_command("seed_demo", "--password", "Janken-Demo-28")
    league = League.objects.get(slug=janken_site.DEMO_SLUG)
    assert league.game == GAME.key and league.master == master
    season = league.seasons.get()
    assert sorted(season.entries.values_list("team__name", flat=True)) == sorted(
        name for _, name in janken_site.DEMO_PLAYERS
    )
    played = Match.objects.filter(season=season, status="confirmed")
    assert played.count() == 2 and set(played.values_list("round_number", flat=True)) == {1}
    out = capsys.readouterr().out
    assert f"Seeded Moonlight Janken: {league.get_absolute_url()}" in out
    assert out.count("already seeded") == len(registry.sites()) - 1
    from django.contrib.auth import get_user_model

    assert get_user_model().objects.get(username="demo-kenta").check_password("Janken-Demo-28")


def _throws(*pairs: tuple[str, str]) -> dict:
    data = {}
    for row, (first, second) in enumerate(pairs, start=1):
        data[f"throw_{row}_1"], data[f"throw_{row}_2"] = first, second
    return data


def test_a_janken_league_end_to_end(
    client, tmp_path, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    # --- founded, on the founding form, by the game it offers ------------------------------------
    master = UserFactory(username="sensei")
    client.force_login(master)
    page = client.get(reverse("league:create"), {"game": GAME.key}).content.decode()
    assert f'value="{GAME.key}" selected' in page and "Janken" in page
    assert 'name="starting_koban"' not in page and 'name="time_limit_minutes"' not in page
    rules = {k: v for k, v in HOUSE_RULES.items() if k not in HouseRules.fields_not_for(GAME.key)}
    rules["results_need_confirmation"] = "on"  # a result waits for the opponent
    # the page offers the package's default tie-breaks, and the master keeps them
    assert re.search(r'name="tie_breaker_1"[^>]*>(?:(?!</select>).)*value="wins" selected', page, re.S)
    rules |= {"tie_breaker_1": "wins", "tie_breaker_2": "head_to_head"}
    response = client.post(reverse("league:create"), {**rules, "name": "Janken Club", "game": GAME.key})
    assert response.status_code == 302, response.content.decode()[:2000]
    league = League.objects.get(name="Janken Club")
    assert league.game == GAME.key and league.get_game_display() == "Janken"
    assert league.tie_breakers == "wins,head_to_head"
    response = client.post(
        reverse("league:season_create", kwargs={"slug": league.slug}),
        {"format": Season.Format.ROUND_ROBIN, "playoff_teams": 0},
    )
    assert response.status_code == 302
    season = Season.objects.get(league=league)

    # --- joined: four players apply as themselves, the master accepts them ----------------------------
    players = [UserFactory(username=f"p{i}") for i in range(1, 5)]
    names = ["Rock Lee", "Paper Moon", "Scissor Hands", "Stone Cold"]
    for user, name in zip(players, names, strict=True):
        c = Client()
        c.force_login(user)
        assert "Join as a player" in c.get(league.get_absolute_url()).content.decode()
        assert c.post(reverse("league:apply", kwargs={"slug": league.slug}), {"display_name": name}).status_code == 302
    for entry in league.teams.all():
        client.post(
            reverse("league:applications", kwargs={"slug": league.slug}), {"decision": "accept", "team": entry.pk}
        )
    assert season.entries.count() == 4

    # --- scheduled: the round robin, from the season page's button -------------------------------
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("league:schedule_generate", kwargs={"slug": league.slug, "number": season.number}),
            {"kind": "round_robin", "round_number": 0},
        )
    assert response.status_code == 302
    assert Match.objects.filter(season=season).count() == 6
    first, second = Match.objects.filter(season=season, round_number=1).order_by("pk")
    assert first.challenge_id is None  # a game without challenges

    # --- a result entered on the site and confirmed by the opponent --------------------------------
    sides = list(first.sides.select_related("team__owner").order_by("slot"))
    home, away = Client(), Client()
    home.force_login(sides[0].team.owner)
    away.force_login(sides[1].team.owner)
    form = home.get(reverse("matches:result", kwargs={"pk": first.pk})).content.decode()
    assert 'name="throw_1_1"' in form and "koban" not in form.lower()
    refused = home.post(reverse("matches:result", kwargs={"pk": first.pk}), _throws(("rock", "scissors")))
    assert "Nobody has won 2 throws yet" in refused.content.decode()
    posted = _throws(("rock", "scissors"), ("paper", "paper"), ("rock", "paper"), ("scissors", "paper"))
    assert home.post(reverse("matches:result", kwargs={"pk": first.pk}), posted).status_code == 302
    first.refresh_from_db()
    assert first.status == Match.Status.SUBMITTED
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            away.post(reverse("matches:confirm", kwargs={"pk": first.pk}), {"decision": "confirm"}).status_code == 302
        )
    first.refresh_from_db()
    assert first.status == Match.Status.CONFIRMED
    outcomes = dict(MatchTeam.objects.filter(match=first).values_list("slot", "outcome"))
    assert outcomes == {1: "win", 2: "loss"}
    winner = sides[0].team.name
    page = client.get(first.get_absolute_url()).content.decode()
    assert "Throw 4" in page and f"{winner} scissors" in page

    # --- the API: the league, and the second fixture's result posted as the game's document ----------
    api_sides = list(second.sides.select_related("team__owner").order_by("slot"))
    token = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=api_sides[1].team.owner).key}"}
    body = client.get(reverse("api:league-detail", kwargs={"slug": league.slug})).json()
    assert (body["game"], body["game_name"]) == (GAME.key, "Janken")
    document = {"game": GAME.key, "throws": [["paper", "scissors"], ["rock", "scissors"], ["rock", "paper"]]}
    api = Client()
    response = api.post(
        reverse("api:match-result", kwargs={"pk": second.pk}),
        json.dumps(document),
        content_type="application/json",
        **token,
    )
    assert response.status_code == 200, response.content
    assert response.json()["game_record"] == document
    wrong = {"game": GAME.key, "throws": [["rock", "lizard"]]}
    response = api.post(
        reverse("api:match-result", kwargs={"pk": second.pk}),
        json.dumps(wrong),
        content_type="application/json",
        **token,
    )
    assert response.status_code == 400
    client.force_login(master)  # the master confirms it on the site (its results need confirming)
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            client.post(reverse("matches:confirm", kwargs={"pk": second.pk}), {"decision": "confirm"}).status_code
            == 302
        )
    second.refresh_from_db()
    assert second.status == Match.Status.CONFIRMED

    # --- the fixture list and the table ---------------------------------------------------------
    fixtures = client.get(reverse("league:season_fixtures", kwargs={"slug": league.slug, "number": season.number}))
    assert f"{winner} won 2–1" in fixtures.content.decode()
    with django_assert_max_num_queries(40):
        table = client.get(season.get_absolute_url()).content.decode()
    for name in names:
        assert name in table
    assert "koban" not in table.lower() and "challenge" not in table.lower()
    # Its own columns (Game.table_columns), one of them from its own query (Game.table_values): the
    # first game's four throws and the second's three.
    titles = re.findall(r'<th scope="col"[^>]*title="([^"]*)"', table)
    assert titles[:4] == ["Played", "Won", "Lost", "Throws thrown"]
    thrown = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S):
        named = re.search(r'<a href="[^"]*">([^<]*)</a>', row)
        if named:
            thrown[named.group(1)] = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)[
                1 + titles.index("Throws thrown")
            ]
    assert thrown[sides[0].team.name] == thrown[sides[1].team.name] == "4"
    assert {thrown[s.team.name] for s in api_sides} == {"3"}
    # ... and the table's CSV carries it after every game's figures
    csv_url = reverse("exports:table_csv", kwargs={"slug": league.slug, "number": season.number})
    lines = list(csv.reader(io.StringIO(client.get(csv_url).content.decode())))
    assert lines[0][-1] == "throws"
    assert {line[1]: line[-1] for line in lines[1:]}[sides[0].team.name] == "4"

    # --- the statistics: the game's own, through its template ---------------------------------------
    stats = client.get(reverse("stats:league_leaderboards", kwargs={"slug": league.slug})).content.decode()
    assert 'data-testid="janken-stats"' in stats and "Scissors" in stats

    # --- a newsletter of round 1: the game's report, its statistics ------------------------------------
    period = f"season-{season.number}-round-1"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("newsletters:build", kwargs={"league_slug": league.slug}), {"period": period})
    assert response.status_code == 302
    newsletter = Newsletter.objects.get(league=league, period_key=period)
    page = client.get(newsletter.get_absolute_url()).content.decode()
    assert f"{winner} beat" in page and "at Janken" in page and "Throws won" in page

    # --- exported, imported into an empty database, exported again: the same bytes ------------------
    exported = league_export_json(league)
    path = tmp_path / "janken.json"
    path.write_bytes(exported)
    from tests.api.test_backup_round_trip import wipe

    wipe()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_league", str(path))
    restored = League.objects.get()
    assert restored.game == GAME.key and league_export_json(restored) == exported
