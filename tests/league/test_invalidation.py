"""Invalidation by what a write changed (issue 29, part 1; common/invalidation.py): a result in one
league leaves another league's cached table (the members' fragment and the anonymous page) warm;
an edit that changes nothing leaves every cached page and block warm; a rename makes stale the
pages that show the name and no other league's; a rolled-back write invalidates nothing; the
version keys are a few per league, season, team and match, however many writes there are."""

from __future__ import annotations

import contextlib

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import reverse

from common import invalidation
from league.models import Season
from matches import services as match_services
from teams import services as team_services
from teams.models import Team
from tests.factories import PASSWORD
from tests.league.helpers import generate, make_season, regular
from tests.support import read_table, record_for

#: Transactional: versions move when a transaction that wrote commits.
pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
def page_cache_on(settings, fragment_cache):
    settings.PAGE_CACHE_SECONDS = 300


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


class League:
    """A running round-robin season of four legal teams, its master signed in, and an anonymous reader."""

    def __init__(self):
        self.season = make_season(4, legal=True)
        generate(self.season, "round_robin")
        self.url = self.season.get_absolute_url()
        self.master = signed_in(self.season.league.master)
        self.anonymous = Client()
        self.teams = list(Team.objects.filter(season_entries__season=self.season).order_by("pk"))

    def member_read(self) -> tuple[int, str]:
        return read_table(self.master, self.url, "league-table")

    def anonymous_read(self) -> tuple[int, str]:
        return read_table(self.anonymous, self.url, "league-table")

    def warm(self) -> tuple[int, int]:
        """Read both ways twice: the queries of a warm member read, of a warm anonymous read (0)."""
        self.member_read(), self.anonymous_read()
        return self.member_read()[0], self.anonymous_read()[0]

    def confirm_a_result(self, home_points: int = 3, away_points: int = 0) -> None:
        """The first fixture kicked off and its result entered by the master (confirmed at once),
        through the services: the post-game sequence, the read model, the ratings all run."""
        match = (
            regular(Season.objects.get(pk=self.season.pk))
            .filter(status="scheduled")
            .order_by("round_number", "pk")
            .first()
        )
        match_services.match_kick_off(match=match)
        record = record_for(match, [home_points, away_points])
        match_services.match_submit_result(match=match, record=record, actor=self.season.league.master)


def scroll_read(client, team) -> tuple[int, str]:
    return read_table(client, reverse("teams:detail", args=[team.pk]), "scroll-roster")


def version_keys() -> dict[str, int]:
    """Every version in the cache, by scope (the memory cache's keys are ":1:<key>")."""
    keys = [key.split(":", 2)[-1] for key in cache._cache if invalidation.VERSION_PREFIX in key]
    return {key.removeprefix(invalidation.VERSION_PREFIX): cache.get(key) for key in keys}


def test_a_result_in_league_a_leaves_league_bs_table_warm_and_refreshes_league_as():
    result_in_league_a_leaves_league_b_warm()


def test_over_redis_a_result_in_league_a_leaves_league_bs_table_warm(settings, redis_url):
    """The same through Redis: the entries' version headers and the one-round-trip script."""
    from django.conf import settings as django_settings

    settings.CACHES = {
        "default": {
            "BACKEND": "common.rediscache.RedisCache",
            "LOCATION": django_settings.TEST_REDIS_URLS["page_cache"],  # a database of these tests' own
            "KEY_PREFIX": "invalidation-test",
        }
    }
    cache.clear()
    try:
        result_in_league_a_leaves_league_b_warm()
    finally:
        with contextlib.suppress(Exception):
            cache.clear()


