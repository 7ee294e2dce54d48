"""Rules corrections of issue 12, through the services and the real forms, checked against the
database afterwards. Each test quotes the rulebook line it follows
(../shared/seeds/ninja-all-stars-rulebook.txt)."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError
from django.forms.models import model_to_dict
from django.urls import reverse

from league import services as league_services
from league.forms import HOUSE_RULE_FIELDS, HouseRulesForm
from league.models import League, Season
from league.selectors import league_table
from matches import services
from matches.models import Match, MatchNinja
from newsletters.selectors import table_through
from rules.engine.league import MAX_BONUS_KOBAN_LIMIT
from rules.models import Challenge
from teams import selectors as team_selectors
from teams.models import Advancement, AdvancementRoll, TreasuryEntry
from teams.services import team_ratings_refresh, treasury_post
from tests.factories import LeagueFactory, UserFactory, make_legal_team, recruit
from tests.matches.conftest import choose_pending_rolls, simple_record
from tests.matches.test_views_matches import form_data, login


def boost(team, n: int) -> None:
    """n advancements taken (each +1 team rating, chosen long ago)."""
    ninja = team.ninjas.order_by("id").first()
    Advancement.objects.bulk_create(Advancement(ninja=ninja, kind=Advancement.Kind.ATTACK) for _ in range(n))
    team_ratings_refresh(team_ids=[team.pk])  # written around the services: the stored rating in step


@pytest.fixture
def underdog_match(catalog):
    """Tigers (rating 20) against Squids (rating 10) under a house cap of 10 bonus koban."""
    league = LeagueFactory(master=UserFactory(username="master"), max_bonus_koban=10)
    home = make_legal_team("tora", owner=UserFactory(username="alice"), name="Tigers", league=league)
    away = make_legal_team("ika", owner=UserFactory(username="bob"), name="Squids", league=league)
    boost(home, 9)
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    return services.match_kick_off(match=match)


def test_koban_earned_and_the_ledger_follow_a_raised_bonus_cap(underdog_match):
    """ "Bonus Koban: The lower rated team gets a bonus to their revenue at the end of the game that is
    equal to the difference in the two teams ratings, up to a maximum of six Koban." (line 524) --
    with the league's house rule raising the cap to 10, a rating gap of 10 gives 10 bonus koban in
    the ledger *and* in the match's "koban earned" (which said 12: capped at 6)."""
    home, away = underdog_match.sides.order_by("slot")
    assert (home.rating, away.rating, away.bonus_koban, away.extra_all_stars) == (20, 10, 10, 2)
    services.match_submit_result(
        match=underdog_match, record=simple_record(underdog_match, points=(3, 1)), actor=underdog_match.league.master
    )
    away.refresh_from_db()
    ledger = {e.reason: e.amount for e in TreasuryEntry.objects.filter(match=underdog_match, team_id=away.team_id)}
    assert ledger == {TreasuryEntry.Reason.REVENUE: 6, TreasuryEntry.Reason.UNDERDOG: 10}
    assert away.koban_earned == 16 == sum(ledger.values())


def test_the_bonus_koban_cap_has_an_upper_bound(catalog):
    """The house rule is bounded (docs/rulings.md: at most 20) on the form, the model and the service."""
    master = UserFactory()
    data = {**model_to_dict(League(), fields=HOUSE_RULE_FIELDS), "name": "Bounded", "tie_breaker_1": "wins"}
    form = HouseRulesForm({**data, "max_bonus_koban": MAX_BONUS_KOBAN_LIMIT + 1})
    assert not form.is_valid() and "max_bonus_koban" in form.errors
    assert HouseRulesForm({**data, "max_bonus_koban": MAX_BONUS_KOBAN_LIMIT}).is_valid()
    with pytest.raises(ValidationError):
        League(name="X", slug="x", master=master, max_bonus_koban=MAX_BONUS_KOBAN_LIMIT + 1).full_clean()
    with pytest.raises(ValidationError) as exc:
        league_services.league_create(master=master, name="Too generous", max_bonus_koban=MAX_BONUS_KOBAN_LIMIT + 1)
    assert "between 0 and 20" in str(exc.value)
    assert league_services.league_create(master=master, name="Generous", max_bonus_koban=20).max_bonus_koban == 20


def test_extra_underdog_all_stars_are_optional_on_the_result_form(client, underdog_match):
    """ "Bonus XP: For every 5 points that the higher rated team is above the lower rated team, the
    lower rated team may award one additional All-Star Award at the end of the game." (line 523)"""
    home, away = underdog_match.sides.order_by("slot")
    assert away.extra_all_stars == 2
    first_away = next(r["id"] for r in away.roster_snapshot if r["available"])
    first_home = next(r["id"] for r in home.roster_snapshot if r["available"])
    login(client, underdog_match.league.master)
    data = form_data(underdog_match, stars={home.team_id: [first_home], away.team_id: [first_away]})
    resp = client.post(reverse("matches:result", args=[underdog_match.pk]), {**data, "submit_result": "1"})
    assert resp.status_code == 302, resp.content.decode()[:2000]
    underdog_match.refresh_from_db()
    assert underdog_match.status == Match.Status.CONFIRMED
    stars = MatchNinja.objects.filter(side__match=underdog_match, side__team_id=away.team_id, all_star_awards=1)
    assert [s.ninja_id for s in stars] == [first_away]


