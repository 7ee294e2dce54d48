"""Helpers for the league tests: seasons full of teams, and results entered straight into the
database (the matches app owns result entry; these tests only need confirmed outcomes)."""

from __future__ import annotations

import random

from league import services
from league.models import League, Season
from league.readmodel import match_standings_refresh
from matches.models import Match, MatchTeam
from teams.models import Team
from tests.factories import LeagueFactory, UserFactory, make_team, recruit
from tests.support import set_result

CLANS = ["tora", "yamazaru", "kitsune", "ika", "tanchyo", "ijin"]


#: The house rules form of a league as posted, at the rulebook's values.
HOUSE_RULES = {
    "description": "",
    "starting_koban": 100,
    "revenue_win": 10,
    "revenue_draw": 8,
    "revenue_loss": 6,
    "points_win": 3,
    "points_draw": 1,
    "points_loss": 0,
    "dice_mode": "server",
    "max_bonus_koban": 6,
    "underdog_bonuses": "on",
}


def add_team(
    league: League,
    *,
    owner=None,
    name: str | None = None,
    clan: str | None = None,
    with_ninja: bool = False,
    legal: bool = False,
) -> Team:
    """A team applied to ``league`` and accepted (entered in the current season, if any)."""
    n = Team.objects.count()
    team = make_team(clan or CLANS[n % len(CLANS)], owner=owner or UserFactory(), name=name, league=league)
    services.application_accept(team=team)
    if with_ninja:
        recruit(team, f"{team.clan.slug}-kaiken")
    if legal:  # the clan's minimum allowances too: an illegal roster cannot kick off (issue 14)
        legalise(team)
    team.refresh_from_db()
    return team


def legalise(team: Team) -> Team:
    """Recruit each clan profile up to its minimum: a team with an illegal roster cannot kick off
    (issue 14)."""
    from rules.models import Profile
    from teams.models import Ninja

    for profile in Profile.objects.filter(clan=team.clan, allowance_min__gt=0).order_by("order"):
        have = team.ninjas.filter(status=Ninja.Status.ACTIVE, profile=profile).count()
        for _ in range(profile.allowance_min - have):
            recruit(team, profile.slug)
    team.refresh_from_db()
    return team


def make_season(
    n: int,
    *,
    format: str = Season.Format.ROUND_ROBIN,
    league: League | None = None,
    swiss_rounds: int | None = None,
    playoff_teams: int = 0,
    with_ninja: bool = False,
    legal: bool = False,
    **house_rules,
) -> Season:
    league = league or LeagueFactory(**house_rules)
    season = services.season_create(
        league=league, format=format, swiss_rounds=swiss_rounds, playoff_teams=playoff_teams
    )
    for _ in range(n):
        add_team(league, with_ninja=with_ninja, legal=legal)
    return season


def generate(season: Season, kind: str, *, seed: int = 42, challenge=None):
    """Request and run a schedule run synchronously (what the task does)."""
    run = services.schedule_request(season=season, kind=kind, seed=seed, challenge=challenge)
    return services.schedule_generate(run_id=run.pk)


def play(match: Match, home_points: int, away_points: int, *, status: str = Match.Status.CONFIRMED) -> Match:
    """Record a result directly (tests.support.set_result: the matches app owns result entry; these
    tests only need confirmed outcomes), and bring the stored standings in step, as the services would."""
    set_result(match, home_points, away_points, status=status)
    match_standings_refresh(match)
    return match


def friendly_between(season: Season, home: Team, away: Team, home_points: int, away_points: int, **kw) -> Match:
    match = services.fixture_create(season=season, round_number=None, home=home, away=away, rng=random.Random(1))
    Match.objects.filter(pk=match.pk).update(**kw)
    match.refresh_from_db()
    return play(match, home_points, away_points)


def pairs_of(matches) -> list[frozenset]:
    return [frozenset(s.team_id for s in m.sides.all()) for m in matches]


def regular(season: Season):
    return Match.objects.filter(season=season, stage="").exclude(status=Match.Status.VOIDED).prefetch_related("sides")


def home_away(match: Match) -> tuple[int, int]:
    sides = {s.slot: s.team_id for s in MatchTeam.objects.filter(match=match)}
    return sides[1], sides[2]


def play_round(season: Season, round_number: int, score=lambda home, away: (3, 1)) -> None:
    for match in Match.objects.filter(season=season, stage="", round_number=round_number, status="scheduled"):
        h, a = home_away(match)
        play(match, *score(h, a))


class SwissEvent:
    """A Swiss event played at random: ``teams`` start on 0 with a random tiebreak each; a
    round is scored by :meth:`play`."""

    def __init__(self, teams, seed: int, *, win: int, draw_below: float, home_below: float):
        self.rng = random.Random(seed)
        self.teams = list(teams)
        self.scores = dict.fromkeys(self.teams, 0)
        self.tiebreak = {t: self.rng.random() for t in self.teams}
        self.history: set[frozenset] = set()
        self.byes_had: set = set()
        self.win, self.draw_below, self.home_below = win, draw_below, home_below

    def table(self):
        from league.scheduling import SwissEntry

        order = sorted(self.teams, key=lambda t: (-self.scores[t], self.tiebreak[t]))
        return [SwissEntry(team_id=t, score=self.scores[t], rank=i + 1) for i, t in enumerate(order)]

    def play(self, rnd, *, draws: bool) -> None:
        """The bye and a win earn ``win``; a draw (when ``draws``) 1 each."""
        if rnd.bye is not None:
            self.byes_had.add(rnd.bye)
            self.scores[rnd.bye] += self.win
        for p in rnd.pairings:
            self.history.add(p.teams)
            x = self.rng.random()
            if draws and x < self.draw_below:
                self.scores[p.home] += 1
                self.scores[p.away] += 1
            elif x < self.home_below:
                self.scores[p.home] += self.win
            else:
                self.scores[p.away] += self.win
