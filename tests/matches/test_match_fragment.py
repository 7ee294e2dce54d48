"""Fragment caching of a played match's block (issue 15, part 3): its sides, their models' records
and the post-game sequence are the same for every reader, so a member's second read takes them
from the cache (none of their queries run again), the reader's own part (the master's void link)
is still rendered for each reader, and any write makes the block stale at once."""

import pytest
from django.test import Client
from django.urls import reverse

from matches import simulation
from teams import services as team_services
from tests.factories import PASSWORD, UserFactory
from tests.matches.conftest import make_brawl_match
from tests.support import run_tasks_eagerly

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]

celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture
def brawl_match(two_teams, league):
    """Built for each test: these tests commit, which the shared match world cannot hold."""
    return make_brawl_match(two_teams, league)


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def read(client, url) -> tuple[int, str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    start = body.index('<div class="row g-3">')
    return len(ctx.captured_queries), body[start : body.index("The post-game sequence", start)]


def test_a_members_second_read_takes_the_played_block_from_the_cache_until_a_write(brawl_match, league):
    assert simulation.simulate_match(match=brawl_match, seed=5, actor=league.master) is not None
    url = reverse("matches:detail", args=[brawl_match.pk])
    reader = signed_in(UserFactory())
    master = signed_in(league.master)

    first, block = read(reader, url)
    again, block_again = read(reader, url)
    assert block_again == block and "Tigers" in block and "<tbody>" in block
    assert again <= first - 5  # the models' records and the post-game sequence's rows
    _, masters_block = read(master, url)
    assert masters_block == block  # the same block for the master ...
    assert "Void…" in master.get(url).content.decode()  # ... whose own links are still rendered
    assert "Void…" not in reader.get(url).content.decode()

    home = brawl_match.sides.order_by("slot").first().team
    team_services.team_rename(team=home, name="Striped Tigers")  # commits: the versions of what it changed move
    _, after = read(reader, url)
    assert after != block and "(now Striped Tigers)" in after


def test_a_played_matchs_page_reads_only_what_it_shows_once_the_block_is_cached(brawl_match, league):
    """Issue 15: with the played block from the cache, the page reads the match (its league and
    challenge joined) and its sides' own lines: not the records entered, the people of the result,
    the sides' kick-off snapshots, their teams or the challenge's awards."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    assert simulation.simulate_match(match=brawl_match, seed=5, actor=league.master) is not None
    url = reverse("matches:detail", args=[brawl_match.pk])
    reader = signed_in(UserFactory())
    reader.get(url)  # builds the block
    with CaptureQueriesContext(connection) as ctx:
        page = reader.get(url).content.decode()
    assert "The post-game sequence" in page and "Tigers" in page
    sql = [q["sql"] for q in ctx.captured_queries]
    match_sql = [q for q in sql if 'FROM "matches_match"' in q]
    sides_sql = [q for q in sql if 'FROM "matches_matchteam"' in q]
    assert len(match_sql) == 1 and len(sides_sql) == 1
    assert "submitted_record" not in match_sql[0] and "auth_user" not in match_sql[0]
    assert "roster_snapshot" not in sides_sql[0] and "teams_team" not in sides_sql[0]
    assert not [q for q in sql if "rules_challengexpaward" in q]
    assert len(sql) <= 6  # session, user, match, sides, the unread count (and a savepoint at most)
