"""Issue 13, part 1: the waiting result shown in full, the other side's own record (the same one
confirms, a different one disputes), the master's settlement, and a rejected result coming back
into the form with every field as submitted."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from matches import services
from matches.models import Match, MatchNinja
from teams.models import TreasuryEntry, XpEvent
from tests.factories import PASSWORD
from tests.matches.conftest import simple_record
from tests.matches.test_views_matches import form_data


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def first_kaiken(team):
    return team.ninjas.filter(profile__slug=f"{team.clan.slug}-kaiken").order_by("id")[0]


@pytest.fixture
def submitted(brawl_match, two_teams):
    """Alice (home) submits 3-1: her first kaiken inflicts two Injuries."""
    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    kaiken = first_kaiken(home)
    record = simple_record(match, feats={kaiken.pk: {"injuries": 2}})
    services.match_submit_result(match=match, record=record, actor=home.owner)
    match.refresh_from_db()
    return match


# --- services ------------------------------------------------------------------------------------


def test_the_same_record_from_the_other_side_confirms(submitted, two_teams):
    home, away = two_teams
    record = simple_record(submitted, feats={first_kaiken(home).pk: {"injuries": 2}})
    services.match_submit_result(match=submitted, record=record, actor=away.owner)
    submitted.refresh_from_db()
    assert submitted.status == Match.Status.CONFIRMED and submitted.confirmed_by == away.owner
    assert submitted.counter_record is None and submitted.sequence_applied_at is not None
    assert MatchNinja.objects.get(side__match=submitted, ninja=first_kaiken(home)).injuries == 2


def test_a_different_record_from_the_other_side_disputes_and_keeps_both(submitted, two_teams):
    home, away = two_teams
    first = submitted.submitted_record
    record = simple_record(submitted, points=(3, 2), feats={first_kaiken(home).pk: {"injuries": 1}})
    services.match_submit_result(match=submitted, record=record, actor=away.owner)
    submitted.refresh_from_db()
    assert submitted.status == Match.Status.DISPUTED
    assert submitted.submitted_record == first and submitted.submitted_by == home.owner
    assert submitted.counter_by == away.owner and submitted.counter_at is not None
    assert [t["points"] for t in submitted.counter_record["teams"]] == [3, 2]
    # Nothing of the post-game sequence ran; nobody can confirm, reject or submit again.
    assert submitted.sequence_applied_at is None and not XpEvent.objects.filter(match=submitted).exists()
    with pytest.raises(ValidationError):
        services.match_confirm(match=submitted, actor=home.owner)
    with pytest.raises(ValidationError):
        services.match_reject(match=submitted, actor=away.owner)
    with pytest.raises(ValidationError):
        services.match_submit_result(match=submitted, record=record, actor=home.owner)


def test_the_submitter_cannot_dispute_his_own_result(submitted, two_teams):
    home, _away = two_teams
    with pytest.raises(ValidationError, match="already submitted"):
        services.match_submit_result(match=submitted, record=simple_record(submitted, points=(4, 1)), actor=home.owner)
    submitted.refresh_from_db()
    assert submitted.status == Match.Status.SUBMITTED


def test_an_invalid_counter_record_is_refused_and_writes_nothing(submitted, two_teams):
    _home, away = two_teams
    bad = simple_record(submitted, all_stars={away.pk: []})
    with pytest.raises(ValidationError, match="All-Star"):
        services.match_submit_result(match=submitted, record=bad, actor=away.owner)
    submitted.refresh_from_db()
    assert submitted.status == Match.Status.SUBMITTED and submitted.counter_record is None


@pytest.fixture
def disputed(submitted, two_teams):
    home, away = two_teams
    record = simple_record(submitted, points=(1, 3), feats={first_kaiken(home).pk: {"injuries": 1}})
    services.match_submit_result(match=submitted, record=record, actor=away.owner)
    submitted.refresh_from_db()
    return submitted


@pytest.mark.parametrize("pick, points", [("first", (3, 1)), ("second", (1, 3))])
def test_the_master_settles_by_picking_a_record(disputed, two_teams, league, pick, points):
    home, _away = two_teams
    services.match_settle(match=disputed, actor=league.master, pick=pick)
    disputed.refresh_from_db()
    assert disputed.status == Match.Status.CONFIRMED and disputed.settlement == pick
    assert disputed.confirmed_by == league.master
    assert [s.points for s in disputed.sides.order_by("slot")] == list(points)
    injuries = MatchNinja.objects.get(side__match=disputed, ninja=first_kaiken(home)).injuries
    assert injuries == (2 if pick == "first" else 1)
    assert disputed.submitted_record is not None and disputed.counter_record is not None  # both kept
    # Settled once: a second settlement is refused, the ledger is written once.
    with pytest.raises(ValidationError):
        services.match_settle(match=disputed, actor=league.master, pick="first")
    assert TreasuryEntry.objects.filter(match=disputed, team=home, reason="revenue").count() == 1


def test_the_master_settles_with_an_edited_record(disputed, two_teams, league):
    home, _away = two_teams
    merged = simple_record(disputed, points=(2, 2), feats={first_kaiken(home).pk: {"injuries": 3}})
    services.match_settle(match=disputed, actor=league.master, record=merged, upkeep={})
    disputed.refresh_from_db()
    assert disputed.settlement == Match.Settlement.EDITED and disputed.status == Match.Status.CONFIRMED
    assert [s.outcome for s in disputed.sides.order_by("slot")] == ["draw", "draw"]
    assert MatchNinja.objects.get(side__match=disputed, ninja=first_kaiken(home)).injuries == 3


def test_an_edited_settlement_is_checked_like_any_result(disputed, two_teams, league):
    home, _away = two_teams
    bad = simple_record(disputed, all_stars={home.pk: []})
    with pytest.raises(ValidationError, match="All-Star"):
        services.match_settle(match=disputed, actor=league.master, record=bad)
    with pytest.raises(ValidationError):
        services.match_settle(match=disputed, actor=league.master, pick="third")
    with pytest.raises(ValidationError):
        services.match_settle(match=disputed, actor=league.master)
    disputed.refresh_from_db()
    assert disputed.status == Match.Status.DISPUTED and disputed.settlement == ""


def test_only_the_master_settles(disputed, two_teams):
    home, away = two_teams
    for user in (home.owner, away.owner):
        with pytest.raises(PermissionDenied):
            services.match_settle(match=disputed, actor=user, pick="first")
    disputed.refresh_from_db()
    assert disputed.status == Match.Status.DISPUTED


def test_a_disputed_match_blocks_the_end_of_the_season_and_stays_open(disputed):
    # the league's "still to be played" set (MatchQuerySet.open: schedules and season ends use it)
    assert Match.objects.open().filter(pk=disputed.pk).exists()


# --- views ---------------------------------------------------------------------------------------


def test_the_waiting_result_is_shown_in_full_to_both_sides_and_the_master(
    client, submitted, two_teams, league, django_assert_max_num_queries
):
    home, away = two_teams
    kaiken = first_kaiken(home)
    for user in (home.owner, away.owner, league.master, None):
        client.logout()
        if user is not None:
            login(client, user)
        with django_assert_max_num_queries(14):
            page = client.get(submitted.get_absolute_url()).content.decode()
        assert "The submitted result" in page and "Result submitted by <strong>alice</strong>" in page
        assert 'Tigers: <span class="">3 points' in page and 'Squids: <span class="">1 point<' in page
        row = page[page.index(f">{kaiken.name}</th>") :]
        row = row[: row.index("</tr>")]
        assert '<td class="">2</td>' in row  # her kaiken's two Injuries
        assert "★" in page  # the All-Stars
    # Only the opponent is offered his own record; the submitter is not.
    client.logout()
    login(client, away.owner)
    assert "Enter your own record" in client.get(submitted.get_absolute_url()).content.decode()
    client.logout()
    login(client, home.owner)
    assert "Enter your own record" not in client.get(submitted.get_absolute_url()).content.decode()


def test_the_opponents_form_starts_from_the_record_and_a_change_disputes(client, submitted, two_teams, league):
    home, away = two_teams
    kaiken = first_kaiken(home)
    login(client, away.owner)
    url = reverse("matches:result", args=[submitted.pk])
    page = client.get(url).content.decode()
    assert 'data-testid="counter-intro"' in page and "Save draft" not in page
    assert f'name="n{kaiken.pk}_injuries" value="2"' in page
    data = form_data(submitted, points=(3, 1), injuries={kaiken.pk: 4})
    data[f"n{kaiken.pk}_feat_injure_enemy"] = "0"  # as first submitted (left blank: the Injuries)
    data["submit_result"] = "1"
    resp = client.post(url, data, follow=True)
    assert "disputed until the ninja master settles it" in resp.content.decode()
    submitted.refresh_from_db()
    assert submitted.status == Match.Status.DISPUTED
    # The match page shows both records side by side, the differing cell marked.
    client.logout()
    login(client, league.master)
    page = client.get(submitted.get_absolute_url()).content.decode()
    assert 'data-testid="dispute"' in page and "First record: alice" in page and "Second record: bob" in page
    assert "1 difference," in page
    assert page.count('<td class="diff">4<span class="visually-hidden"> (differs)</span>') == 1
    assert page.count('<td class="diff">2<span class="visually-hidden"> (differs)</span>') == 1
    assert "Settle the dispute" in page


def test_the_master_settles_through_the_pages(client, disputed, two_teams, league, django_assert_max_num_queries):
    home, away = two_teams
    url = reverse("matches:settle", args=[disputed.pk])
    for user in (home.owner, away.owner):
        client.logout()
        login(client, user)
        assert client.get(url).status_code == 403
        assert client.post(url, {"pick": "second"}).status_code == 403
    client.logout()
    login(client, league.master)
    with django_assert_max_num_queries(20):
        page = client.get(url).content.decode()
    assert "Apply the first record (alice)" in page and "Apply the second record (bob)" in page
    assert 'name="s1_points" value="3"' in page  # the edit starts from the first record
    assert 'name="s1_points" value="1"' in client.get(url + "?start=second").content.decode()
    resp = client.post(url, {"pick": "second"})
    assert resp.status_code == 302
    disputed.refresh_from_db()
    assert disputed.status == Match.Status.CONFIRMED and disputed.settlement == "second"
    page = client.get(disputed.get_absolute_url()).content.decode()
    assert 'data-testid="settled"' in page and "the second record" in page


def test_the_master_settles_with_an_edited_record_through_the_page(client, disputed, two_teams, league):
    login(client, league.master)
    url = reverse("matches:settle", args=[disputed.pk])
    data = form_data(disputed, points=(2, 2))
    del data[next(k for k in data if k.endswith("_allstar"))]  # a problem first: an All-Star missing
    data["settle_edited"] = "1"
    page = client.post(url, data).content.decode()
    assert "All-Star" in page
    disputed.refresh_from_db()
    assert disputed.status == Match.Status.DISPUTED
    data = form_data(disputed, points=(2, 2))
    data["settle_edited"] = "1"
    assert client.post(url, data).status_code == 302
    disputed.refresh_from_db()
    assert disputed.settlement == "edited" and [s.points for s in disputed.sides.all()] == [2, 2]


def test_a_rejected_result_comes_back_with_every_field_and_the_reason(client, brawl_match, two_teams):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    kaiken = first_kaiken(home)
    login(client, home.owner)
    url = reverse("matches:result", args=[match.pk])
    data = form_data(match, points=(4, 2), injuries={kaiken.pk: 3})
    data["submit_result"] = "1"
    assert client.post(url, data).status_code == 302
    client.logout()
    login(client, away.owner)
    client.post(reverse("matches:confirm", args=[match.pk]), {"decision": "reject", "reason": "We drew 2-2"})
    client.logout()
    login(client, home.owner)
    page = client.get(url).content.decode()
    assert 'data-testid="rejected"' in page and "We drew 2-2" in page
    assert 'name="s1_points" value="4"' in page and 'name="s2_points" value="2"' in page
    assert f'name="n{kaiken.pk}_injuries" value="3"' in page
    stars = [k for k in data if k.endswith("_allstar")]
    for key in stars:
        assert f'name="{key}" class="form-check-input" id="id_{key}" checked' in page
    # An error-free form: what came back is the record, not a list of problems.
    assert "alert-danger" not in page
