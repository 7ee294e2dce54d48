"""Query filters of the list endpoints (django-filter): every value bounded by its type.

Each filter's form field is the one definition of its parameter: it validates the value and
``api.schema`` states its schema from it (``api.queries.field_schema``); the filter sets' form
refuses a parameter given twice or given empty (``api.queries.QueryForm``)."""

from __future__ import annotations

import django_filters as filters

from api import queries
from league.models import Season
from matches.models import Match
from newsletters.models import Newsletter
from rules.models import Profile
from teams.models import Ninja, Team


class IntFilter(filters.NumberFilter):
    """A whole number (ids, rounds): ``1.5``, ``1.0`` or ``1e9999`` is a 400, not a query."""

    field_class = queries.WholeNumberField


class TextFilter(filters.CharFilter):
    """A slug or a name, matched as given (no stripping: ``?league=%20`` finds no league)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("strip", False)
        super().__init__(*args, **kwargs)


class QueryFilterSet(filters.FilterSet):
    class Meta:
        form = queries.QueryForm


class ProfileFilter(QueryFilterSet):
    clan = TextFilter(field_name="clan__slug", max_length=50)
    kind = filters.ChoiceFilter(choices=Profile.Kind.choices)

    class Meta(QueryFilterSet.Meta):
        model = Profile
        fields = ["clan", "kind"]


class SeasonFilter(QueryFilterSet):
    league = TextFilter(field_name="league__slug", max_length=100)
    status = filters.ChoiceFilter(choices=Season.Status.choices)

    class Meta(QueryFilterSet.Meta):
        model = Season
        fields = ["league", "status"]


class MatchFilter(QueryFilterSet):
    league = TextFilter(field_name="league__slug", max_length=100)
    season = IntFilter(field_name="season_id", min_value=1, max_value=2**62)
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    round = IntFilter(field_name="round_number", min_value=0, max_value=10_000)
    team = IntFilter(field_name="sides__team_id", min_value=1, max_value=2**62)

    class Meta(QueryFilterSet.Meta):
        model = Match
        fields = ["league", "season", "status", "round", "team"]


class TeamFilter(QueryFilterSet):
    league = TextFilter(field_name="league__slug", max_length=100)
    clan = TextFilter(field_name="clan__slug", max_length=50)
    owner = TextFilter(field_name="owner__username", max_length=150)
    status = filters.ChoiceFilter(choices=Team.Status.choices)

    class Meta(QueryFilterSet.Meta):
        model = Team
        fields = ["league", "clan", "owner", "status"]


class NinjaFilter(QueryFilterSet):
    team = IntFilter(field_name="team_id", min_value=1, max_value=2**62)
    status = filters.ChoiceFilter(choices=Ninja.Status.choices)
    profile = TextFilter(field_name="profile__slug", max_length=80)

    class Meta(QueryFilterSet.Meta):
        model = Ninja
        fields = ["team", "status", "profile"]


class NewsletterFilter(QueryFilterSet):
    league = TextFilter(field_name="league__slug", max_length=100)
    season = IntFilter(field_name="season_id", min_value=1, max_value=2**62)

    class Meta(QueryFilterSet.Meta):
        model = Newsletter
        fields = ["league", "season"]
