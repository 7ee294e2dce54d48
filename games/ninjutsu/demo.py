"""Ninjutsu's demo league (``manage.py seed_demo``): six players, a round robin; round 1 entered
and confirmed at the club, rounds 2 and 3 simulated by the strength model. Its
:class:`games.protocol.Demo` is ``DEMO``; ``demo`` is the command's ``DemoSeeder``."""

from __future__ import annotations

from games import ninjutsu
from games.protocol import Demo
from league import services as league_services
from league.models import League, ScheduleRun, Season
from matches.models import Match

NINJUTSU_SLUG = "moonlight-dojo"
#: Six players of the club (display names), a round robin of five rounds.
NINJUTSU_PLAYERS = [
    ("akane", "Red Lotus"),
    ("botan", "Monkey Fist"),
    ("chiyo", "Fox Fire"),
    ("daichi", "Ink Shadow"),
    ("emi", "Dawn Crane"),
    ("fumio", "Iron Ghost"),
]
#: Round 1 as the players entered it (the game's record, slot 1 the fixture's first player).
NINJUTSU_ROUND_ONE = [
    {
        "winner": 1,
        "starter": 1,
        "colours": ["Red", "Black"],
        "ending": "soke_attacked",
        "card": "jump",
        "ninjas_left": [5, 2],
        "shuriken": [2, 3],
        "cards": [3, 4],
    },
    {
        "winner": 2,
        "starter": 1,
        "colours": ["Blue", "Green"],
        "ending": "soke_attacking",
        "card": "none",
        "ninjas_left": None,
        "shuriken": None,
        "cards": None,
    },
    {
        "winner": 1,
        "starter": 2,
        "colours": ["Black", "White"],
        "ending": "soke_attacked",
        "card": "smoke",
        "ninjas_left": [3, 1],
        "shuriken": [4, 1],
        "cards": [2, 5],
    },
]


def seed(demo) -> League:
    league = demo.players_league(
        slug=NINJUTSU_SLUG,
        name="Moonlight Dojo",
        game=ninjutsu.GAME.key,
        description="A demo Ninjutsu league: six players, one on one, find and kill the Soke. Round 1 "
        "was entered at the club, rounds 2 and 3 were simulated.",
    )
    master = demo.master
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN, name="Dojo Season")
    demo.join(league, NINJUTSU_PLAYERS)
    run = league_services.schedule_request(
        season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=demo.seed
    )
    league_services.schedule_generate(run_id=run.pk)
    for match, record in zip(
        Match.objects.filter(season=season, round_number=1).order_by("id"), NINJUTSU_ROUND_ONE, strict=True
    ):
        demo.enter(match, {"game": ninjutsu.GAME.key, **record})
    for number in (2, 3):
        demo.simulate_round(season, seed=demo.seed + number)
    return league


DEMO = Demo(
    slug=NINJUTSU_SLUG,
    seed=seed,
    players=tuple(p for p, _ in NINJUTSU_PLAYERS),
    already_seeded="The Ninjutsu demo league is already seeded.",
)
