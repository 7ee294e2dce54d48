"""The league table's next-fixture column (league.selectors.next_fixtures, issue 29 part 2): a
prefix of the season's fixtures in order over an index, and a window only for the entrants it
does not reach. Checked against the plain definition (each team's first scheduled fixture in
the season's fixture order) in the states that take the second path."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league import selectors
from league.models import ScheduleRun, Season
from matches.models import Match
from tests.league.helpers import generate, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def expected(season: Season) -> dict[int, tuple[int, int | None, str]]:
    """Each team's first scheduled fixture by the fixture order, and who it meets there."""
    matches = sorted(
        Match.objects.filter(season=season, status=Match.Status.SCHEDULED).prefetch_related("sides__team"),
        key=selectors._fixture_order,
    )
    firsts: dict[int, tuple[int, int | None, str]] = {}
    for match in matches:
        sides = sorted(match.sides.all(), key=lambda s: s.slot)
        for side in sides:
            others = [s.team.name for s in sides if s.team_id != side.team_id]
            firsts.setdefault(side.team_id, (match.pk, match.round_number, selectors._names(others)))
    return firsts


def shown(season: Season) -> dict[int, tuple[int, int | None, str]]:
    return {team: (f.pk, f.round_number, f.opponents) for team, f in selectors.next_fixtures(season).items()}


def test_a_season_with_no_fixtures_yet_has_no_next_fixtures():
    season = make_season(4)
    assert selectors.next_fixtures(season) == {}


def test_teams_that_played_ahead_and_teams_with_nothing_left_are_found_beyond_the_prefix():
    season = make_season(6, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1)
    assert shown(season) == expected(season)  # the usual case: every next fixture in the prefix

    # One team plays all its fixtures of rounds 2 to 4 ahead of time: its next is in round 5,
    # beyond the prefix (six fixtures: rounds 2 and 3).
    ahead = Match.objects.filter(season=season, round_number=2).first().sides.first().team_id
    for match in Match.objects.filter(season=season, round_number__in=[2, 3, 4], sides__team_id=ahead):
        play(match, 3, 1)
    with CaptureQueriesContext(connection) as queries:
        found = shown(season)
    assert found == expected(season)
    assert found[ahead][1] == 5
    assert len(queries) == 4  # the entrants, the prefix, the window for the rest, their sides' names

    # Then it plays its last fixture too: nothing left for it, and it has no next fixture.
    for match in Match.objects.filter(season=season, status=Match.Status.SCHEDULED, sides__team_id=ahead):
        play(match, 3, 1)
    found = shown(season)
    assert ahead not in found and found == expected(season)


def test_at_the_end_of_a_season_the_few_fixtures_left_are_read_whole():
    season = make_season(4, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in (1, 2):
        play_round(season, r)
    last = Match.objects.filter(season=season, round_number=3).first()
    for match in Match.objects.filter(season=season, round_number=3).exclude(pk=last.pk):
        play(match, 1, 1)
    teams = list(season.entries.values_list("team_id", flat=True))
    with CaptureQueriesContext(connection) as queries:
        found = {t: (f.pk, f.round_number, f.opponents) for t, f in selectors.next_fixtures(season, teams).items()}
    assert found == expected(season) and set(found) == set(last.sides.values_list("team_id", flat=True))
    assert len(queries) == 1  # the table's teams given, the prefix held every fixture left: no window


def test_a_page_team_the_full_prefix_does_not_reach_is_found_beyond_it():
    """A page of the table (``teams`` a subset): the prefix holds two fixtures a team of it. When
    it is full of one team's fixtures and another's next lies further on (it played ahead), that
    team is looked for beyond it, as the whole season's call finds it."""
    season = make_season(8, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    ahead = Match.objects.filter(season=season, round_number=1).order_by("pk").first().sides.first().team_id
    met = set()
    for match in Match.objects.filter(season=season, round_number__lte=5, sides__team_id=ahead):
        met |= set(match.sides.values_list("team_id", flat=True))
        play(match, 3, 1)
    # one it has not met yet: all its fixtures of rounds 1 to 5 are still to play, before ahead's next
    other = next(t for t in season.entries.order_by("team_id").values_list("team_id", flat=True) if t not in met)
    with CaptureQueriesContext(connection) as queries:
        found = {
            t: (f.pk, f.round_number, f.opponents) for t, f in selectors.next_fixtures(season, [ahead, other]).items()
        }
    whole = expected(season)
    assert found == {ahead: whole[ahead], other: whole[other]}
    assert found[ahead][1] == 6 and found[other][1] == 1
    assert len(queries) == 3  # the prefix (four of other's), the window for ahead, its sides' names
