"""Every house-rule number has a range from the engine that takes it (issue 27, finding 7): a
starting koban of 9.2 x 10^18 was accepted and stopped a simulation with an OverflowError. Each
number at its bounds is accepted and one past is refused, with a clear message and nothing saved,
on the master's form, in the admin, by the service and by the database; the form's input carries
the range."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.forms.models import model_to_dict
from django.test import RequestFactory
from django.urls import reverse

from games import registry as games
from league import services
from league.forms import GAME_RULE_PREFIX, HOUSE_RULE_FIELDS
from league.models import HOUSE_RULE_BOUNDS, HouseRules, League
from tests.factories import LeagueFactory, UserFactory

pytestmark = pytest.mark.django_db

#: (game, rule, lowest, highest) for every house-rule number of the core's (in an All-Stars league,
#: which has them all) ...
CASES = [(games.ALLSTARS, name, low, high) for name, (low, high) in HOUSE_RULE_BOUNDS.items()]
#: ... and of every game's own (games.protocol.HouseRule: Ninjutsu's time limit), in its league.
OWN_CASES = [
    (key, rule.key, rule.low, rule.high)
    for key, site in games.sites().items()
    for rule in site.house_rules
    if rule.kind == "number"
]


def posted(league: League, **changes) -> dict:
    """The house-rules form as its page would post it, with ``changes``."""
    hidden = set(HouseRules.fields_not_for(league.game))
    data = {name: getattr(league, name) for name in HOUSE_RULE_FIELDS if name not in hidden}
    data |= {GAME_RULE_PREFIX + key: value for key, value in league.own_rules.items()}
    data = {**data, "description": "", "tie_breaker_1": "wins", **changes}
    return {k: ("" if v is None else "on" if v is True else v) for k, v in data.items() if v is not False}


def test_every_house_rule_number_has_a_range():
    numbers = {
        f.name
        for f in League._meta.get_fields()
        if f.name in HouseRules.HOUSE_RULE_FIELDS and f.get_internal_type().endswith("IntegerField")
    }
    assert numbers == set(HOUSE_RULE_BOUNDS)


@pytest.mark.parametrize(("game", "name", "low", "high"), CASES, ids=[c[1] for c in CASES])
def test_the_form_takes_each_number_at_its_bounds_and_refuses_one_past(client, game, name, low, high):
    league = LeagueFactory(game=game)
    client.force_login(league.master)
    url = reverse("league:edit", kwargs={"slug": league.slug})
    for value in (low, high):
        response = client.post(url, posted(league, **{name: value}))
        assert response.status_code == 302, response.content.decode()[:2000]
        league.refresh_from_db()
        assert getattr(league, name) == value
    for value in (low - 1, high + 1):
        response = client.post(url, posted(league, **{name: value}))
        assert response.status_code == 200
        form = response.context["form"]
        assert form.errors[name] == [f"Between {low} and {high}."]
        league.refresh_from_db()
        assert getattr(league, name) == high  # nothing saved


@pytest.mark.parametrize(("game", "key", "low", "high"), OWN_CASES, ids=[c[1] for c in OWN_CASES])
def test_a_games_own_number_is_taken_at_its_bounds_and_refused_one_past(client, game, key, low, high):
    league = LeagueFactory(game=game)
    client.force_login(league.master)
    url = reverse("league:edit", kwargs={"slug": league.slug})
    name = GAME_RULE_PREFIX + key
    for value in (low, high):
        response = client.post(url, posted(league, **{name: value}))
        assert response.status_code == 302, response.content.decode()[:2000]
        league.refresh_from_db()
        assert league.own_rules[key] == value
    for value in (low - 1, high + 1):
        response = client.post(url, posted(league, **{name: value}))
        assert response.status_code == 200 and name in response.context["form"].errors
        league.refresh_from_db()
        assert league.own_rules[key] == high  # nothing saved
    # the services refuse it too, and so does a league's own check (what the admin and an import run)
    with pytest.raises(ValidationError):
        services.league_update(league=league, game_rules={key: high + 1})
    league.game_rules = {key: high + 1}
    with pytest.raises(ValidationError):
        league.full_clean()


def test_a_starting_koban_of_nine_quintillion_is_refused_everywhere(client, django_assert_max_num_queries):
    master = UserFactory()
    client.force_login(master)
    huge = 9_200_000_000_000_000_000
    response = client.post(reverse("league:create"), {**posted(League()), "name": "Overflow", "starting_koban": huge})
    assert response.status_code == 200 and not League.objects.filter(name="Overflow").exists()
    assert "Between 0 and 1000." in response.content.decode()

    with pytest.raises(ValidationError) as caught:
        services.league_create(master=master, name="Overflow", starting_koban=huge)
    assert caught.value.message_dict == {
        "starting_koban": ["Starting koban must be a whole number between 0 and 1000."]
    }
    assert not League.objects.filter(name="Overflow").exists()
    league = services.league_create(master=master, name="Rich", starting_koban=1000)
    with pytest.raises(ValidationError):
        services.league_update(league=league, revenue_win=101)
    league.refresh_from_db()
    assert league.revenue_win == 10

    # The admin's form (what its change page validates) refuses it as well.
    request = RequestFactory().get("/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    model_admin = admin.site._registry[League]
    form_class = model_admin.get_form(request, obj=league)
    data = {k: "" if v is None else v for k, v in model_to_dict(league).items() if v is not False}
    assert form_class(data, instance=league).is_valid()
    form = form_class({**data, "starting_koban": huge}, instance=League.objects.get(pk=league.pk))
    assert not form.is_valid() and form.errors["starting_koban"] == ["Between 0 and 1000."]

    # And the database, for whatever goes around them all.
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.filter(pk=league.pk).update(starting_koban=1001)
    league.refresh_from_db()
    assert league.starting_koban == 1000


@pytest.mark.parametrize("game", list(games.GAMES))
def test_the_forms_inputs_carry_the_range(client, django_assert_max_num_queries, game):
    league = LeagueFactory(game=game)
    client.force_login(league.master)
    with django_assert_max_num_queries(8):
        html = client.get(reverse("league:edit", kwargs={"slug": league.slug})).content.decode()
    bounds = {name: (low, high) for name, (low, high) in HOUSE_RULE_BOUNDS.items()}
    bounds |= {GAME_RULE_PREFIX + key: (low, high) for g, key, low, high in OWN_CASES if g == game}
    shown = [name for name in bounds if f'name="{name}"' in html]
    assert shown and set(shown) == set(bounds) - set(HouseRules.fields_not_for(game))
    for name in shown:
        low, high = bounds[name]
        tag = html.split(f'name="{name}"')[1].split(">")[0]
        assert f'min="{low}"' in tag and f'max="{high}"' in tag, tag
        assert f"From {low} to {high}." in html
