"""Each game's pages are its own (issue 28, part 3): every page of a Ninjutsu league and of a Kage
Masters league, as its master and as one of its players sees it, holds none of the All-Stars words
(challenges, koban, ronin, rosters, advancements, "teams" for players), and no control of them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import registry as games
from games.players import simulation as game_simulation
from league import services
from league.models import ScheduleRun, Season
from matches.models import Match
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import generate

pytestmark = pytest.mark.usefixtures("catalog")

#: The All-Stars words a players' game's page must not use (a word, not a part of one: "steam" is
#: not "team"); "team" only as a word, so a link's path (``/teams/12/``) is not text.
ALL_STARS_WORDS = re.compile(r"\b(challenges?|koban|ronin|rosters?|advancements?|teams?|upkeep|treasury)\b", re.I)
#: The All-Stars controls (form fields) a players' game's page must not offer.
ALL_STARS_CONTROLS = re.compile(r'name="(challenge|challenge_chooser|policy|upkeep[^"]*|revenue[^"]*)"')


def page_words(html: str) -> str:
    """The text a reader sees in the page's main part (the site's navigation is every league's), with
    the tags, scripts and attributes left out."""
    main = html.split('<main id="main"', 1)[1].split("</main>", 1)[0]
    main = re.sub(r"<script.*?</script>", " ", main, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", main)
    return re.sub(r"\s+", " ", text)


def all_stars_words(html: str) -> list[str]:
    text = page_words(html)
    found = [f"…{text[max(0, m.start() - 40) : m.end() + 40]}…" for m in ALL_STARS_WORDS.finditer(text)]
    found += [m.group(0) for m in ALL_STARS_CONTROLS.finditer(html)]
    return found


def players_league(game: str, n: int, *, format: str, swiss_rounds: int | None = None) -> Season:
    league = LeagueFactory(name=f"{game} nights", game=game)
    season = services.season_create(league=league, format=format, swiss_rounds=swiss_rounds)
    for i in range(n):
        entry = services.player_apply(user=UserFactory(), league=league, display_name=f"Shadow {i + 1}")
        services.application_accept(team=entry)
    return season


def league_pages(season: Season, match: Match, entry) -> list[str]:
    """The league's pages: its own, its season's, an open fixture's (``match``) and a played one's,
    a player's entry (``entry``), its statistics and newsletters. (The dashboard is every league's:
    test_dashboard_of_a_player_of_players_games.)"""
    slug, number = season.league.slug, season.number
    kw = {"slug": slug, "number": number}
    played = Match.objects.filter(season=season, status=Match.Status.CONFIRMED).order_by("pk").first()
    return [
        reverse("league:list"),
        reverse("league:detail", kwargs={"slug": slug}),
        reverse("league:edit", kwargs={"slug": slug}),
        reverse("league:applications", kwargs={"slug": slug}),
        reverse("league:invitations", kwargs={"slug": slug}),
        reverse("league:season_create", kwargs={"slug": slug}),
        reverse("league:season_detail", kwargs=kw),
        reverse("league:season_fixtures", kwargs=kw),
        reverse("league:season_desk", kwargs=kw),
        reverse("league:fixture_create", kwargs=kw),
        reverse("league:fixture_reschedule", kwargs={"pk": match.pk}),
        reverse("league:fixture_forfeit", kwargs={"pk": match.pk}),
        reverse("league:fixture_pairing", kwargs={"pk": match.pk}),
        reverse("league:table_dropout", kwargs={"pk": match.pk}),
        reverse("league:round_seating", kwargs={**kw, "round_number": 1}),
        reverse("league:season_rollover", kwargs=kw),
        reverse("matches:detail", kwargs={"pk": match.pk}),
        reverse("matches:result", kwargs={"pk": match.pk}),
        reverse("matches:detail", kwargs={"pk": played.pk}),
        reverse("teams:detail", kwargs={"pk": entry.pk}),
        reverse("stats:honours", kwargs={"slug": slug}),
        reverse("stats:league_leaderboards", kwargs={"slug": slug}),
        reverse("stats:team_history", kwargs={"pk": entry.pk}),
        reverse("newsletters:list", kwargs={"league_slug": slug}),
    ]


def played(season: Season, count: int) -> None:
    """Simulate ``count`` of the season's fixtures (the strength model, seeded)."""
    for seed, match in enumerate(Match.objects.filter(season=season).order_by("pk")[:count]):
        game_simulation.simulate_match(match=match, seed=seed, actor=season.league.master)


