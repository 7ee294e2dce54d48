import pytest
from django.core.exceptions import ValidationError

from rules.engine.league import team_rating
from rules.models import Keyword, Profile
from teams import selectors, services
from teams.models import Advancement, Ninja, Team, TreasuryEntry
from tests.factories import STARTING_ROSTERS, LeagueFactory, UserFactory, make_legal_team, make_team, recruit

pytestmark = pytest.mark.usefixtures("catalog")


def ledger_sum(team: Team) -> int:
    return sum(team.ledger.values_list("amount", flat=True))


def test_new_team_starts_with_100_koban_as_a_ledger_row():
    team = make_team()
    assert team.treasury == 100
    entry = team.ledger.get()
    assert (entry.amount, entry.reason, entry.balance_after) == (100, TreasuryEntry.Reason.STARTING, 100)


def test_league_starting_koban_is_a_setting():
    league = LeagueFactory(starting_koban=120)
    team = make_team(league=league)
    assert team.treasury == 120
    assert team.entry_status == Team.EntryStatus.PENDING


@pytest.mark.parametrize("clan", sorted(STARTING_ROSTERS))
def test_starting_rosters_are_legal_and_rate_10_to_12(clan):
    team = make_legal_team(clan)
    assert services.roster_problems(team=team) == []
    services.team_mark_ready(team=team)
    rating = selectors.team_rating(team)
    assert 10 <= rating <= 12, (clan, rating)
    assert team.treasury >= 0
    assert ledger_sum(team) == team.treasury == team.ledger.last().balance_after


def test_team_rating_hand_computed_with_advancements():
    # Tora: chunin 20 + 3 kaiken 30 + Byakko 24 + yajiri 8 + 2 kunoichi 18 = 100 -> 10, +1 hero = 11
    team = make_legal_team("tora")
    assert selectors.team_rating(team) == 11
    kaiken = team.ninjas.filter(profile__slug="tora-kaiken").first()
    Advancement.objects.create(ninja=kaiken, kind=Advancement.Kind.ATTACK)
    Advancement.objects.create(ninja=kaiken, kind=Advancement.Kind.KEYWORD, keyword=Keyword.objects.get(name="Nimble"))
    chunin = team.ninjas.get(profile__slug="tora-chunin")
    Advancement.objects.create(ninja=chunin, kind=Advancement.Kind.DEFENSE)
    assert selectors.team_rating(team) == 14
    # A released model no longer counts, its koban value nor its advancements.
    services.ninja_release(ninja=kaiken)
    assert selectors.team_rating(team) == (90 // 10) + 1 + 1
    # a ronin adds its recruit cost and +1
    services.treasury_post(team=team, amount=14, reason="revenue", note="a win")
    recruit(team, "tengu")
    assert selectors.team_rating(team) == (104 // 10) + 1 + 1 + 1


def test_recruit_spends_koban_and_records_ledger():
    team = make_team("tora")
    ninja = recruit(team, "tora-chunin")
    team.refresh_from_db()
    assert team.treasury == 80
    entry = team.ledger.last()
    assert (entry.amount, entry.reason, entry.balance_after) == (-20, "recruit", 80)
    assert ninja.chosen_abilities.count() == 1
    assert ninja.name == "Chunin 1"


def test_default_names_count_up():
    team = make_team("tora")
    a, b = recruit(team, "tora-kaiken", 2)
    assert (a.name, b.name) == ("Kaiken 1", "Kaiken 2")
    hero = recruit(team, "tora-byakko")
    assert hero.name == "Byakko"


def test_wrong_clan_is_refused_by_the_service():
    team = make_team("tora")
    with pytest.raises(ValidationError) as exc:
        services.team_recruit(team=team, profile=Profile.objects.get(slug="ika-chunin"))
    assert "not of clan Tora" in exc.value.messages[0]


def test_release_refunds_nothing_and_keeps_history():
    team = make_team("tora")
    ninja = recruit(team, "tora-kaiken")
    services.ninja_release(ninja=ninja)
    team.refresh_from_db()
    assert team.treasury == 90
    ninja.refresh_from_db()
    assert ninja.status == Ninja.Status.RELEASED
    with pytest.raises(ValidationError):
        services.ninja_release(ninja=ninja)


def test_mark_ready_lists_every_missing_minimum():
    team = make_team("tora")
    recruit(team, "tora-kaiken")
    with pytest.raises(ValidationError) as exc:
        services.team_mark_ready(team=team)
    assert exc.value.messages == [
        "Chunin: the team needs exactly 1 and has 0.",
        "Kaiken: the team needs at least 2 and has 1.",
    ]
    team.refresh_from_db()
    assert team.status == Team.Status.BUILDING


def test_treasury_cannot_go_negative_in_service_or_database():
    from django.db import IntegrityError, transaction

    team = make_team()
    with pytest.raises(ValidationError):
        services.treasury_post(team=team, amount=-101, reason="correction")
    assert team.ledger.count() == 1
    with pytest.raises(IntegrityError), transaction.atomic():
        Team.objects.filter(pk=team.pk).update(treasury=-1)
    with pytest.raises(IntegrityError), transaction.atomic():
        TreasuryEntry.objects.create(team=team, amount=-200, reason="correction", balance_after=-100)


def test_correction_is_a_new_entry():
    team = make_team()
    master = UserFactory()
    services.treasury_correct(team=team, amount=-5, note="Miscounted revenue", actor=master)
    assert list(team.ledger.values_list("amount", "balance_after", "reason")) == [
        (100, 100, "starting"),
        (-5, 95, "correction"),
    ]
    with pytest.raises(ValidationError):
        services.treasury_correct(team=team, amount=3, note="  ", actor=master)


def test_team_rating_function_is_the_engine():
    team = make_legal_team("ika")
    snap = selectors.team_snapshot(selectors.team_for_scroll(team.pk))
    assert team_rating(snap) == 10
