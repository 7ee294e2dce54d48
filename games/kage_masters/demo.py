"""Kage Masters' demo league (``manage.py seed_demo``): nine players at tables of 3 to 5 over four
rounds; round 1's tables entered and confirmed, round 2's laid by the table scheduler and
simulated. Its :class:`games.protocol.Demo` is ``DEMO``; ``demo`` is the command's ``DemoSeeder``."""

from __future__ import annotations

from games import kage_masters
from games.protocol import Demo
from league import services as league_services
from league.models import League, ScheduleRun, Season
from matches.models import Match

KAGE_SLUG = "moonlight-kage-table"
KAGE_PLAYERS = [
    ("akane", "Akane"),
    ("botan", "Botan"),
    ("chiyo", "Chiyo"),
    ("daichi", "Daichi"),
    ("emi", "Emi"),
    ("fumio", "Fumio"),
    ("goro", "Goro"),
    ("hana", "Hana"),
    ("isamu", "Isamu"),
]
#: Round 1's tables as entered: (Kage Master, coins, Location rewards) by seat, for each table.
KAGE_ROUND_ONE = [
    [("Spy", 11, 3), ("Firebrand", 8, 1), ("Assassin", 14, 2), ("Trickster", 6, 0), ("Chain Specialist", 9, 3)],
    [("Trickster", 12, 4), ("Assassin", 7, 1), ("Spy", 10, 2), ("Firebrand", 5, 0)],
]


def seed(demo) -> League:
    league = demo.players_league(
        slug=KAGE_SLUG,
        name="Moonlight Kage Table",
        game=kage_masters.GAME.key,
        description="A demo Kage Masters league: nine players at tables of 3 to 5, one point for each "
        "opponent beaten. Round 1 was entered at the club, round 2 was simulated.",
    )
    master = demo.master
    season = league_services.season_create(
        league=league, format=Season.Format.TABLES, name="Kage Season", swiss_rounds=4
    )
    demo.join(league, KAGE_PLAYERS)
    for number in (1, 2):
        run = league_services.schedule_request(
            season=season, kind=ScheduleRun.Kind.TABLES, actor=master, seed=demo.seed + number
        )
        league_services.schedule_generate(run_id=run.pk)
        tables = list(Match.objects.filter(season=season, round_number=number).order_by("id"))
        if number == 2:
            demo.simulate_round(season, seed=demo.seed + number)
            continue
        for match in tables:
            slots = list(match.sides.order_by("slot").values_list("slot", flat=True))
            seats = next(t for t in KAGE_ROUND_ONE if len(t) == len(slots))
            record = {
                "game": kage_masters.GAME.key,
                "seats": [
                    {"slot": slot, "kage_master": master_name, "coins": coins, "rewards": rewards, "seat": i + 1}
                    for i, (slot, (master_name, coins, rewards)) in enumerate(zip(slots, seats, strict=True))
                ],
            }
            demo.enter(match, record)
    return league


DEMO = Demo(
    slug=KAGE_SLUG,
    seed=seed,
    players=tuple(p for p, _ in KAGE_PLAYERS),
    already_seeded="The Kage Masters demo league is already seeded.",
)
