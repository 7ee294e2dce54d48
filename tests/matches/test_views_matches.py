"""Result entry through the real forms, confirmation, the match page, and their query counts."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches import services
from matches.models import Match, MatchNinja
from rules.models import Challenge
from teams.models import AdvancementRoll
from tests.factories import PASSWORD, make_team, recruit
from tests.matches.conftest import simple_record


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def form_data(match, *, points=(3, 1), injuries=None, hh=(), stars=None):
    """POST data for the result form: every available model played; first model(s) All-Star."""
    injuries = injuries or {}
    data = {}
    for side, pts in zip(match.sides.order_by("slot"), points, strict=True):
        data[f"s{side.slot}_points"] = str(pts)
        roster = [r for r in side.roster_snapshot if r["available"]]
        star_ids = stars.get(side.team_id) if stars else [r["id"] for r in roster[: 1 + side.extra_all_stars]]
        for r in roster:
            p = f"n{r['id']}_"
            data[p + "played"] = "on"
            data[p + "injuries"] = str(injuries.get(r["id"], 0))
            if r["id"] in hh:
                data[p + "hh"] = "on"
            if r["id"] in star_ids:
                data[p + "allstar"] = "on"
        for r in side.roster_snapshot:
            if r["is_ronin"]:
                data[f"u{r['id']}"] = "pay"
    return data


def test_result_form_submit_then_opponent_confirms(client, brawl_match, two_teams):
    home, away = two_teams
    login(client, home.owner)
    url = reverse("matches:result", args=[brawl_match.pk])
    # Opening the page freezes nothing (no GET writes): it offers the kick-off as a button.
    resp = client.get(url)
    assert resp.status_code == 200 and b"Kick off and enter the result" in resp.content
    brawl_match.refresh_from_db()
    assert brawl_match.kicked_off_at is None
    resp = client.post(reverse("matches:kick_off", args=[brawl_match.pk]), {"next": "result"})
    assert resp.status_code == 302 and resp["Location"] == url
    resp = client.get(url)
    assert resp.status_code == 200
    assert b"Save draft" in resp.content and b'inputmode="numeric"' in resp.content
    brawl_match.refresh_from_db()
    assert brawl_match.kicked_off_at is not None  # the button kicked it off
    data = form_data(brawl_match, points=(5, 2))
    data["submit_result"] = "1"
    resp = client.post(url, data)
    assert resp.status_code == 302
    brawl_match.refresh_from_db()
    assert brawl_match.status == Match.Status.SUBMITTED
    # The submitter sees no confirm button; the opponent does.
    assert b"Confirm the result" not in client.get(brawl_match.get_absolute_url()).content
    client.logout()
    login(client, away.owner)
    assert b"Confirm the result" in client.get(brawl_match.get_absolute_url()).content
    resp = client.post(reverse("matches:confirm", args=[brawl_match.pk]), {"decision": "confirm"})
    assert resp.status_code == 302
    brawl_match.refresh_from_db()
    assert brawl_match.status == Match.Status.CONFIRMED
    page = client.get(brawl_match.get_absolute_url()).content.decode()
    assert "The post-game sequence" in page and "+10 koban" in page


def test_opponent_can_reject(client, brawl_match, two_teams):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    login(client, away.owner)
    client.post(reverse("matches:confirm", args=[match.pk]), {"decision": "reject", "reason": "Score was 2-2"})
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.submitted_record is None
    assert not MatchNinja.objects.exists()
    client.logout()
    login(client, home.owner)
    resp = client.get(reverse("matches:result", args=[match.pk]), follow=True)
    assert b"Score was 2-2" in resp.content


def test_invalid_form_shows_errors_and_writes_nothing(client, brawl_match, two_teams):
    home, _ = two_teams
    login(client, home.owner)
    url = reverse("matches:result", args=[brawl_match.pk])
    client.post(reverse("matches:kick_off", args=[brawl_match.pk]), {"next": "result"})
    brawl_match.refresh_from_db()
    data = form_data(brawl_match)
    data["s1_points"] = "-3"
    first = next(k for k in data if k.endswith("_injuries"))
    data[first] = "abc"
    resp = client.post(url, {**data, "submit_result": "1"})
    assert resp.status_code == 200
    body = resp.content.decode()
    assert "Ensure this value is greater than or equal to 0" in body
    assert "Enter a whole number" in body
    # too many All-Stars: a clear message, nothing written
    data = form_data(brawl_match)
    for k in [k for k in data if k.endswith("_played")][:3]:
        data[k.replace("_played", "_allstar")] = "on"
    resp = client.post(url, {**data, "submit_result": "1"})
    assert "pick 1 Ninja All-Star" in resp.content.decode()
    brawl_match.refresh_from_db()
    assert brawl_match.status == Match.Status.SCHEDULED and not MatchNinja.objects.exists()
    assert not home.ledger.filter(match=brawl_match).exists()


def test_draft_is_saved_and_restored(client, brawl_match, two_teams):
    home, _ = two_teams
    login(client, home.owner)
    url = reverse("matches:result", args=[brawl_match.pk])
    client.post(reverse("matches:kick_off", args=[brawl_match.pk]), {"next": "result"})
    brawl_match.refresh_from_db()
    data = form_data(brawl_match, points=(4, 0))
    data["save_draft"] = "1"
    resp = client.post(url, data)
    assert resp.status_code == 302
    brawl_match.refresh_from_db()
    assert brawl_match.status == Match.Status.SCHEDULED and brawl_match.result_draft["s1_points"] == "4"
    resp = client.get(url)
    assert b'name="s1_points" value="4"' in resp.content


def test_outsiders_cannot_enter_results(client, brawl_match):
    url = reverse("matches:result", args=[brawl_match.pk])
    assert client.get(url).status_code == 302  # to log in
    stranger = make_team("kitsune").owner
    login(client, stranger)
    assert client.get(url).status_code == 403
    assert client.post(url, {"s1_points": "1"}).status_code == 403


def test_advancement_choice_page(client, brawl_match, two_teams, league):
    home, _ = two_teams
    match = services.match_kick_off(match=brawl_match)
    star = home.ninjas.filter(profile__slug="tora-kaiken").first()
    services.match_submit_result(
        match=match,
        record=simple_record(
            match,
            feats={star.pk: {"injuries": 5}},
            all_stars={home.pk: [star.pk], two_teams[1].pk: [two_teams[1].ninjas.first().pk]},
        ),
        actor=league.master,
    )
    roll = AdvancementRoll.objects.get(ninja=star)
    login(client, home.owner)
    scroll = client.get(home.get_absolute_url()).content.decode()
    assert "Roll pending" in scroll
    url = reverse("matches:advancement_choose", args=[roll.pk])
    resp = client.get(url)
    assert resp.status_code == 200 and b"Keyword: Close Combat Master" in resp.content
    resp = client.post(url, {"choice": "keyword:Close Combat Master"})
    assert resp.status_code == 302
    roll.refresh_from_db()
    assert roll.status == "chosen"
    assert "Close Combat Master" in client.get(home.get_absolute_url()).content.decode()
    resp = client.post(url, {"choice": "keyword:Nimble"})  # used already
    assert resp.status_code == 302


def test_void_page_needs_master_and_confirmation(client, brawl_match, two_teams, league):
    home, _ = two_teams
    match = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=match, record=simple_record(match), actor=league.master)
    login(client, home.owner)
    assert client.get(reverse("matches:void", args=[match.pk])).status_code == 403
    client.logout()
    login(client, league.master)
    resp = client.get(reverse("matches:void", args=[match.pk]))
    assert b"cannot be undone" in resp.content
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    client.post(reverse("matches:void", args=[match.pk]), {"reason": "Played the wrong challenge"})
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED


def _count(client, url):
    with CaptureQueriesContext(connection) as ctx:
        resp = client.get(url)
    assert resp.status_code == 200
    return len(ctx.captured_queries)


def _match_with_roster(league, size):
    home = make_team("tora", name=f"Home{size}", league=league)
    from teams import services as team_services

    team_services.treasury_post(team=home, amount=300, reason="correction", note="funds")
    plan = [  # a legal roster first (a team with an illegal one cannot kick off), then more of it
        ("tora-chunin", 1),
        ("tora-kaiken", 2),
        ("tengu", 1),
        ("tora-kaiken", 2),
        ("tora-yajiri", 2),
        ("tora-kunoichi", 2),
        ("tora-oni", 2),
    ]
    made = 0
    for slug, n in plan:
        for _ in range(n):
            if made < size:
                recruit(home, slug)
                made += 1
    away = make_team("ika", name=f"Away{size}", league=league)
    recruit(away, "ika-chunin")
    recruit(away, "ika-kaiken", 2)
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    return services.match_kick_off(match=match)


def test_result_form_match_page_and_sequence_queries_do_not_grow_with_roster(client, league):
    small = _match_with_roster(league, 4)  # the smallest legal roster with the hero of the big one
    big = _match_with_roster(league, 12)
    login(client, league.master)
    form_small = _count(client, reverse("matches:result", args=[small.pk]))
    form_big = _count(client, reverse("matches:result", args=[big.pk]))
    assert form_small == form_big <= 15, (form_small, form_big)
    sheet_small = _count(client, reverse("matches:presheet", args=[small.pk]))
    sheet_big = _count(client, reverse("matches:presheet", args=[big.pk]))
    assert sheet_small == sheet_big <= 12
    counts = []
    for m in (small, big):
        hh = {r["id"] for r in m.sides.get(slot=1).roster_snapshot[:3]}
        with CaptureQueriesContext(connection) as ctx:
            services.match_submit_result(
                match=m,
                record=simple_record(m, healing=hh, feats={r: {"injuries": 8} for r in hh}),
                actor=league.master,
            )
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts
    page_small = _count(client, reverse("matches:detail", args=[small.pk]))
    page_big = _count(client, reverse("matches:detail", args=[big.pk]))
    assert page_small == page_big <= 16, (page_small, page_big)
