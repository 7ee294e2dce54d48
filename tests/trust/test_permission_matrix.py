"""Who may see and change what, over every named URL of the site, for every role.

The URL names come from walking the URLconf: a page added without a rule in
tests/trust/matrix.py fails here. See matrix.py for what each case promises.
"""

from __future__ import annotations

import pytest

from tests.trust import matrix
from tests.trust.urlconf import named_urls

pytestmark = pytest.mark.usefixtures("catalog")

SITE_NAMES = [u.name for u in named_urls() if not u.name.startswith("admin:")]
ADMIN_NAMES = [u.name for u in named_urls() if u.name.startswith("admin:")]


def test_the_urlconf_is_walked():
    names = {u.name for u in named_urls()}
    assert {"home", "teams:detail", "league:fixture_challenge", "matches:confirm", "admin:index"} <= names
    assert len(SITE_NAMES) >= 50


def test_every_named_url_has_a_rule():
    missing = [n for n in SITE_NAMES if n not in matrix.RULES]
    routes = {u.name: u.route for u in named_urls()}
    assert not missing, (
        "These URL names have no permission rule in tests/trust/matrix.py RULES; say who may GET and "
        "POST them: " + ", ".join(f"{n} ({routes[n]})" for n in missing)
    )


@pytest.mark.parametrize("name", SITE_NAMES)
def test_permission_matrix(world, name):
    cases = matrix.RULES.get(name)
    if cases is None:
        pytest.fail(f"URL name {name!r} has no permission rule: add one to RULES in tests/trust/matrix.py")
    clients = {role: matrix.client_for(world, role) for role in matrix.ROLES}
    failures = []
    for case in cases:
        try:
            matrix.check_case(world, name, case, clients=clients)
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


@pytest.mark.slow(reason="every admin URL, GET and POST, as each of six roles")
def test_admin_needs_staff(world):
    matrix.check_admin(world, ADMIN_NAMES)


def test_public_pages_are_readable_anonymously(world):
    """Rules, league tables, fixtures, match pages, team scrolls and published newsletters."""
    public = [name for name, cases in matrix.RULES.items() if any(c.get == matrix.ANY for c in cases)]
    for expected in (
        "rules:index",
        "rules:odds",
        "league:season_detail",
        "league:season_fixtures",
        "matches:detail",
        "teams:detail",
        "newsletters:list",
        "newsletters:detail",
        "newsletters:feed",
    ):
        assert expected in public
    client = matrix.client_for(world, "anonymous")
    from django.urls import reverse

    for name in public:
        for case in matrix.RULES[name]:
            if case.get != matrix.ANY:
                continue
            resp = client.get(reverse(name, kwargs=case.kwargs(world)))
            assert resp.status_code == 200, (name, case.label, resp.status_code)


# --- the matrix notices a missing check ------------------------------------------------------------------


def test_matrix_fails_when_a_team_permission_check_is_removed(world, monkeypatch):
    import teams.permissions

    monkeypatch.setattr(teams.permissions, "can_manage_team", lambda user, team: True)
    for name in ("teams:recruit", "teams:ninja_rename", "matches:advancement_choose"):
        with pytest.raises(AssertionError, match="should be refused"):
            matrix.check_case(world, name, matrix.RULES[name][0])


def test_matrix_fails_when_a_masters_rights_come_from_the_teams_league_field(world, monkeypatch):
    """Issue 11, finding 1: the old rule (the master of ``team.league``) fails the team states."""
    import teams.permissions

    def by_league_field(user, team):
        return user.is_authenticated and (
            team.owner_id == user.pk or teams.permissions.is_league_master(user, team.league)
        )

    monkeypatch.setattr(teams.permissions, "can_manage_team", by_league_field)
    pending = [c for c in matrix.RULES["teams:ninja_rename"] if c.label == "team pending"]
    with pytest.raises(AssertionError, match=r"(?s)team pending.*POST .* as master: should be refused with 403"):
        matrix.check_case(world, "teams:ninja_rename", pending[0])
    finished = [c for c in matrix.RULES["teams:recruit"] if c.label == "team finished"]
    with pytest.raises(AssertionError, match=r"(?s)team finished.*GET .* as master: should be refused with 403"):
        matrix.check_case(world, "teams:recruit", finished[0])


