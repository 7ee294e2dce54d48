"""Ninja All-Stars' demo league (``manage.py seed_demo``): six teams of different clans, a round
robin season, ``--rounds`` rounds played by the match simulator through the post-game sequence,
with fixed seeds so the demo is the same on every machine. Its :class:`games.protocol.Demo` is
``DEMO``; ``demo`` is the command's ``DemoSeeder`` (games.protocol.Demo says what it gives)."""

from __future__ import annotations

import random

from games.protocol import Demo
from league import services as league_services
from league.models import League, ScheduleRun, Season
from matches import simulation
from matches.models import Match
from rules.models import Challenge, Clan, Profile
from rules.starting_rosters import STARTING_ROSTERS
from teams import services as team_services

DEMO_SLUG = "moonlight-demo"

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


def seed(demo) -> League:
    rounds = max(0, min(demo.rounds, len(DEMO_TEAMS) - 1))
    rng = random.Random(demo.seed)
    master = demo.master
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
        owner = demo.user(f"demo-{username}")
        team = team_services.team_create(owner=owner, name=team_name, clan=Clan.objects.get(slug=clan), league=league)
        for slug, count in roster:
            profile = Profile.objects.get(slug=slug)
            chosen = list(profile.abilities.all()[: profile.choose_abilities])
            for _ in range(count):
                team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen, actor=owner)
        team_services.team_mark_ready(team=team)
        league_services.application_accept(team=team)
    season = league.seasons.get()
    run = league_services.schedule_request(
        season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=demo.seed
    )
    league_services.schedule_generate(run_id=run.pk)
    challenges = list(Challenge.objects.all())
    for number in range(1, rounds + 1):
        for match in Match.objects.filter(season=season, round_number=number).order_by("id"):
            play(match, master=master, rng=rng, challenges=challenges)
    return league


def play(match: Match, *, master, rng: random.Random, challenges) -> None:
    """Play a demo fixture with the match simulator (matches.simulation): the result is computed
    from the rosters, goes through the post-game sequence, and advancement rolls are taken by the
    simulation policy. Seeds come from ``rng`` (the demo's seed), so the demo is the same every time."""
    if match.challenge_id is None:
        league_services.fixture_set_challenge(match=match, challenge=rng.choice(challenges))
    simulation.simulate_match(match=match, seed=rng.getrandbits(62), actor=master, policy="auto")


DEMO = Demo(slug=DEMO_SLUG, seed=seed, players=tuple(p for p, *_ in DEMO_TEAMS))
