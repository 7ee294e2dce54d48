"""Seed a demo league once: six teams of different clans, a round robin season, some rounds played.

Idempotent: if the demo league exists nothing is done. Everything goes through the services (team
creation and recruitment, applications, schedule generation, and the played rounds simulated by the
match simulator through the post-game sequence), with fixed seeds so the demo is the same on every
machine.

    python manage.py seed_demo [--rounds 3] [--password SECRET]

Without --password the demo players cannot log in (their passwords are unusable); the league's
pages are public.
"""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from league import services as league_services
from league.models import League, ScheduleRun, Season
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


class Command(BaseCommand):
    help = "Seed (once) a demo league with six teams and a season with some rounds played."

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=3, help="Rounds of the round robin to play (0-5).")
        parser.add_argument("--password", default="", help="Password for the demo players (default: none).")

    def handle(self, *args, rounds: int, password: str, **options):
        if League.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write("The demo league is already seeded.")
            return
        if not Clan.objects.exists():
            self.stderr.write("Load the rules catalog first (manage.py migrate loads it).")
            return
        with transaction.atomic():
            league = self._seed(rounds=max(0, min(rounds, len(DEMO_TEAMS) - 1)), password=password)
        self.stdout.write(self.style.SUCCESS(f"Seeded {league.name}: {league.get_absolute_url()}"))

    def _user(self, username: str, password: str):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        if created:
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
            user.save()
        return user

    def _seed(self, *, rounds: int, password: str) -> League:
        rng = random.Random(DEMO_SEED)
        master = self._user("demo-master", password)
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
            owner = self._user(f"demo-{username}", password)
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

    def _play(self, match: Match, *, master, rng: random.Random, challenges) -> None:
        """Play a demo fixture with the match simulator (matches.simulation): the result is computed
        from the rosters, goes through the post-game sequence, and advancement rolls are taken by the
        simulation policy. Seeds come from ``rng`` (DEMO_SEED), so the demo is the same every time."""
        if match.challenge_id is None:
            league_services.fixture_set_challenge(match=match, challenge=rng.choice(challenges))
        simulation.simulate_match(match=match, seed=rng.getrandbits(62), actor=master, policy="auto")
