"""A small league with a scripted history, whose statistics are computed by hand in the tests, and
the same shape at any number of teams for the query-count tests.

The small league (three teams, one kaiken each; A Tora, B Yamazaru, C Kitsune):

Season 1 (self-arranged, playoffs for two), then rolled over into season 2 (running).

| match | home v away | score | kick-off ratings | koban earned | challenge | notes |
|---|---|---|---|---|---|---|
| m1 | A v B | 3-0 | 100 v 104 | 10, 5 | Brawl | |
| m2 | B v C | 2-1 | 104 v 98 | 10, 6 | Brawl | simulated; C had a reroll token (underdog) |
| m3 | C v A | 1-4 | 98 v 101 | 5, 10 | Brawl | |
| final | A v B | 1-2 | 106 v 104 | 5, 10 | Brawl | playoff round 1: B is champion |
| m5 | A v C | 1-1 | 110 v 98 | 7, 7 | Champion | season 2 |
| m6 | B v C | 5-0 | 104 v 98 | 9, 0 | Brawl | season 2, voided: counts nowhere |

Feats: A's ninja (na) m1 2 injuries, 1 reveal, 1 All-Star (6 XP); m3 1 injury, 1 chunin stunned,
2 challenge XP (4 XP) and 1 XP from Water downtime, reaching Experienced (a +1 Attack taken); m5
2 reveals (2 XP): 13 XP. B's ninja (nb) m1 in the Healing House; final 3 injuries, 1 All-Star
(6 XP); m6 (voided) 5 injuries, 5 XP and its compensating -5.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from django.utils import timezone

from league import services
from league.models import League, ScheduleRun, Season
from league.readmodel import match_standings_refresh
from matches.models import Match, MatchNinja, MatchTeam
from rules.engine.postgame import XP_REASON_MATCH, XP_REASON_WATER
from rules.models import Challenge
from teams.models import Advancement, AdvancementRoll, Ninja, Team, XpEvent
from teams.services import team_ratings_refresh
from tests.factories import LeagueFactory
from tests.league.helpers import add_team, generate

T0 = timezone.make_aware(dt.datetime(2026, 3, 1, 12, 0))


@dataclass
class SmallLeague:
    league: League
    season1: Season
    season2: Season
    a: Team
    b: Team
    c: Team
    na: Ninja
    nb: Ninja
    m1: Match
    m2: Match
    m3: Match
    final: Match
    m5: Match
    m6: Match


def settle(
    match: Match,
    scores: tuple[int, ...],
    *,
    ratings: tuple[int, ...],
    koban: tuple[int, ...],
    minute: int,
    simulated: bool = False,
    status: str = Match.Status.CONFIRMED,
    challenge: Challenge | None = None,
    **side_fields,
) -> Match:
    """Write a result straight to the rows (points, outcomes, kick-off ratings, koban earned)."""
    sides = list(match.sides.order_by("slot"))
    best = max(scores)
    for i, side in enumerate(sides):
        side.points, side.rating, side.koban_earned = scores[i], ratings[i], koban[i]
        winners = scores.count(best)
        side.outcome = "draw" if winners > 1 and scores[i] == best else "win" if scores[i] == best else "loss"
        for name, values in side_fields.items():
            setattr(side, name, values[i])
        side.save()
    match.status = status
    match.simulated = simulated
    match.confirmed_at = T0 + dt.timedelta(minutes=minute)
    match.date = match.confirmed_at.date()
    if challenge is not None:
        match.challenge = challenge
    match.save()
    match_standings_refresh(match)  # the stored table lines, as the result services keep them
    return match


def feats(match: Match, ninja: Ninja, **fields) -> MatchNinja:
    side = MatchTeam.objects.get(match=match, team_id=ninja.team_id)
    return MatchNinja.objects.create(side=side, ninja=ninja, name=ninja.name, **fields)


def xp(ninja: Ninja, match: Match | None, amount: int, reason: str = XP_REASON_MATCH) -> None:
    XpEvent.objects.create(ninja=ninja, match=match, amount=amount, reason=reason)
    Ninja.objects.filter(pk=ninja.pk).update(xp=ninja.xp + amount)
    ninja.refresh_from_db()


def small_league() -> SmallLeague:
    brawl = Challenge.objects.get(name="Brawl")
    champion = Challenge.objects.get(name="Champion")
    league = LeagueFactory(name="Small League", slug="small")
    season1 = services.season_create(league=league, format=Season.Format.SELF_ARRANGED, playoff_teams=2)
    a = add_team(league, name="Alpha", clan="tora", with_ninja=True)
    b = add_team(league, name="Bravo", clan="yamazaru", with_ninja=True)
    c = add_team(league, name="Charlie", clan="kitsune", with_ninja=True)
    na, nb = Ninja.objects.get(team=a), Ninja.objects.get(team=b)

    def arrange(season, home, away, challenge=brawl):
        return services.fixture_arrange(season=season, home=home, away=away, challenge=challenge)

    m1 = settle(arrange(season1, a, b), (3, 0), ratings=(100, 104), koban=(10, 5), minute=1)
    m2 = settle(
        arrange(season1, b, c), (2, 1), ratings=(104, 98), koban=(10, 6), minute=2, simulated=True, reroll_tokens=(0, 1)
    )
    m3 = settle(arrange(season1, c, a), (1, 4), ratings=(98, 101), koban=(5, 10), minute=3)
    feats(m1, na, injuries=2, reveals=1, all_star_awards=1, xp_gained=6)
    feats(m1, nb, in_healing_house=True)
    xp(na, m1, 6)
    feats(m3, na, injuries=1, chunin_stuns=1, challenge_feats={"x": 1}, xp_gained=4)
    xp(na, m3, 4)
    xp(na, m3, 1, XP_REASON_WATER)
    roll = AdvancementRoll.objects.create(ninja=na, match=m3, level=1, faces=["Fire", "Air"], status="chosen")
    Advancement.objects.create(ninja=na, kind=Advancement.Kind.ATTACK, roll=roll)
    team_ratings_refresh(team_ids=[a.pk])  # the stored team rating, as the services keep it

    generate(season1, ScheduleRun.Kind.PLAYOFF)
    final = Match.objects.get(season=season1, stage="playoff-1")
    final = settle(final, (1, 2), ratings=(106, 104), koban=(5, 10), minute=4, challenge=brawl)
    feats(final, nb, injuries=3, all_star_awards=1, xp_gained=6)
    xp(nb, final, 6)
    services.on_match_confirmed(final)
    season2 = services.season_rollover(season=season1)
    season1.refresh_from_db()

    m5 = settle(arrange(season2, a, c, champion), (1, 1), ratings=(110, 98), koban=(7, 7), minute=5)
    feats(m5, na, reveals=2, xp_gained=2)
    xp(na, m5, 2)
    m6 = settle(arrange(season2, b, c), (5, 0), ratings=(104, 98), koban=(9, 0), minute=6, status=Match.Status.VOIDED)
    feats(m6, nb, injuries=5, xp_gained=5)
    xp(nb, m6, 5)
    xp(nb, m6, -5, "Voided result")
    na.refresh_from_db()
    nb.refresh_from_db()
    return SmallLeague(league, season1, season2, a, b, c, na, nb, m1, m2, m3, final, m5, m6)


def league_of(n: int, *, seed: int = 7) -> tuple[League, list[Team]]:
    """A league of ``n`` teams with the small league's shape at scale, for query counts: a finished
    season with playoffs and a running one, every team playing games with feats in both."""
    rng = random.Random(seed)
    # No head-to-head tie-breaker: the league table queries it only when teams are level on points,
    # which random scores make depend on the league's size (league.selectors.league_table).
    league = LeagueFactory(
        name=f"League of {n}", slug=f"league-of-{n}", tie_breakers="points_difference,points_for,wins"
    )
    season1 = services.season_create(league=league, format=Season.Format.SELF_ARRANGED, playoff_teams=2)
    teams = [add_team(league, name=f"Team {n}-{i:02d}", with_ninja=True) for i in range(n)]
    ninjas = {ninja.team_id: ninja for ninja in Ninja.objects.filter(team__in=teams)}
    challenges = list(Challenge.objects.order_by("id"))
    minute = 0

    def play_season(season):
        nonlocal minute
        for i, home in enumerate(teams):
            for away in (teams[(i + 1) % n], teams[(i + 2) % n]):
                match = services.fixture_arrange(season=season, home=home, away=away, challenge=rng.choice(challenges))
                minute += 1
                scores = (rng.randint(0, 5), rng.randint(0, 5))
                settle(
                    match,
                    scores,
                    ratings=(rng.randint(90, 120), rng.randint(90, 120)),
                    koban=(rng.randint(5, 12), rng.randint(5, 12)),
                    minute=minute,
                    simulated=rng.random() < 0.5,
                    reroll_tokens=(0, rng.randint(0, 1)),
                )
                for team in (home, away):
                    ninja = ninjas[team.pk]
                    gained = rng.randint(0, 4)
                    feats(match, ninja, injuries=gained, reveals=1, all_star_awards=1, xp_gained=gained + 4)
                    XpEvent.objects.create(ninja=ninja, match=match, amount=gained + 4, reason=XP_REASON_MATCH)

    play_season(season1)
    generate(season1, ScheduleRun.Kind.PLAYOFF)
    final = Match.objects.get(season=season1, stage="playoff-1")
    settle(final, (2, 1), ratings=(110, 100), koban=(10, 5), minute=10_000)
    services.on_match_confirmed(final)
    season2 = services.season_rollover(season=season1)
    play_season(season2)
    return league, teams
