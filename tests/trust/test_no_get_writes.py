"""No GET writes anything (issue 11, finding 7).

Every named URL of the site (found by walking the URLconf, tests/trust/urlconf.py), with the
arguments of every case of the permission matrix, and every admin URL, is requested with GET by
every role. The fingerprint of every table (row count and a digest of every row of every model,
tests/trust/world.py) must be the same afterwards.

What the fingerprint leaves out, and why: ``django_session`` (the test client's own log-in, and
the messages a page may keep in the session, are bookkeeping of the visit, not data) and
``auth_user.last_login`` (set by logging the roles in). django-axes writes its tables only for
log-in attempts, which are POSTs, so its tables are compared like every other one.
"""

from __future__ import annotations

import pytest
from django.db import transaction
from django.urls import reverse

from matches.models import Match
from tests.trust import matrix
from tests.trust.urlconf import named_urls
from tests.trust.world import ROLES, choose_pending_rolls, watch_writes

pytestmark = pytest.mark.usefixtures("catalog")


def site_gets(world) -> list[str]:
    """The URL of every case of every site URL name (a name without a rule fails the matrix)."""
    urls = []
    for url in named_urls():
        if url.name.startswith("admin:"):
            continue
        for case in matrix.RULES.get(url.name, []):
            urls.append(reverse(url.name, kwargs=case.kwargs(world)))
    return sorted(set(urls))


def admin_gets(world) -> list[str]:
    cases = matrix.admin_cases(world)
    return sorted({reverse(name, kwargs=cases[name][0]) for name in (u.name for u in named_urls()) if name in cases})


def walk(world, urls: list[str]) -> list[str]:
    """GET every URL as every role; return what any GET wrote (replaying each GET, in a rolled-back
    transaction, to name the writer when the fingerprint of the whole walk changed)."""
    clients = {role: matrix.client_for(world, role) for role in ROLES}
    errors = []
    with transaction.atomic():  # rolled back: a write found is then replayed on the world as seeded
        with watch_writes() as walked:  # fingerprinted only if a GET ran a write statement
            for url in urls:
                for role in ROLES:
                    try:
                        clients[role].get(url)
                    except Exception as exc:  # a server error is the matrix's business; here, only writes
                        errors.append(f"GET {url} as {role}: {type(exc).__name__}: {exc}")
        changed = walked.changed
        transaction.set_rollback(True)
    if not changed:
        return errors
    writers = []
    for url in urls:
        for role in ROLES:
            outcome = matrix.request(clients[role], "GET", url)
            if outcome.written:
                writers.append(f"GET {url} as {role} wrote {outcome.written}")
    return writers or [f"the walk wrote {changed} (no single GET did on replay)"]


def test_the_walk_covers_every_site_url(world):
    urls = site_gets(world)
    names = {u.name for u in named_urls() if not u.name.startswith("admin:")}
    assert len(urls) >= len(names) >= 50
    assert reverse("matches:result", kwargs={"pk": world.open_match.pk}) in urls


@pytest.mark.slow(reason="GETs every URL of the site as each of six roles")
def test_no_get_of_the_site_writes_anything(world):
    assert world.open_match.kicked_off_at is None  # the result page of a match not kicked off is walked
    problems = walk(world, site_gets(world))
    assert not problems, "\n".join(problems)
    world.open_match.refresh_from_db()
    assert world.open_match.kicked_off_at is None and world.open_match.seed is None


@pytest.mark.slow(reason="GETs every admin URL as each of six roles")
def test_no_get_of_the_admin_writes_anything(world):
    problems = walk(world, admin_gets(world))
    assert not problems, "\n".join(problems)


def test_opening_the_result_page_does_not_kick_the_match_off(client, world):
    """The probe's reproduction: a player (or a cross-site link they follow) opens the result page
    of a match not yet kicked off. Nothing is frozen; the page offers the kick-off as a button."""
    match = world.open_match
    choose_pending_rolls(world)  # a team with an unchosen advancement roll cannot kick off
    client.force_login(world.users["player"])
    resp = client.get(reverse("matches:result", kwargs={"pk": match.pk}))
    assert resp.status_code == 200
    match.refresh_from_db()
    assert match.kicked_off_at is None and match.seed is None
    assert all(side.roster_snapshot in (None, [], {}) for side in match.sides.all())
    body = resp.content.decode()
    assert f'action="{reverse("matches:kick_off", kwargs={"pk": match.pk})}"' in body
    assert 'method="post"' in body

    resp = client.post(reverse("matches:kick_off", kwargs={"pk": match.pk}), {"next": "result"})
    assert resp.status_code == 302 and resp["Location"] == reverse("matches:result", kwargs={"pk": match.pk})
    match.refresh_from_db()
    assert match.kicked_off_at is not None and match.seed is not None
    resp = client.get(reverse("matches:result", kwargs={"pk": match.pk}))
    assert resp.status_code == 200 and b"Submit the result" in resp.content


def test_kick_off_goes_back_to_the_sheet_unless_asked_otherwise(client, world):
    choose_pending_rolls(world)  # a team with an unchosen advancement roll cannot kick off
    client.force_login(world.users["player"])
    url = reverse("matches:kick_off", kwargs={"pk": world.open_match.pk})
    resp = client.post(url, {"next": "https://evil.example.org/"})
    assert resp["Location"] == reverse("matches:presheet", kwargs={"pk": world.open_match.pk})
    assert Match.objects.get(pk=world.open_match.pk).kicked_off_at is not None
