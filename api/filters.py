"""Query filters of the list endpoints (django-filter): every value bounded by its type."""

from __future__ import annotations

import django_filters as filters
from django import forms

from league.models import Season
from matches.models import Match
from newsletters.models import Newsletter
from rules.models import Profile
from teams.models import Ninja, Team


class IntFilter(filters.NumberFilter):
    """A whole number (ids, rounds): ``1.5`` or ``1e9999`` is a 400, not a query."""

    field_class = forms.IntegerField


class ProfileFilter(filters.FilterSet):
    clan = filters.CharFilter(field_name="clan__slug", max_length=50)
    kind = filters.ChoiceFilter(choices=Profile.Kind.choices)

    class Meta:
        model = Profile
        fields = ["clan", "kind"]


class SeasonFilter(filters.FilterSet):
    league = filters.CharFilter(field_name="league__slug", max_length=100)
    status = filters.ChoiceFilter(choices=Season.Status.choices)

    class Meta:
        model = Season
        fields = ["league", "status"]


class MatchFilter(filters.FilterSet):
    league = filters.CharFilter(field_name="league__slug", max_length=100)
    season = IntFilter(field_name="season_id", min_value=1, max_value=2**62)
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    round = IntFilter(field_name="round_number", min_value=0, max_value=10_000)
    team = IntFilter(field_name="sides__team_id", min_value=1, max_value=2**62)

    class Meta:
        model = Match
        fields = ["league", "season", "status", "round", "team"]


class TeamFilter(filters.FilterSet):
    league = filters.CharFilter(field_name="league__slug", max_length=100)
    clan = filters.CharFilter(field_name="clan__slug", max_length=50)
    owner = filters.CharFilter(field_name="owner__username", max_length=150)
    status = filters.ChoiceFilter(choices=Team.Status.choices)

    class Meta:
        model = Team
        fields = ["league", "clan", "owner", "status"]


class NinjaFilter(filters.FilterSet):
    team = IntFilter(field_name="team_id", min_value=1, max_value=2**62)
    status = filters.ChoiceFilter(choices=Ninja.Status.choices)
    profile = filters.CharFilter(field_name="profile__slug", max_length=80)

    class Meta:
        model = Ninja
        fields = ["team", "status", "profile"]


class NewsletterFilter(filters.FilterSet):
    league = filters.CharFilter(field_name="league__slug", max_length=100)
    season = IntFilter(field_name="season_id", min_value=1, max_value=2**62)

    class Meta:
        model = Newsletter
        fields = ["league", "season"]
