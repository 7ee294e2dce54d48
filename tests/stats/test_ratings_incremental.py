"""Ratings updated incrementally (issue 29, part 4): a confirmed (or voided) result rates again only
the rating period it belongs to and the periods after it, and the stored ratings stay equal to a
rating of the whole history (a property test over random sequences of results, late results in
earlier rounds, voids, tables of three and a season entry added, as for the read model)."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from games import registry as games
from league import services as league_services
from league.models import ScheduleRun, Season, SeasonEntry
from matches import services as match_services
from matches.models import Match, MatchTeam
from ratings.history import rate_history
from stats import ratings
from stats.models import RatingStep
from teams.models import StrengthRating
from tests.factories import LeagueFactory
from tests.league.helpers import add_team, generate
from tests.stats.helpers import settle

pytestmark = pytest.mark.usefixtures("catalog")

FIELDS = ("rating", "deviation", "volatility", "games", "last_match_id")


def stored() -> dict[tuple, tuple]:
    return {
        ("team" if r.team_id else "coach", r.game, r.team_id or r.coach_id, r.system): tuple(
            getattr(r, f) for f in FIELDS
        )
        for r in StrengthRating.objects.all()
    }


def whole_history() -> dict[tuple, tuple]:
    """What rating the whole confirmed history gives (the full computation, in memory)."""
    rows = list(
        MatchTeam.objects.filter(match__status=Match.Status.CONFIRMED)
        .order_by("match__confirmed_at", "match_id", "slot")
        .values_list(*ratings.SIDE_COLUMNS)
    )
    entries = list(SeasonEntry.objects.values_list(*ratings.ENTRY_COLUMNS))
    team_periods, coach_periods = ratings._periods(rows, entries)
    games = ratings.team_games(rows, entries)
    out = {}
    for kind, periods in (("team", team_periods), ("coach", coach_periods)):
        for (_subject, system), values in ratings._wanted(rate_history(periods), kind, games).items():
            subject = values.get("team_id") or values["coach_id"]
            out[(kind, values["game"], subject, system)] = tuple(values[f] for f in FIELDS)
    return out


def league_with_fixtures(rng: random.Random):
    league = LeagueFactory()
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    teams = [add_team(league, name=f"T{i}") for i in range(6)]
    generate(season, ScheduleRun.Kind.ROUND_ROBIN, seed=rng.randrange(1000))
    other = LeagueFactory()
    friendly = league_services.season_create(
        league=other, format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
    )
    extra = [add_team(other, name=f"X{i}") for i in range(2)]
    tables = [match_services.match_create(teams=[*extra, rng.choice(teams)], season=friendly) for _ in range(3)]
    fixtures = list(Match.objects.filter(season=season).order_by("round_number", "id")) + tables
    fixtures += players_games(rng, [t.owner for t in teams[:3]])
    return season, [*teams, *extra], fixtures


def players_games(rng: random.Random, owners) -> list[Match]:
    """The same coaches as players of Ninjutsu (one on one) and Kage Masters (tables of 2 and 3,
    each rated as a table): a coach has a rating a game, kept apart (issue 28, part 5)."""
    out = []
    for game, sizes in ((games.NINJUTSU, (2, 2)), (games.KAGE_MASTERS, (3, 2))):
        league = LeagueFactory(game=game)
        season = league_services.season_create(
            league=league, format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
        )
        entries = []
        for owner in owners:
            entry = league_services.player_apply(user=owner, league=league, display_name=f"{owner.username} {game}")
            league_services.application_accept(team=entry)
            entries.append(entry)
        out += [match_services.match_create(teams=rng.sample(entries, n), season=season) for n in sizes]
    return out


@pytest.mark.slow(reason="a property test: four random histories of about twenty results, each step checked")
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_incremental_ratings_equal_a_rating_of_the_whole_history(seed):
    rng = random.Random(seed)
    season, teams, fixtures = league_with_fixtures(rng)
    rng.shuffle(fixtures)  # results come in any order: late fixtures of earlier rounds too
    confirmed: list[Match] = []
    minute = 0
    for step in range(len(fixtures) + 4):
        if confirmed and rng.random() < 0.2:  # a result voided
            match = confirmed.pop(rng.randrange(len(confirmed)))
            Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED, voided_at=timezone.now())
        elif fixtures:
            match = fixtures.pop()
            n = match.sides.count()
            minute += rng.randrange(1, 3000)
            scores = tuple(rng.randrange(0, 5) for _ in range(n))
            confirmed.append(settle(match, scores, ratings=(100,) * n, koban=(0,) * n, minute=minute))
        if step == 6:  # a rated team entering the season changes who sat its rounds out: all rated again
            SeasonEntry.objects.create(season=season, team=teams[-1])
        ratings.ratings_recompute()
        assert stored() == whole_history(), f"step {step}"


def test_a_result_rates_again_only_its_period_and_those_after(django_assert_max_num_queries):
    rng = random.Random(5)
    season, _teams, _fixtures = league_with_fixtures(rng)
    rounds = {r: list(Match.objects.filter(season=season, round_number=r).order_by("id")) for r in range(1, 6)}
    minute = 0
    for r in range(1, 6):
        for match in rounds[r][:-1]:  # the last fixture of each round is played late
            minute += 10
            settle(match, (2, 1), ratings=(100, 100), koban=(0, 0), minute=minute)
    first = ratings.ratings_recompute()
    assert (first.periods, first.rerated) == (5, 5)
    # a result of the latest round: that period alone
    settle(rounds[5][-1], (0, 3), ratings=(100, 100), koban=(0, 0), minute=minute + 10)
    assert ratings.ratings_recompute().rerated == 1
    # a late result of round 2: rounds 2 to 5
    settle(rounds[2][-1], (1, 1), ratings=(100, 100), koban=(0, 0), minute=minute + 20)
    done = ratings.ratings_recompute()
    assert (done.periods, done.rerated) == (5, 4)
    assert stored() == whole_history()
    # nothing changed: nothing rated
    assert ratings.ratings_recompute().skipped
    # the steps are bounded by the history: one per subject and period it changed
    assert RatingStep.objects.count() <= 2 * 5 * (6 + 6)