@pytest.fixture
def ninjutsu():
    season = players_league(games.NINJUTSU, 4, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    played(season, 3)
    return season


@pytest.fixture
def kage():
    season = players_league(games.KAGE_MASTERS, 7, format=Season.Format.TABLES, swiss_rounds=2)
    generate(season, ScheduleRun.Kind.TABLES)
    played(season, 1)
    return season


@pytest.mark.parametrize("game", ["ninjutsu", "kage"])
def test_no_all_stars_word_on_a_players_games_pages(client, request, game):
    season = request.getfixturevalue(game)
    open_match = Match.objects.filter(season=season, status=Match.Status.SCHEDULED).order_by("pk").first()
    entry = open_match.sides.first().team
    found = {}
    for user in (season.league.master, entry.owner):
        client.force_login(user)
        for url in league_pages(season, open_match, entry):
            response = client.get(url)
            if response.status_code != 200:  # a page this user may not see (the master's own)
                assert response.status_code in (302, 403, 404), url
                continue
            words = all_stars_words(response.content.decode())
            if words:
                found[f"{user.username} {url}"] = words
    assert not found, "\n".join(f"{page}: {words}" for page, words in found.items())


def test_a_players_game_has_no_challenge_to_set(ninjutsu):
    """The service refuses what the fixture list no longer offers: saving a challenge turned a
    Ninjutsu game into "Assassination (6 ninjas, 7 rounds)" before."""
    from django.core.exceptions import ValidationError

    from rules.models import Challenge

    match = Match.objects.filter(season=ninjutsu, status=Match.Status.SCHEDULED).first()
    with pytest.raises(ValidationError, match="has no challenges"):
        services.fixture_set_challenge(match=match, challenge=Challenge.objects.get(slug="assassination"))
    match.refresh_from_db()
    assert match.challenge_id is None


@pytest.mark.parametrize(
    ("game", "founded_with"),
    [
        # All-Stars' defaults do not move (rules.engine.standings.DEFAULT_TIE_BREAKERS)
        (games.ALLSTARS, "points_difference,points_for,head_to_head"),
        # a game with no score: wins, then strength of schedule, then head-to-head
        (games.NINJUTSU, "wins,buchholz,head_to_head"),
        # treasure first, as before issue 28
        (games.KAGE_MASTERS, "points_for,head_to_head,wins"),
    ],
)
def test_each_game_is_founded_with_its_own_tie_breakers_and_the_master_may_change_them(game, founded_with):
    league = services.league_create(master=UserFactory(), name=f"Founded {game}", game=game)
    assert league.tie_breakers == founded_with
    season = services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    assert ",".join(season.tie_breaker_list) == founded_with  # frozen into the season
    services.league_update(league=league, tie_breakers="head_to_head,wins")
    league.refresh_from_db()
    assert league.tie_breakers == "head_to_head,wins"
    # a master who names his own when founding keeps them
    own = services.league_create(master=UserFactory(), name=f"Own {game}", game=game, tie_breakers="wins")
    assert own.tie_breakers == "wins"


def test_a_players_games_rules_form_speaks_of_players_and_offers_no_team_rating(client):
    league = LeagueFactory(game=games.NINJUTSU)
    client.force_login(league.master)
    html = client.get(reverse("league:edit", kwargs={"slug": league.slug})).content.decode()
    assert 'value="team_rating_low"' not in html and "Head-to-head points between the tied players" in html
    assert 'name="several_teams_per_owner"' not in html
    allstars = LeagueFactory()
    client.force_login(allstars.master)
    html = client.get(reverse("league:edit", kwargs={"slug": allstars.slug})).content.decode()
    assert 'value="team_rating_low"' in html and "Head-to-head points between the tied teams" in html


# --- a result in one line, and the table's columns -------------------------------------------------


def fixture_item(html: str, match: Match) -> str:
    return html.split(f'id="match-{match.pk}"')[1].split("</li>")[0]


def test_a_ninjutsu_game_reads_as_its_winner_and_how_the_soke_died(client, django_assert_max_num_queries):
    """A simulated (or entered) Ninjutsu game read "0 – 0" with no winner in the fixture list."""
    from matches import services as match_services
    from tests.trust.world import NINJUTSU_RECORD

    season = players_league(games.NINJUTSU, 2, format=Season.Format.SELF_ARRANGED)
    ink, moon = (e.team for e in season.entries.order_by("team__name"))
    ink.name, moon.name = "Ink Shadow", "Moon Fox"
    for entry in (ink, moon):
        entry.save(update_fields=["name"])
    played = match_services.match_create(teams=[ink, moon], season=season)
    match_services.match_submit_game_result(match=played, record=NINJUTSU_RECORD, actor=ink.owner)  # slot 1 won
    match_services.match_confirm(match=Match.objects.get(pk=played.pk), actor=moon.owner)
    conceded = match_services.match_create(teams=[ink, moon], season=season)
    match_services.match_submit_game_result(
        match=conceded, record={**NINJUTSU_RECORD, "winner": 2, "ending": "conceded", "card": "none"}, actor=ink.owner
    )
    simulated = match_services.match_create(teams=[ink, moon], season=season)
    game_simulation.simulate_match(match=simulated, seed=3, actor=season.league.master)
    simulated.refresh_from_db()
    url = reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number})
    with django_assert_max_num_queries(14):
        html = client.get(url).content.decode()
    assert "Ink Shadow won: Soke killed in battle" in fixture_item(html, played)
    assert "Moon Fox won: the opponent conceded" in fixture_item(html, conceded)  # awaiting confirmation
    item = fixture_item(html, simulated)
    assert " won: " in item and "0 – 0" not in item and "– –" not in item
    assert all("0 – 0" not in fixture_item(html, m) for m in (played, conceded))