def result_in_league_a_leaves_league_b_warm():
    a, b = League(), League()
    warm_a, warm_b = a.warm(), b.warm()
    assert warm_b[1] == 0 and warm_b[0] < b.member_read()[0] + 1  # warm: the anonymous read runs no query
    _, table_a = a.member_read()
    _, table_b = b.member_read()
    assert '<td class="text-end fw-bold">3</td>' not in table_a

    a.confirm_a_result(3, 0)

    # League B: both caches still warm (the same queries as before, none for the anonymous page).
    assert b.anonymous_read() == (0, table_b)
    assert b.member_read() == (warm_b[0], table_b)
    # League A: refreshed, showing the result (a win: three points), for members and anonymous readers.
    count, fresh = a.member_read()
    assert count > warm_a[0] and '<td class="text-end fw-bold">3</td>' in fresh
    count, fresh_anonymous = a.anonymous_read()
    assert count > 0 and fresh_anonymous == fresh


def test_a_no_op_team_edit_leaves_every_cached_block_warm():
    a = League()
    team = a.teams[0]
    owner = signed_in(team.owner)
    reader = signed_in(a.teams[1].owner)
    warm = a.warm()
    scroll_read(reader, team)
    warm_scroll = scroll_read(reader, team)
    anonymous_scroll = (scroll_read(a.anonymous, team), scroll_read(a.anonymous, team))
    assert anonymous_scroll[1][0] == 0
    home = Client().get(reverse("home")).content
    before = version_keys()

    form = {"name": team.name, "colour_primary": "#1f3a5c", "colour_secondary": "#f2c14e", "no_colours": "on"}
    for _ in range(3):
        response = owner.post(reverse("teams:edit", args=[team.pk]), {**form, "motto": ""})
        assert response.status_code == 302

    assert version_keys() == before  # not one version moved, not even the site's
    assert a.member_read()[0] == warm[0] and a.anonymous_read()[0] == 0
    assert scroll_read(reader, team) == warm_scroll
    assert scroll_read(a.anonymous, team)[0] == 0
    assert Client().get(reverse("home")).content == home


def test_a_rename_refreshes_the_teams_scroll_and_the_tables_showing_its_name_not_another_leagues():
    a, b = League(), League()
    team = a.teams[0]
    reader = signed_in(b.teams[0].owner)
    warm_a, warm_b = a.warm(), b.warm()
    scroll_read(reader, team)
    warm_scroll = scroll_read(reader, team)[0]
    _, table_b = b.member_read()
    page = reverse("teams:detail", args=[team.pk])
    Client().get(page)

    owner = signed_in(team.owner)
    response = owner.post(
        reverse("teams:edit", args=[team.pk]),
        {"name": "Renamed Raiders", "no_colours": "on", "colour_primary": "", "colour_secondary": "", "motto": ""},
    )
    assert response.status_code == 302

    count, table_a = a.member_read()
    assert count > warm_a[0] and "Renamed Raiders" in table_a
    count, anonymous_a = a.anonymous_read()
    assert count > 0 and "Renamed Raiders" in anonymous_a
    assert scroll_read(reader, team)[0] > warm_scroll
    assert "Renamed Raiders" in Client().get(page).content.decode()  # the anonymous scroll too
    assert b.member_read() == (warm_b[0], table_b)
    assert b.anonymous_read() == (0, table_b)


class Rollback(Exception):
    pass


def test_a_write_in_a_transaction_that_rolls_back_invalidates_nothing():
    a = League()
    team = a.teams[0]
    warm = a.warm()
    scroll_read(a.anonymous, team)
    before = version_keys()

    with contextlib.suppress(Rollback), transaction.atomic():
        team_services.team_rename(team=team, name="Never Named")
        a.confirm_a_result()
        raise Rollback

    assert version_keys() == before
    assert a.member_read()[0] == warm[0] and a.anonymous_read()[0] == 0
    assert scroll_read(a.anonymous, team)[0] == 0
    assert Team.objects.get(pk=team.pk).name != "Never Named"


