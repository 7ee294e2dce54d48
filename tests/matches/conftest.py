from types import SimpleNamespace

import pytest

from matches import services
from rules.engine.records import MatchRecord, NinjaRecord, TeamRecord
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.worlds import shared_world


def _league():
    return LeagueFactory(master=UserFactory(username="master"))


def _two_teams(league):
    home = make_legal_team("tora", owner=UserFactory(username="alice"), name="Tigers", league=league)
    away = make_legal_team("ika", owner=UserFactory(username="bob"), name="Squids", league=league)
    return home, away


def make_brawl_match(two_teams, league):
    home, away = two_teams
    return services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)


def seed_match_world() -> SimpleNamespace:
    """A league (its master "master"), two legal teams (alice's Tigers, bob's Squids) and a Brawl
    between them: what ``brawl_match`` gives a test, built once per module (tests/worlds.py)."""
    league = _league()
    teams = _two_teams(league)
    return SimpleNamespace(league=league, teams=teams, match=make_brawl_match(teams, league))


match_world_built, match_world = shared_world(seed_match_world, name="match_world")


def _in_match_world(request) -> bool:
    return "match_world" in request.fixturenames


@pytest.fixture
def league(request, catalog):
    """A league of its own for the test, or, for a test of ``brawl_match``, that match's league."""
    return request.getfixturevalue("match_world").league if _in_match_world(request) else _league()


@pytest.fixture
def two_teams(request, league):
    """Two legal teams in ``league``, or, for a test of ``brawl_match``, that match's two teams."""
    return request.getfixturevalue("match_world").teams if _in_match_world(request) else _two_teams(league)


@pytest.fixture
def brawl_match(match_world):
    """A Brawl between ``two_teams`` in ``league`` (the module's shared match world, rolled back
    after every test)."""
    return match_world.match


def simple_record(match, *, points=(3, 1), feats=None, healing=(), all_stars=None, played_all=True):
    """A valid record: every available model played; first listed model of each team is All-Star
    unless `all_stars` names ids; `feats` maps ninja id -> dict of NinjaRecord fields."""
    feats = feats or {}
    teams = []
    for side, pts in zip(match.sides.order_by("slot"), points, strict=True):
        roster = [r for r in side.roster_snapshot if r["available"]]
        star_ids = (
            set(all_stars.get(side.team_id, [])) if all_stars else {r["id"] for r in roster[: 1 + side.extra_all_stars]}
        )
        ninjas = []
        for row in roster:
            extra = feats.get(row["id"], {})
            ninjas.append(
                NinjaRecord(
                    ninja_id=row["id"],
                    played=played_all,
                    all_star_awards=1 if row["id"] in star_ids else 0,
                    in_healing_house=row["id"] in healing,
                    **extra,
                )
            )
        teams.append(TeamRecord(team_id=side.team_id, points=pts, ninjas=tuple(ninjas)))
    return MatchRecord(teams=tuple(teams))


def choose_pending_rolls(*teams):
    """The players choose every pending advancement roll of these teams (the first option, through
    the service; dice entered first where the table rolls them): a team cannot kick off its next
    match with one unchosen (issue 13, part 3)."""
    from teams.models import AdvancementRoll

    for roll in AdvancementRoll.objects.filter(
        ninja__team__in=teams, ninja__status="active", status=AdvancementRoll.Status.PENDING
    ).order_by("id"):
        if not roll.faces:
            roll = services.advancement_enter_faces(roll=roll, faces=["Fire", "Air"], actor=None)
        option = services.advancement_options_for(roll)[0]
        services.advancement_choose(roll=roll, choice=services.option_key(option))