def test_every_team_state_is_in_the_matrix():
    for name in ("teams:recruit", "teams:recruit_profile", "teams:ninja_rename", "teams:ninja_release", "teams:ready"):
        labels = {c.label for c in matrix.RULES[name]}
        assert {f"team {state}" for state in matrix.TEAM_STATES} <= labels, name


def test_matrix_fails_when_a_master_check_is_removed(world, monkeypatch):
    import league.permissions
    import league.views

    monkeypatch.setattr(league.permissions, "require_master", lambda user, league: None)
    monkeypatch.setattr(league.views, "require_master", lambda user, league: None)
    with pytest.raises(
        AssertionError, match=r"(?s)league:edit.*POST .* as player: should be refused with 403, got 302"
    ):
        matrix.check_case(world, "league:edit", matrix.RULES["league:edit"][0])


def test_matrix_fails_when_result_entry_is_open_to_anyone(world, monkeypatch):
    import matches.services

    monkeypatch.setattr(matches.services, "can_enter_result", lambda user, match: user.is_authenticated)
    with pytest.raises(AssertionError, match="other_master: should be refused"):
        matrix.check_case(world, "matches:result", matrix.RULES["matches:result"][0])


def test_matrix_fails_when_an_admin_page_is_open(world, monkeypatch):
    from django.contrib import admin

    monkeypatch.setattr(admin.site, "has_permission", lambda request: request.user.is_authenticated)
    with pytest.raises(AssertionError, match="as player: should go to the admin log-in"):
        matrix.check_admin(world, ["admin:index", "admin:teams_team_changelist"])


#: POSTs taken without a CSRF token, and why. Only where a secret in the URL is the authority.
CSRF_EXEMPT = {
    # RFC 8058: a mail client unsubscribes with one POST carrying no session and no CSRF token;
    # the signed token in the URL names the user and the kind (tests/notifications).
    "notifications:unsubscribe",
}


def test_the_csrf_exempt_views_are_only_those_listed():
    from django.urls import resolve, reverse

    from notifications.tokens import make_token

    view = resolve(reverse("notifications:unsubscribe", kwargs={"token": make_token(user_id=1, kind="result")}))
    assert getattr(view.func, "csrf_exempt", False)
    from tests.trust.urlconf import named_urls

    exempt = set()
    for url in named_urls():
        if url.name.startswith(("admin:", "api:")):
            continue
        if getattr(url.callback, "csrf_exempt", False):
            exempt.add(url.name)
    assert exempt == CSRF_EXEMPT


def test_every_form_needs_the_csrf_token(world):
    """Every URL that accepts a POST refuses one without the CSRF token (403), even from a role
    allowed to post there, and writes nothing."""
    from django.test import Client
    from django.urls import reverse

    failures = []
    checked = 0
    for name, cases in matrix.RULES.items():
        if name in CSRF_EXEMPT:
            continue
        for case in cases:
            if case.post in (None, matrix.READ_ONLY) or not case.post:
                continue
            role = sorted(case.post)[0]
            client = Client(enforce_csrf_checks=True, raise_request_exception=True)
            if world.user(role) is not None:
                client.force_login(world.user(role))
            outcome = matrix.request(client, "POST", reverse(name, kwargs=case.kwargs(world)), case.data(world))
            checked += 1
            if outcome.status != 403 or outcome.written:
                failures.append(f"{name} [{case.label}] as {role}: {outcome} {outcome.written}")
    assert checked >= 30
    assert not failures, "\n".join(failures)