def test_a_kage_table_reads_as_places_and_treasure_and_the_table_has_its_columns(client, django_assert_max_num_queries):
    from matches import services as match_services
    from tests.trust.world import KAGE_RECORD

    season = players_league(games.KAGE_MASTERS, 3, format=Season.Format.SELF_ARRANGED)
    entries = [e.team for e in season.entries.order_by("team_id")]
    table = match_services.match_create(teams=entries, season=season)
    match_services.match_submit_game_result(match=table, record=KAGE_RECORD, actor=entries[0].owner)
    for entry in entries[1:]:
        match_services.match_confirm(match=Match.objects.get(pk=table.pk), actor=entry.owner)
    assert Match.objects.get(pk=table.pk).status == Match.Status.CONFIRMED
    from stats.ratings import ratings_recompute

    ratings_recompute()  # what the task does after a confirmation (on commit)
    # places by treasure (KAGE_RECORD: slot 3 15, slot 1 10, slot 2 6)
    html = client.get(
        reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number})
    ).content.decode()
    item = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fixture_item(html, table)))
    first, second, third = entries[2].name, entries[0].name, entries[1].name
    assert f"{first} 1st (15 treasure)" in item and f"{second} 2nd (10 treasure)" in item
    assert f"{third} 3rd (6 treasure)" in item
    with django_assert_max_num_queries(15):
        html = client.get(season.get_absolute_url()).content.decode()
    league_table = html.split('data-testid="league-table"')[1].split("</table>")[0]
    heads = re.findall(r"<th scope=\"col\"[^>]*>([^<]*)</th>", league_table)
    assert heads[:6] == ["#", "Player", "P", "Places", "Treasure", "Str."] and "Pts" in heads
    for absent in ("W", "D", "L", "For", "Ag.", "+/−"):
        assert absent not in heads, absent
    winner_row = league_table.split(first)[1].split("</tr>")[0]
    assert "1st ×1" in winner_row and ">15<" in winner_row
    # the strength column is the table rating (Plackett-Luce), not "—" for every player
    strength = re.findall(r'<td class="text-end d-none d-md-table-cell">(.*?)</td>', winner_row)
    assert strength and strength[0] != "—", winner_row


def test_a_ninjutsu_table_counts_wins_with_no_score_columns(client):
    season = players_league(games.NINJUTSU, 4, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    played(season, 4)
    html = client.get(season.get_absolute_url()).content.decode()
    league_table = html.split('data-testid="league-table"')[1].split("</table>")[0]
    heads = re.findall(r"<th scope=\"col\"[^>]*>([^<]*)</th>", league_table)
    assert heads[:5] == ["#", "Player", "P", "W", "L"]  # no draws without a time limit
    for absent in ("D", "For", "Ag.", "+/−", "Places", "TR"):
        assert absent not in heads, absent


@pytest.mark.parametrize(
    ("game", "heads"),
    [
        ("ninjutsu", ["#", "Player", "P", "W", "L", "Pts"]),
        ("kage", ["#", "Player", "P", "Places", "Treasure", "Pts"]),
    ],
)
def test_a_finished_season_archives_the_games_own_columns(client, request, game, heads):
    season = request.getfixturevalue(game)
    season = services.season_finish(season=season)
    html = client.get(season.get_absolute_url()).content.decode()
    final = html.split('data-testid="final-table"')[1].split("</table>")[0]
    assert re.findall(r"<th scope=\"col\"[^>]*>([^<]*)</th>", final) == heads
    assert not all_stars_words(html)
    if game == "kage":
        assert "1st ×1" in final  # the places, archived with the row
