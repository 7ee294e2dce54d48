"""Three games everywhere (issue 28, part 6): the home page, the footer, the README, the rules index,
the API's description and the founding form present Ninja All-Stars, Ninjutsu and Kage Masters
alike, each from its package's description (games.base.GameInfo), none before the others in words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils.html import escape

from games import registry as games
from tests.factories import UserFactory
from tests.league.test_games_own_words import all_stars_words

pytestmark = pytest.mark.usefixtures("catalog")

NAMES = [g.name for g in games.GAMES.values()]


def test_the_home_page_and_the_footer_name_the_three_games(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        html = client.get(reverse("home")).content.decode()
    lead = html.split('data-testid="home-lead"')[1].split("</p>")[0]
    assert "Run your Ninja All-Stars league" not in html
    assert all(name in lead for name in NAMES), lead
    cards = html.split('data-testid="home-games"')[1]
    for game in games.GAMES.values():
        assert f"{game.name}</h2>" in cards and escape(game.summary) in cards
        assert reverse(game.rules_pages[0][1]) in cards
        assert f"{reverse('league:create')}?game={game.key}" in cards
    footer = html.split('data-testid="site-footer"')[1].split("</footer>")[0]
    assert footer == (
        ">Moonlight League · a league manager for Ninja All-Stars, Ninjutsu: Battle of the Ninjas and "
        "Ninja Dice: Kage Masters"
    )


def test_the_rules_index_links_every_games_rules_and_the_ninjutsu_odds(client):
    html = client.get(reverse("rules:index")).content.decode()
    nav = html.split('data-testid="rules-games"')[1].split("</nav>")[0]
    for name in ("rules:index", "rules:odds", "rules:ninjutsu", "rules:ninjutsu_odds", "rules:kage_masters"):
        assert f'href="{reverse(name)}"' in nav, name
    assert all(f"<strong>{name}</strong>" in nav for name in NAMES)


def test_the_readme_and_the_api_describe_the_three_games(client):
    first = Path(__file__).resolve().parents[2].joinpath("README.md").read_text().split("\n\n")[1]
    flat = " ".join(first.split())
    assert all(f"**{name}**" in flat for name in ("Ninja All-Stars", "Ninjutsu: Battle of the Ninjas")), flat
    assert "**Ninja Dice: Kage Masters**" in flat
    schema = client.get(reverse("api:schema"), HTTP_ACCEPT="application/json").content.decode()
    assert "Leagues of Ninja All-Stars, Ninjutsu: Battle of the Ninjas and Ninja Dice: Kage Masters" in schema


@pytest.mark.parametrize("game", [games.NINJUTSU, games.KAGE_MASTERS])
def test_the_founding_form_of_a_players_game_speaks_its_words(client, game):
    client.force_login(UserFactory())
    html = client.get(reverse("league:create") + f"?game={game}").content.decode()
    choice = html.split('data-testid="game-choice"')[1].split("</nav>")[0]
    assert all(name in choice for name in NAMES) and escape(games.get(game).summary) in choice
    # the game's choice names All-Stars, which is no All-Stars word on a players' game's form
    form = html.replace(choice, "")
    assert not all_stars_words(form), all_stars_words(form)
    assert re.search(r'value="team_rating_low"', html) is None
