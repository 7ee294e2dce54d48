"""Fragment caching of the team scroll's body (issue 15, part 3): the roster, its problems, the game
records and the recent ledger are the same for every reader with the same rights, so a member's
second read takes them from the cache (none of their queries run again); a reader without the
right to manage the team never gets the manager's block; any write makes it stale at once."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory, make_team, recruit
from tests.support import read_table

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def read(client, url):
    return read_table(client, url, "scroll-roster")


def test_a_members_second_read_takes_the_scroll_body_from_the_cache_until_a_write():
    team = make_team("tora", name="Tigers")
    recruit(team, "tora-chunin")
    recruit(team, "tora-kaiken", 2)
    url = reverse("teams:detail", args=[team.pk])
    reader, other = signed_in(UserFactory()), signed_in(UserFactory())

    first, table = read(reader, url)
    again, table_again = read(reader, url)
    assert table_again == table and table.count("<tr>") == 4  # the header row and three models
    assert again <= first - 5  # the roster, its keywords, abilities and advancements, the records
    assert read(other, url) == (again, table)  # another reader: the same block, the same queries

    recruit(team, "tora-byakko")  # commits: the versions of what it changed move
    _, after = read(reader, url)
    assert after != table and "Byakko" in after and after.count("<tr>") == 5


def test_the_managers_block_is_never_served_to_a_reader_without_the_right():
    team = make_team("tora", name="Tigers")
    recruit(team, "tora-chunin")
    url = reverse("teams:detail", args=[team.pk])
    owner, reader = signed_in(team.owner), signed_in(UserFactory())
    anonymous = Client()

    _, owners = read(owner, url)
    assert "Release" in owners and "Rename" in owners
    for client in (reader, anonymous):
        body = client.get(url).content.decode()
        assert "Release" not in body and "Rename" not in body
        assert "Tigers" in body and "Chunin" in body
    assert read(owner, url)[1] == owners  # the owner's block, from the cache


def test_every_game_and_the_recent_games_are_kept_apart():
    """``?games=all`` is a block of its own: after the recent games are cached, every game is
    still shown (and the other way round)."""
    from matches.templatetags.match_records import SCROLL_GAMES
    from tests.teams.test_views_teams import _play_games

    team = make_team("tora", name="Tigers")
    recruit(team, "tora-chunin")
    _play_games(team, SCROLL_GAMES + 1)
    url = reverse("teams:detail", args=[team.pk])
    reader = signed_in(UserFactory())
    for _ in range(2):  # the second time from the cache
        recent = reader.get(url).content.decode()
        every = reader.get(url + "?games=all").content.decode()
        assert "Show every game" in recent and "Show every game" not in every
        assert recent.count("Round ") + recent.count("Jan 2026") == SCROLL_GAMES
        assert every.count("Jan 2026") + every.count("Feb 2026") == SCROLL_GAMES + 1
