"""Fragment caching of a team's history (issue 15, part 3): the seasons' table is the same for every
reader, so a member's second read takes it from the cache (none of its queries run again), another
reader sees the same block, and any write makes it stale at once."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD
from tests.league.helpers import generate, make_season, play, regular
from tests.support import read_table, run_tasks_eagerly

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]


celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


def read(client, url):
    return read_table(client, url, "team-history")


def test_a_members_second_read_takes_the_history_from_the_cache_until_a_write():
    season = make_season(4)
    generate(season, "round_robin")
    match = regular(season).order_by("round_number", "pk").first()
    team = match.sides.order_by("slot").first().team
    url = reverse("stats:team_history", kwargs={"pk": team.pk})
    owner = Client()
    owner.login(username=team.owner.username, password=PASSWORD)

    first, table = read(owner, url)
    again, table_again = read(owner, url)
    assert table_again == table
    assert again < first  # the seasons' queries are not run again
    master = Client()
    master.login(username=season.league.master.username, password=PASSWORD)
    assert read(master, url)[1] == table  # another reader, the same block from the cache

    play(match, 3, 0)  # commits: the versions of what it changed move
    _, after = read(owner, url)
    assert after != table and '<td class="text-end">1</td>' in after  # one game played now
