"""Authentication limits (issue 11, finding 8), tried as the probe did over HTTP.

Passwords of 12 spaces, twenty "a" and ``zaq1@WSX`` were accepted; wrong old passwords on the
password-change page were not throttled; a password spray over many usernames from one address
was never throttled; sign-up was not throttled; a 30 MB multipart body was accepted.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

WEAK = ["            ", "a" * 20, "zaq1@WSX", "abcabcabcabc", "abcdefghijklmn", "ab" * 8, "\t" * 14, "Aa1!" * 4]


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def signup(client: Client, username: str, password: str):
    return client.post(
        reverse("signup"), {"username": username, "email": "", "password1": password, "password2": password}
    )


@pytest.mark.parametrize("password", WEAK)
def test_weak_passwords_are_refused_at_sign_up(db, password):
    resp = signup(Client(), "newcomer", password)
    assert resp.status_code == 200, password
    assert resp.context["form"].errors.get("password2"), password
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.parametrize("password", WEAK)
def test_weak_passwords_are_refused_everywhere(db, password):
    """The validators are the site's: the password-change page and the admin use them too."""
    with pytest.raises(ValidationError):
        validate_password(password)


def test_a_good_password_is_accepted(db):
    for password in ("Moonlit-Path-2468!", "correct horse battery staple", "長い夜の月明かりの下で踊る忍者"):
        validate_password(password)
    resp = signup(Client(), "newcomer", "Moonlit-Path-2468!")
    assert resp.status_code == 302


@pytest.mark.axes
def test_wrong_old_passwords_are_throttled_on_the_password_change_page(db, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory(username="kenji")
    client = Client()
    client.force_login(user)
    url = reverse("password_change")
    data = {"new_password1": "Another-Pass-42-Moon!", "new_password2": "Another-Pass-42-Moon!"}
    for _ in range(3):
        resp = client.post(url, {**data, "old_password": "wrong"})
        assert resp.status_code in (200, 429)
    resp = client.post(url, {**data, "old_password": PASSWORD})  # even the right one, now
    assert resp.status_code == 429 and b"Too many failed log-ins" in resp.content
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    # ... and logging in as that user from this address is paused as well: one counter.
    resp = Client().post(reverse("login"), {"username": "kenji", "password": PASSWORD})
    assert resp.status_code == 429


@pytest.mark.axes
def test_the_right_old_password_still_changes_it(db):
    user = UserFactory(username="hana")
    client = Client()
    client.force_login(user)
    new = "Another-Pass-42-Moon!"
    resp = client.post(
        reverse("password_change"), {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert resp.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


@pytest.mark.axes
def test_a_password_spray_from_one_address_is_throttled(db, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_FAILURE_LIMIT_PER_ADDRESS = 8
    for i in range(10):
        UserFactory(username=f"player{i}")
    sprayer = Client(REMOTE_ADDR="203.0.113.7")
    url = reverse("login")
    answers = [sprayer.post(url, {"username": f"player{i}", "password": "Summer2025!"}).status_code for i in range(8)]
    assert answers[:7] == [200] * 7  # each username failed once only: the username+address limit never trips
    # Now the address is paused, whatever the username, even with the right password ...
    resp = sprayer.post(url, {"username": "player9", "password": PASSWORD})
    assert resp.status_code == 429 and "_auth_user_id" not in sprayer.session
    # ... and the sprayer cannot reset the count by logging in to an account of their own.
    UserFactory(username="sprayer")
    assert sprayer.post(url, {"username": "sprayer", "password": PASSWORD}).status_code == 429
    # Another address is not affected.
    resp = Client(REMOTE_ADDR="198.51.100.4").post(url, {"username": "player9", "password": PASSWORD})
    assert resp.status_code == 302


@pytest.mark.axes
def test_a_club_behind_one_address_survives_a_few_typos(db, settings):
    """Below the per-address limit, other players at the same address log in normally, and a
    success clears only that player's own count."""
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_FAILURE_LIMIT_PER_ADDRESS = 20
    UserFactory(username="aiko")
    UserFactory(username="ren")
    club = Client(REMOTE_ADDR="192.0.2.10")
    url = reverse("login")
    for _ in range(2):
        club.post(url, {"username": "aiko", "password": "typo"})
    assert Client(REMOTE_ADDR="192.0.2.10").post(url, {"username": "ren", "password": PASSWORD}).status_code == 302
    assert club.post(url, {"username": "aiko", "password": PASSWORD}).status_code == 302


@pytest.mark.axes
def test_sign_up_is_throttled_per_address(db, settings):
    settings.SIGNUP_RATE_LIMIT = 3
    client = Client(REMOTE_ADDR="203.0.113.9")
    for i in range(3):
        resp = signup(client, f"bot{i}", "Moonlit-Path-2468!")
        assert resp.status_code == 302
        client.logout()
    resp = signup(client, "bot3", "Moonlit-Path-2468!")
    assert resp.status_code == 429 and b"Too many sign-ups" in resp.content
    assert not get_user_model().objects.filter(username="bot3").exists()
    # Another address may still sign up.
    assert signup(Client(REMOTE_ADDR="198.51.100.5"), "person", "Moonlit-Path-2468!").status_code == 302


def test_a_30_mb_multipart_body_is_refused(db):
    upload = SimpleUploadedFile("big.bin", b"\0" * (30 * 1024 * 1024))
    resp = Client().post(reverse("signup"), {"username": "big", "password1": "x", "password2": "x", "avatar": upload})
    assert resp.status_code == 413
    assert not get_user_model().objects.filter(username="big").exists()


def test_large_and_many_field_bodies_are_refused(db, settings):
    client = Client()
    # Within the body cap but over Django's form-data limit: 400.
    resp = client.post(reverse("login"), {"username": "x", "password": "y" * (1024 * 1024 + 10)})
    assert resp.status_code == 400
    # Too many fields: 400.
    resp = client.post(reverse("login"), {f"f{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)})
    assert resp.status_code == 400
    # A small file is refused too: no page takes files but the import of a backup (tests/api/test_backup_web.py).
    resp = client.post(reverse("login"), {"username": "x", "file": SimpleUploadedFile("a.txt", b"hello")})
    assert resp.status_code == 400


def test_the_size_limits_are_set():
    from django.conf import settings

    assert settings.REQUEST_BODY_MAX_SIZE <= 4 * 1024 * 1024
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE <= settings.REQUEST_BODY_MAX_SIZE
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE <= settings.REQUEST_BODY_MAX_SIZE
    assert settings.DATA_UPLOAD_MAX_NUMBER_FIELDS <= 2000
