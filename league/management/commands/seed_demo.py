"""Seed each game's demo league once: every registered game with a ``demo`` hook, in the
registry's order (games.protocol.Demo; each game's own builder is ``games/<key>/demo.py``).

Idempotent: a demo league that exists is left alone. Everything goes through the services (team
creation and recruitment, applications, schedule generation, results entered and confirmed, the
played rounds simulated), with fixed seeds so the demo is the same on every machine. This command
keeps the shared part: the demo users and their passwords, the demo master, the rules catalog's
check, and the helpers a game's demo is given (:class:`DemoSeeder`).

    python manage.py seed_demo [--rounds 3] [--password SECRET]

``--password`` is the password of every demo user (``demo-master`` and the players), set when
they are made and set again for those that already exist, so a second run with a new password
changes it (issue 27, finding 1). ``make run`` seeds with ``--password moonlight-demo``
(``DEMO_PASSWORD`` in the Makefile). Without --password new demo users cannot log in (their
passwords are unusable) and existing ones keep theirs; the league's pages are public.
"""

from __future__ import annotations

from functools import cached_property

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from games import registry as games
from league import services as league_services
from league.models import League, Season
from league.services import simulations
from matches import services as match_services
from matches.models import Match
from rules.models import Clan

DEMO_SEED = 2026


def demo_usernames() -> list[str]:
    """The demo's users: the master first, then every player of the games' demos (registry order)."""
    players = [p for game in games.sites().values() if game.demo for p in game.demo.players]
    return ["demo-master", *(f"demo-{p}" for p in dict.fromkeys(players))]


def _user(username: str):
    """A demo user (made with an unusable password: the command gives them one after)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


class DemoSeeder:
    """What a game's demo (``games.protocol.Demo.seed``) is given: the demo users and master, the
    fixed seed, ``--rounds``, and the steps a players' game's demo takes through the services."""

    def __init__(self, *, rounds: int, seed: int = DEMO_SEED):
        self.rounds = rounds
        self.seed = seed

    def user(self, username: str):
        return _user(username)

    @cached_property
    def master(self):
        return _user("demo-master")

    def players_league(self, *, slug: str, name: str, game: str, description: str) -> League:
        """A league of a players' game founded by the demo master."""
        league = league_services.league_create(master=self.master, name=name, game=game, description=description)
        if league.slug != slug:  # the demo's address is its name's (how seeding knows it is done)
            raise CommandError(f"The demo league {name!r} would live at {league.slug!r}, not {slug!r}.")
        return league

    def join(self, league: League, players) -> None:
        for username, display_name in players:
            entry = league_services.player_apply(
                user=self.user(f"demo-{username}"), league=league, display_name=display_name
            )
            league_services.application_accept(team=entry)

    def enter(self, match: Match, record: dict) -> None:
        """A result as the club enters it: the first side's player submits the game's record, the
        second side's player confirms it (the site's own services, as the forms call them)."""
        sides = list(match.sides.select_related("team__owner").order_by("slot"))
        match_services.match_submit_game_result(match=match, record=record, actor=sides[0].team.owner)
        match_services.match_confirm(match=match, actor=sides[1].team.owner)

    def simulate_round(self, season: Season, *, seed: int) -> None:
        """The round waiting to be played, simulated by the game's strength model (a simulation job,
        run here in-process as its Celery task would)."""
        job, _ = simulations.simulation_request(actor=self.master, scope="round", season=season, seed=seed)
        simulations.simulation_job_run(job_id=job.pk)


class Command(BaseCommand):
    help = "Seed (once) the demo league of each game, each with rounds played."

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
        seeder = DemoSeeder(rounds=rounds)
        for game in games.sites().values():
            demo = game.demo
            if demo is None:
                continue
            if League.objects.filter(slug=demo.slug).exists():
                self.stdout.write(demo.already_seeded)
                continue
            with transaction.atomic():
                league = demo.seed(seeder)
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
