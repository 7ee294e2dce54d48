"""Seed a demo league once: six teams of different clans, a round robin season, some rounds played.

Idempotent: if the demo league exists nothing is done. Everything goes through the services (team
creation and recruitment, applications, schedule generation, and the played rounds simulated by the
match simulator through the post-game sequence), with fixed seeds so the demo is the same on every
machine.

    python manage.py seed_demo [--rounds 3] [--password SECRET]

``--password`` is the password of every demo user (``demo-master`` and the players), set when
they are made and set again for those that already exist, so a second run with a new password
changes it (issue 27, finding 1). ``make run`` seeds with ``--password moonlight-demo``
(``DEMO_PASSWORD`` in the Makefile). Without --password new demo users cannot log in (their
passwords are unusable) and existing ones keep theirs; the league's pages are public.
"""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from games import registry as games
from league import services as league_services
from league.models import League, ScheduleRun, Season
from league.services import simulations
from matches import services as match_services
from matches import simulation
from matches.models import Match
from rules.models import Challenge, Clan, Profile
from rules.starting_rosters import STARTING_ROSTERS
from teams import services as team_services

DEMO_SLUG = "moonlight-demo"
DEMO_SEED = 2026

#: (player, team name, clan slug, [(profile slug, count), ...]) — legal starting rosters near 100 koban.
DEMO_TEAMS = [
    (player, team, clan, STARTING_ROSTERS[clan])
    for player, team, clan in [
        ("akane", "Crimson Claws", "tora"),
        ("botan", "Mountain Mischief", "yamazaru"),
        ("chiyo", "Nine Tails", "kitsune"),
        ("daichi", "Ink in the Tide", "ika"),
        ("emi", "Cranes of the Dawn", "tanchyo"),
        ("fumio", "Iron Strangers", "ijin"),
    ]
]


#: The Ninjutsu demo: six players of the club (display names), a round robin of five rounds.
NINJUTSU_SLUG = "moonlight-dojo"
NINJUTSU_PLAYERS = [
    ("akane", "Red Lotus"),
    ("botan", "Monkey Fist"),
    ("chiyo", "Fox Fire"),
    ("daichi", "Ink Shadow"),
    ("emi", "Dawn Crane"),
    ("fumio", "Iron Ghost"),
]
#: Round 1 as the players entered it (matches.game_results' record, slot 1 the fixture's first player).
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

#: The Kage Masters demo: nine players at tables of 3 to 5, four rounds.
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


def demo_usernames() -> list[str]:
    """The demo's users: the master first, then every player of the three demos."""
    players = [p for p, *_ in DEMO_TEAMS] + [p for p, _ in NINJUTSU_PLAYERS] + [p for p, _ in KAGE_PLAYERS]
    return ["demo-master", *(f"demo-{p}" for p in dict.fromkeys(players))]


