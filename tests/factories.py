"""factory_boy factories and roster helpers shared by the test suite."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from league.models import League
from rules.models import Clan, Profile
from rules.starting_rosters import STARTING_ROSTERS
from teams import services
from teams.models import Team

PASSWORD = "s3cret-Moon-Pass!"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


def own_rules(game: str, rules: dict) -> dict:
    """House rules as a test gives them, ``time_limit_minutes=45`` among the core's: a game's own
    (its package's ``Game.house_rules``) gathered into ``game_rules``, as the league keeps them."""
    from games import registry

    own = {rule.key for rule in registry.game_of(game).house_rules}
    moved = {key: rules[key] for key in rules if key in own}
    if not moved:
        return rules
    rest = {key: value for key, value in rules.items() if key not in moved}
    return {**rest, "game_rules": {**registry.game_of(game).rule_values(moved), **moved}}


class LeagueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = League

    name = factory.Sequence(lambda n: f"League {n}")
    slug = factory.Sequence(lambda n: f"league-{n}")
    master = factory.SubFactory(UserFactory)

    @classmethod
    def _adjust_kwargs(cls, **kwargs):
        return own_rules(kwargs.get("game") or League._meta.get_field("game").get_default(), kwargs)


def make_team(clan: str = "tora", *, owner=None, name: str | None = None, league=None) -> Team:
    owner = owner or UserFactory()
    name = name or f"Team {Team.objects.count() + 1}"
    return services.team_create(owner=owner, name=name, clan=Clan.objects.get(slug=clan), league=league)


def recruit(team: Team, slug: str, count: int = 1, name: str = ""):
    """Recruit `count` models of profile `slug`, choosing the first ability where one must be chosen."""
    profile = Profile.objects.get(slug=slug)
    made = []
    for _ in range(count):
        chosen = list(profile.abilities.all()[: profile.choose_abilities])
        made.append(
            services.team_recruit(team=team, profile=profile, name=name if count == 1 else "", chosen_abilities=chosen)
        )
    return made if count > 1 else made[0]


def make_legal_team(clan: str = "tora", **kwargs) -> Team:
    team = make_team(clan=clan, **kwargs)
    for slug, count in STARTING_ROSTERS[clan]:
        recruit(team, slug, count)
    team.refresh_from_db()
    return team
