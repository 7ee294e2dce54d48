"""Fragment caching (issue 15, part 3): the league table block of a member's season page comes from
the cache under the versions of what it shows, so a member's page re-renders only their own
parts; a write to what it shows makes it stale at once; with the cache down the page still renders."""

import pytest
from django.test import Client

from common import fragments
from tests.factories import PASSWORD
from tests.league.helpers import generate, make_season, play, regular
from tests.support import read_table

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]


def read(client, url):
    return read_table(client, url, "league-table")


@pytest.fixture
def season_and_master():
    season = make_season(6)
    generate(season, "round_robin")
    master = Client()
    master.login(username=season.league.master.username, password=PASSWORD)
    return season, master


def test_a_members_second_read_takes_the_table_from_the_cache(season_and_master):
    season, master = season_and_master
    url = season.get_absolute_url()
    first, table = read(master, url)
    again, table_again = read(master, url)
    assert table_again == table
    assert again < first  # the table's and next fixtures' queries are not run again
    # another member sees the same block from the cache too
    owner = season.entries.select_related("team__owner").first().team.owner
    other = Client()
    other.login(username=owner.username, password=PASSWORD)
    assert read(other, url)[1] == table


def test_a_write_makes_the_block_stale_at_once(season_and_master):
    season, master = season_and_master
    url = season.get_absolute_url()
    _, before = read(master, url)
    assert '<td class="text-end fw-bold">3</td>' not in before
    play(regular(season).order_by("round_number", "pk").first(), 3, 0)  # commits: the versions of what it changed move
    _, after = read(master, url)
    assert after != before and '<td class="text-end fw-bold">3</td>' in after


def test_with_the_cache_down_the_page_still_renders(season_and_master, monkeypatch):
    season, master = season_and_master

    def down(identity, scopes=()):
        raise ConnectionError("cache unreachable")

    monkeypatch.setattr(fragments, "lookup", down)
    count, table = read(master, season.get_absolute_url())
    assert count > 0 and "<tbody>" in table