def test_a_chunin_champion_is_refused_on_the_result_form(client, catalog):
    """Champion: "each player selects one non-chunin model on their team as their Champion" (line 584)."""
    league = LeagueFactory(master=UserFactory(username="master"))
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="champion"), league=league)
    match = services.match_kick_off(match=match)
    chunin = away.ninjas.get(profile__slug="ika-chunin")
    login(client, league.master)
    data = form_data(match)
    data[f"n{chunin.pk}_feat_chosen_champion"] = "1"
    resp = client.post(reverse("matches:result", args=[match.pk]), {**data, "submit_result": "1"})
    assert resp.status_code == 200
    assert "is a chunin: a Champion must be a non-chunin model." in resp.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and not MatchNinja.objects.filter(side__match=match).exists()
    kaiken = away.ninjas.filter(profile__slug="ika-kaiken").first()
    data = form_data(match)
    data[f"n{kaiken.pk}_feat_chosen_champion"] = "1"
    assert client.post(reverse("matches:result", args=[match.pk]), {**data, "submit_result": "1"}).status_code == 302


def test_every_advancement_earned_counts_toward_the_rating_everywhere(client, catalog):
    """ "To figure a team's rating, take the total amount of koban that the players on the team are
    worth and divide it by 10 rounding down. Then add +1 for each advancement that ninja on the team
    have earned." (line 519) -- an advancement roll still to be chosen is earned: the team scroll,
    the team list, the league table, the newsletter's table and the kick-off snapshot all count it."""
    league = LeagueFactory(master=UserFactory(username="master"))
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    for team in (home, away):
        league_services.application_accept(team=team)
    base = team_selectors.team_rating(home)
    ninja = home.ninjas.order_by("id").first()
    AdvancementRoll.objects.create(ninja=ninja, level=1, faces=["Fire", "Air"])  # pending
    AdvancementRoll.objects.create(ninja=ninja, level=2, faces=[])  # pending, dice still to roll
    AdvancementRoll.objects.create(ninja=ninja, level=3, faces=["Void", "Void"], status="voided")  # not earned
    chosen = AdvancementRoll.objects.create(ninja=ninja, level=4, faces=["Air", "Air"], status="chosen")
    Advancement.objects.create(ninja=ninja, kind=Advancement.Kind.MOVEMENT, roll=chosen)  # counted once
    team_ratings_refresh(team_ids=[home.pk])  # written around the services: the stored rating in step
    expected = base + 3

    assert team_selectors.team_rating(home) == expected
    body = client.get(reverse("teams:detail", args=[home.pk])).content.decode()
    assert f'data-testid="team-rating">{expected}<' in body
    rows = dict(client.get(reverse("teams:list")).context["rows"])
    assert rows[home] == expected
    assert {r.team.pk: r.rating for r in league_table(season)}[home.pk] == expected
    assert {r.team.pk: r.rating for r in table_through(season, [])}[home.pk] == expected
    match = league_services.fixture_create(season=season, round_number=None, home=home, away=away, rng=random.Random(0))
    # A team cannot kick off with a roll unchosen (issue 13); choosing changes no rating: the
    # advancements were earned already.
    with pytest.raises(services.KickOffBlocked):
        services.match_kick_off(match=match)
    choose_pending_rolls(home)
    assert team_selectors.team_rating(home) == expected
    match = services.match_kick_off(match=match)
    assert match.sides.get(team=home).rating == expected


def test_presheet_bonuses_come_from_the_same_rules_before_and_after_kick_off(client, catalog):
    league = LeagueFactory(master=UserFactory(username="master"), max_bonus_koban=10)
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    boost(home, 9)
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    url = reverse("matches:presheet", args=[match.pk])
    text = "Underdog: 10 reroll tokens, 1 Moon Power, 2 extra All-Star awards, +10 koban after the game."
    assert text in client.get(url).content.decode()
    services.match_kick_off(match=match)
    league.max_bonus_koban = 6  # a later change of the league's rules does not rewrite a kicked-off match
    league.save(update_fields=["max_bonus_koban"])
    assert text in client.get(url).content.decode()


@pytest.mark.parametrize(
    "slug, note, stealthy",
    [
        ("infiltration", "every model deployed at the start of the game starts in Stealth; the sentries do not", "all"),
        ("search", "every model deployed at the start of the game starts in Stealth; the sentries do not", "all"),
        ("king-of-the-hill", "every small-base model deployed at the start of the game starts in Stealth", "all"),
        ("brawl", None, "sneaky"),
    ],
)
def test_presheet_shows_who_starts_in_stealth(client, catalog, slug, note, stealthy):
    """Ruling "Stealth at set-up" (docs/rulings.md): Infiltration and Search follow the challenges
    wiki ("All non-sentry models start the game in Stealth"); Sneaky: "A model with Sneaky begins
    the game in Stealth, regardless of the challenge's special rules" (line 642)."""
    league = LeagueFactory(master=UserFactory(username="master"))
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    treasury_post(team=away, amount=20, reason=TreasuryEntry.Reason.CORRECTION, note="for the Kappa")
    recruit(away, "kappa")  # Sneaky
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug=slug), league=league)
    url = reverse("matches:presheet", args=[match.pk])
    for _ in range(2):  # live, then the kick-off snapshot
        body = client.get(url).content.decode()
        models = home.ninjas.count() + away.ninjas.count()
        assert body.count("Stealth at set-up") == (models if stealthy == "all" else 1)
        assert (note in body) if note else 'data-testid="setup-stealth"' not in body
        services.match_kick_off(match=match)


def test_an_unknown_tie_breaker_is_an_error_not_a_silent_no_op(catalog):
    """The table raises instead of ranking nobody by a name it does not know (issue 12)."""
    league = LeagueFactory()
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    Season.objects.filter(pk=season.pk).update(tie_breakers="points_for,luck")
    season.refresh_from_db()
    with pytest.raises(ValueError, match="luck"):
        league_table(season)
