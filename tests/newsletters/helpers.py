"""A small seeded league for the newsletter tests, played through matches.services so the whole
post-game sequence runs (ratings at kick-off, XP, level-ups, downtime, upkeep, ledger).

Four teams, two rounds:

    round 1   Tigers 5–0 Squids (Brawl)          Foxes 2–1 Apes
    round 2   Foxes 9–1 Tigers (Brawl)           Apes 3–1 Squids   <- the upset (Apes rated lowest)

Table after round 1: Tigers, Foxes, Apes, Squids.
Table after round 2: Foxes (▲1), Apes (▲1), Tigers (▼2), Squids (=).
Top XP earner of round 2: "Big Monkey" of the Apes (5 injuries + a Ninja All-Star award = 8 XP).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from league import services as league_services
from league.models import League, Season
from matches.models import Match
from teams.models import Team
from teams.selectors import team_rating
from tests import support
from tests.factories import LeagueFactory, UserFactory, make_legal_team, make_team, recruit
from tests.support import play_through_services, record_for  # noqa: F401  (record_for: the tests import it from here)


def play(
    league: League,
    season: Season,
    round_number: int,
    home: Team,
    away: Team,
    home_points: int,
    away_points: int,
    *,
    challenge: str = "brawl",
    **record_kw,
) -> Match:
    """Create, kick off and confirm a match through matches.services (the master enters it)."""
    return play_through_services(
        home=home,
        away=away,
        home_points=home_points,
        away_points=away_points,
        actor=league.master,
        season=season,
        round_number=round_number,
        challenge=challenge,
        **record_kw,
    )


def join(league: League, team: Team) -> Team:
    return support.join(team)


@dataclass
class Seeded:
    league: League
    season: Season
    tigers: Team
    squids: Team
    foxes: Team
    apes: Team
    ratings: dict[str, int]
    big_monkey_id: int
    matches: dict[str, Match] = field(default_factory=dict)

    @property
    def players(self) -> list:
        return [self.league.master, self.tigers.owner, self.squids.owner, self.foxes.owner, self.apes.owner]


def seed_league(*, play_round_2: bool = True) -> Seeded:
    master = UserFactory(username="sensei", email="sensei@example.org")
    league = LeagueFactory(name="Moonlight Test League", slug="moonlight-test", master=master)
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    tigers = join(league, make_legal_team("tora", owner=UserFactory(username="alice"), name="Tigers", league=league))
    squids = join(league, make_legal_team("ika", owner=UserFactory(username="bob"), name="Squids", league=league))
    foxes = join(league, make_legal_team("kitsune", owner=UserFactory(username="carol"), name="Foxes", league=league))
    apes = make_team("yamazaru", owner=UserFactory(username="dave"), name="Apes", league=league)
    recruit(apes, "yamazaru-chunin")
    big_monkey = recruit(apes, "yamazaru-kaiken", name="Big Monkey")
    recruit(apes, "yamazaru-kaiken", 2)
    apes = join(league, apes)
    ratings = {t.name: team_rating(t) for t in (tigers, squids, foxes, apes)}
    seeded = Seeded(
        league=league,
        season=season,
        tigers=tigers,
        squids=squids,
        foxes=foxes,
        apes=apes,
        ratings=ratings,
        big_monkey_id=big_monkey.pk,
    )
    seeded.matches["r1a"] = play(league, season, 1, tigers, squids, 5, 0)
    seeded.matches["r1b"] = play(league, season, 1, foxes, apes, 2, 1, challenge="champion")
    if play_round_2:
        play_second_round(seeded)
    return seeded


def play_second_round(seeded: Seeded) -> None:
    s = seeded
    fox_ids = [r["id"] for r in _roster(s.foxes)]
    s.matches["r2a"] = play(s.league, s.season, 2, s.foxes, s.tigers, 9, 1, feats={fox_ids[1]: {"injuries": 2}})
    s.matches["r2b"] = play(
        s.league,
        s.season,
        2,
        s.apes,
        s.squids,
        3,
        1,
        challenge="champion",
        feats={s.big_monkey_id: {"injuries": 5}},
        stars={s.apes.pk: [s.big_monkey_id]},
    )


def _roster(team: Team) -> list[dict]:
    return [{"id": n.pk, "name": n.name} for n in team.ninjas.filter(status="active").order_by("profile__order", "id")]