def test_the_version_keys_are_bounded_by_the_objects_not_the_writes():
    a, b = League(), League()
    a.warm(), b.warm()
    a.confirm_a_result()
    team = a.teams[0]
    for number in range(6):
        team_services.team_rename(team=team, name=f"Name {number}")
        a.warm()
    keys = version_keys()
    leagues = {a.season.league_id, b.season.league_id}
    seasons = {a.season.pk, b.season.pk}
    teams = {t.pk for t in a.teams + b.teams}
    from matches.models import Match

    matches = set(Match.objects.values_list("pk", flat=True))
    allowed = {invalidation.ALL, invalidation.SITE}
    allowed |= {invalidation.league(pk) for pk in leagues} | {invalidation.league_meta(pk) for pk in leagues}
    allowed |= {invalidation.season(pk) for pk in seasons} | {invalidation.team(pk) for pk in teams}
    allowed |= {invalidation.match(pk) for pk in matches}
    assert set(keys) <= allowed
    # More writes move versions; they add no key, and the cached pages stay one entry each.
    entries = sorted(key for key in cache._cache if "moonlight:page:" in key or "moonlight:fragment:" in key)
    for number in range(6):
        team_services.team_rename(team=team, name=f"Again {number}")
        a.warm()
    assert set(version_keys()) == set(keys)
    assert version_keys()[invalidation.team(team.pk)] > keys[invalidation.team(team.pk)]
    assert sorted(key for key in cache._cache if "moonlight:page:" in key or "moonlight:fragment:" in key) == entries


def test_a_write_nobody_attributed_makes_every_cached_page_stale():
    """The net under the attribution: an update() outside any service's ``changing`` block (a
    shell, a forgotten path) moves the ``all`` version, so no page is served stale."""
    a, b = League(), League()
    a.warm(), b.warm()
    Team.objects.filter(pk=a.teams[0].pk).update(name="Quietly Renamed")  # no signal, no service
    count, table = a.anonymous_read()
    assert count > 0 and "Quietly Renamed" in table
    assert b.anonymous_read()[0] > 0  # league B's page too: nobody said what the write changed


def test_a_log_in_and_a_result_draft_move_no_version():
    """A log-in writes the user's ``last_login`` and an autosaved draft the match's
    ``result_draft``: no cached page shows either, so neither moves a version (not even the site's)."""
    a = League()
    a.warm()
    before = version_keys()
    master = a.season.league.master
    signed_in(master)
    match = regular(Season.objects.get(pk=a.season.pk)).order_by("round_number", "pk").first()
    match_services.match_save_draft(match=match, data={"note": "half entered"}, actor=master)
    assert version_keys() == before


def test_the_ratings_run_after_a_result_leaves_other_leagues_warm():
    """The ratings task after a result writes its bookkeeping (periods, steps, state: issue 29,
    part 4) and the teams' strength rows: only the rated teams' scopes move, never ``all``, and
    another league's table stays warm (a guard: it passes with the bookkeeping unmarked too)."""
    from stats import ratings

    a, b = League(), League()
    a.confirm_a_result()
    ratings.ratings_recompute()
    b_warm = b.warm()
    before = version_keys()
    a.confirm_a_result(1, 1)
    ratings.ratings_recompute()
    after = version_keys()
    assert after.get(invalidation.ALL) == before.get(invalidation.ALL)
    assert b.warm() == b_warm and b.anonymous_read()[0] == 0


def test_a_no_op_house_rules_edit_leaves_the_league_warm_and_a_change_refreshes_it():
    """The master's house-rules form saved as it was shown writes nothing (league_update saves only
    what changed): no version moves and the season's table stays warm; a rule changed moves them."""
    from tests.league.test_house_rule_bounds import posted

    a = League()
    league = a.season.league
    warm = a.warm()
    before = version_keys()
    url = reverse("league:edit", kwargs={"slug": league.slug})
    shown = {f"tie_breaker_{i + 1}": name for i, name in enumerate(league.tie_breaker_list)}
    data = posted(league, description=league.description, **shown)
    for _ in range(2):
        response = a.master.post(url, data)
        assert response.status_code == 302, response.content.decode()[:1500]
    assert version_keys() == before
    assert a.member_read()[0] == warm[0] and a.anonymous_read()[0] == 0

    assert a.master.post(url, {**data, "points_bye": 2}).status_code == 302
    after = version_keys()
    moved = {scope for scope, version in after.items() if before.get(scope) != version}
    assert f"league-meta:{league.pk}" in moved and f"league:{league.pk}" in moved
    assert a.anonymous_read()[0] > 0  # the league's pages read again