class Command(BaseCommand):
    help = "Seed (once) the demo leagues: All-Stars, Ninjutsu and Kage Masters, each with rounds played."

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=3, help="Rounds of the round robin to play (0-5).")
        parser.add_argument(
            "--password",
            default="",
            help="Password for the demo users, new and existing (default: none; existing ones keep theirs).",
        )

    def handle(self, *args, rounds: int, password: str, **options):
        if not Clan.objects.exists():
            self.stderr.write("Load the rules catalog first (manage.py migrate loads it).")
            return
        seeders = [
            (
                DEMO_SLUG,
                "The demo league is already seeded.",
                lambda: self._seed(rounds=max(0, min(rounds, len(DEMO_TEAMS) - 1))),
            ),
            (NINJUTSU_SLUG, "The Ninjutsu demo league is already seeded.", self._seed_ninjutsu),
            (KAGE_SLUG, "The Kage Masters demo league is already seeded.", self._seed_kage),
        ]
        for slug, seeded, seed in seeders:
            if League.objects.filter(slug=slug).exists():
                self.stdout.write(seeded)
                continue
            with transaction.atomic():
                league = seed()
            self.stdout.write(self.style.SUCCESS(f"Seeded {league.name}: {league.get_absolute_url()}"))
        self._set_passwords(password)

    def _set_passwords(self, password: str) -> None:
        """Give every demo user that exists ``password``, and say how to log in."""
        usernames = demo_usernames()
        if not password:
            self.stdout.write(
                "The demo users keep their passwords (new ones have none, and cannot log in): "
                "python manage.py seed_demo --password SECRET gives them all one."
            )
            return
        # One hash for them all (a strong hash costs a fraction of a second, and `make run` sets it
        # on every start): they share the password anyway, so a shared salt tells nothing more.
        get_user_model().objects.filter(username__in=usernames).update(password=make_password(password))
        self.stdout.write(
            f"Log in as demo-master (the ninja master) or a player ({', '.join(usernames[1:4])}, ...) "
            f"with the password {password}."
        )

    def _user(self, username: str):
        """A demo user (made with an unusable password: ``_set_passwords`` gives them one)."""
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        return user

    def _seed(self, *, rounds: int) -> League:
        rng = random.Random(DEMO_SEED)
        master = self._user("demo-master")
        league = League.objects.create(
            name="Moonlight Demo League",
            slug=DEMO_SLUG,
            master=master,
            description="A demo league: six clans compete under the moon. Explore the table, the fixtures and "
            "the team scrolls.",
        )
        league_services.season_create(
            league=league, format=Season.Format.ROUND_ROBIN, name="Season of the Moon", playoff_teams=4
        )
        for username, team_name, clan, roster in DEMO_TEAMS:
            owner = self._user(f"demo-{username}")
            team = team_services.team_create(
                owner=owner, name=team_name, clan=Clan.objects.get(slug=clan), league=league
            )
            for slug, count in roster:
                profile = Profile.objects.get(slug=slug)
                chosen = list(profile.abilities.all()[: profile.choose_abilities])
                for _ in range(count):
                    team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen, actor=owner)
            team_services.team_mark_ready(team=team)
            league_services.application_accept(team=team)
        season = league.seasons.get()
        run = league_services.schedule_request(
            season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=DEMO_SEED
        )
        league_services.schedule_generate(run_id=run.pk)
        challenges = list(Challenge.objects.all())
        for number in range(1, rounds + 1):
            for match in Match.objects.filter(season=season, round_number=number).order_by("id"):
                self._play(match, master=master, rng=rng, challenges=challenges)
        return league

    def _players_league(self, *, slug: str, name: str, game: str, description: str):
        """A league of a players' game with its master and players joined under display names."""
        master = self._user("demo-master")
        league = league_services.league_create(master=master, name=name, game=game, description=description)
        if league.slug != slug:  # the demo's address is its name's (how seeding knows it is done)
            raise CommandError(f"The demo league {name!r} would live at {league.slug!r}, not {slug!r}.")
        return league, master

    def _join(self, league: League, players) -> None:
        for username, display_name in players:
            entry = league_services.player_apply(
                user=self._user(f"demo-{username}"), league=league, display_name=display_name
            )
            league_services.application_accept(team=entry)

    def _enter(self, match: Match, record: dict) -> None:
        """A result as the club enters it: the first side's player submits the game's record, the
        second side's player confirms it (the site's own services, as the forms call them)."""
        sides = list(match.sides.select_related("team__owner").order_by("slot"))
        match_services.match_submit_game_result(match=match, record=record, actor=sides[0].team.owner)
        match_services.match_confirm(match=match, actor=sides[1].team.owner)

    def _simulate_round(self, season: Season, *, master, seed: int) -> None:
        """The round waiting to be played, simulated by the game's strength model (a simulation job,
        run here in-process as its Celery task would)."""
        job, _ = simulations.simulation_request(actor=master, scope="round", season=season, seed=seed)
        simulations.simulation_job_run(job_id=job.pk)

    def _seed_ninjutsu(self) -> League:
        """Ninjutsu: six players, a round robin; round 1 entered and confirmed, rounds 2 and 3 simulated."""
        league, master = self._players_league(
            slug=NINJUTSU_SLUG,
            name="Moonlight Dojo",
            game=games.NINJUTSU,
            description="A demo Ninjutsu league: six players, one on one, find and kill the Soke. Round 1 "
            "was entered at the club, rounds 2 and 3 were simulated.",
        )
        season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN, name="Dojo Season")
        self._join(league, NINJUTSU_PLAYERS)
        run = league_services.schedule_request(
            season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=DEMO_SEED
        )
        league_services.schedule_generate(run_id=run.pk)
        for match, record in zip(
            Match.objects.filter(season=season, round_number=1).order_by("id"), NINJUTSU_ROUND_ONE, strict=True
        ):
            self._enter(match, {"game": games.NINJUTSU, **record})
        for number in (2, 3):
            self._simulate_round(season, master=master, seed=DEMO_SEED + number)
        return league

    def _seed_kage(self) -> League:
        """Kage Masters: nine players at tables of 3 to 5 over four rounds; round 1's tables entered
        and confirmed, round 2's laid by the table scheduler and simulated."""
        league, master = self._players_league(
            slug=KAGE_SLUG,
            name="Moonlight Kage Table",
            game=games.KAGE_MASTERS,
            description="A demo Kage Masters league: nine players at tables of 3 to 5, one point for each "
            "opponent beaten. Round 1 was entered at the club, round 2 was simulated.",
        )
        season = league_services.season_create(
            league=league, format=Season.Format.TABLES, name="Kage Season", swiss_rounds=4
        )
        self._join(league, KAGE_PLAYERS)
        for number in (1, 2):
            run = league_services.schedule_request(
                season=season, kind=ScheduleRun.Kind.TABLES, actor=master, seed=DEMO_SEED + number
            )
            league_services.schedule_generate(run_id=run.pk)
            tables = list(Match.objects.filter(season=season, round_number=number).order_by("id"))
            if number == 2:
                self._simulate_round(season, master=master, seed=DEMO_SEED + number)
                continue
            for match in tables:
                slots = list(match.sides.order_by("slot").values_list("slot", flat=True))
                seats = next(t for t in KAGE_ROUND_ONE if len(t) == len(slots))
                record = {
                    "game": games.KAGE_MASTERS,
                    "seats": [
                        {"slot": slot, "kage_master": master_name, "coins": coins, "rewards": rewards, "seat": i + 1}
                        for i, (slot, (master_name, coins, rewards)) in enumerate(zip(slots, seats, strict=True))
                    ],
                }
                self._enter(match, record)
        return league

    def _play(self, match: Match, *, master, rng: random.Random, challenges) -> None:
        """Play a demo fixture with the match simulator (matches.simulation): the result is computed
        from the rosters, goes through the post-game sequence, and advancement rolls are taken by the
        simulation policy. Seeds come from ``rng`` (DEMO_SEED), so the demo is the same every time."""
        if match.challenge_id is None:
            league_services.fixture_set_challenge(match=match, challenge=rng.choice(challenges))
        simulation.simulate_match(match=match, seed=rng.getrandbits(62), actor=master, policy="auto")
