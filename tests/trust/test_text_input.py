"""Input that was accepted but could never work, or that fooled people (issue 11, finding 6).

Reproduced as the probe did it, through the pages: a newsletter title with CR/LF (every email of
it then failed with BadHeaderError), names made only of invisible characters, names that sit next
to "Probe League" looking the same, NUL bytes in URLs (a 500 on PostgreSQL), and two foundings of
one name at the same moment (a 500 for one of them).
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from common import text
from league import services as league_services
from league.models import League, Season
from league.services import leagues as league_leagues
from teams.models import Ninja, Team
from tests.factories import UserFactory, make_team, recruit
from tests.trust import matrix
from tests.trust.urlconf import named_urls
from tests.trust.world import ROLES

pytestmark = pytest.mark.usefixtures("catalog")

INVISIBLE = "\u202e\u200b\u200d\ufeff"
PROBE = "Probe League"
# Each of these sat next to "Probe League" on main.
PROBE_LOOKALIKES = [
    "Probe League\u200b",  # a zero-width space at the end
    "Probe\u00a0League",  # a no-break space
    "probe  LEAGUE ",  # case and spaces
    "Ｐｒｏｂｅ League",  # full-width letters
    "Pr\u03bfbe League",  # a Greek omicron in a Latin word
    "Probe Le\u0430gue",  # a Cyrillic a in a Latin word
]


def found(client, name: str):
    from league.forms import LeagueCreateForm

    return client.post(reverse("league:create"), matrix.initial_data(LeagueCreateForm(), name=name))


# --- single lines ---------------------------------------------------------------------------------


def test_a_newsletter_title_with_a_line_break_is_refused(world, settings):
    draft = world.extra["draft"]
    client = matrix.client_for(world, "master")
    url = reverse("newsletters:edit", kwargs={"league_slug": world.league.slug, "key": draft.period_key})
    for title in ("Week 7\r\nBcc: everyone@example.org", "Week 7\nsecond line", "Week\x00 7", "Week\u2028 7"):
        resp = client.post(url, {"title": title, "editorial": "", "save": "Save the draft"})
        assert resp.status_code == 200, title
        assert "one line of ordinary text" in resp.content.decode(), title
        draft.refresh_from_db()
        assert draft.title == "Week 7 at the Lantern", title
    # And so every email of the newsletter can be sent: its subject is one line.
    from newsletters import services as newsletter_services

    with pytest.raises(Exception, match="one line"):
        newsletter_services.newsletter_update(
            newsletter=draft, title="Hi\r\nBcc: x@example.org", editorial="", actor=world.league.master
        )
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    resp = client.post(url, {"title": "  Week 7:\u00a0the  Lantern  ", "editorial": "", "save": "Save the draft"})
    assert resp.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "Week 7: the Lantern"


def test_reasons_and_notes_are_single_lines(world):
    from matches import services as match_services
    from teams import services as team_services

    client = matrix.client_for(world, "other_player")
    url = reverse("matches:confirm", kwargs={"pk": world.submitted.pk})
    resp = client.post(url, {"decision": "reject", "reason": "Wrong\r\nchallenge"})
    assert resp.status_code == 302
    world.submitted.refresh_from_db()
    assert world.submitted.status == "submitted"
    for call in (
        lambda: match_services.match_reject(match=world.submitted, actor=world.users["master"], reason="a\nb"),
        lambda: match_services.match_void(match=world.confirmed, actor=world.users["master"], reason="a\x00b"),
        lambda: team_services.treasury_correct(team=world.team_a, amount=1, note="a\rb", actor=world.users["master"]),
    ):
        with pytest.raises(Exception, match="one line of ordinary text"):
            call()


def test_multi_line_text_keeps_line_breaks_but_refuses_control_characters(world):
    client = matrix.client_for(world, "master")
    url = reverse("league:edit", kwargs={"slug": world.league.slug})
    from league.forms import HouseRulesForm

    data = matrix.initial_data(HouseRulesForm(instance=world.league), description="Line one\r\nLine two\x07")
    resp = client.post(url, data)
    assert resp.status_code == 200 and "control character" in resp.content.decode()
    resp = client.post(url, {**data, "description": "Line one\r\nLine two"})
    assert resp.status_code == 302
    world.league.refresh_from_db()
    assert world.league.description == "Line one\r\nLine two"


# --- names ----------------------------------------------------------------------------------------


def test_names_of_invisible_characters_are_refused(world):
    player = matrix.client_for(world, "player")
    master = matrix.client_for(world, "master")
    leagues, teams = League.objects.count(), Team.objects.count()
    for name in (INVISIBLE, "\u200b\u200b", "\u00a0 \u3000", "\u0301\u0301"):
        resp = found(player, name)
        assert resp.status_code == 200, repr(name)
        resp = player.post(reverse("teams:create"), {"name": name, "clan": world.team_a.clan_id})
        assert resp.status_code == 200, repr(name)
        resp = player.post(
            reverse("teams:ninja_rename", kwargs={"pk": world.team_a.pk, "ninja_pk": world.ninja_a.pk}), {"name": name}
        )
        assert resp.status_code == 200, repr(name)
    assert (League.objects.count(), Team.objects.count()) == (leagues, teams)
    world.ninja_a.refresh_from_db()
    assert world.ninja_a.name.strip()
    # A season's name may be left blank ("Season N"); one that is there must be visible.
    rollover = reverse("league:season_rollover", kwargs={"slug": world.league.slug, "number": world.season.number})
    for name in (INVISIBLE, "\u0301\u0301"):
        data = {"name": name, "format": "self_arranged", "playoff_teams": "0", "confirm": "on"}
        assert master.post(rollover, data).status_code == 200, repr(name)
    assert Season.objects.filter(league=world.league).count() == 1
    dusk = reverse("league:season_create", kwargs={"slug": "dusk"})  # the master's league between seasons
    assert (
        master.post(dusk, {"name": "\u200b \u200b", "format": "self_arranged", "playoff_teams": "0"}).status_code == 302
    )
    assert League.objects.get(slug="dusk").seasons.order_by("-number").first().name == "Season 2"
    # The services refuse them too, whoever calls them.
    for call in (
        lambda: league_services.league_create(master=world.users["player"], name=INVISIBLE),
        lambda: make_team("tora", owner=world.users["player"], name=INVISIBLE),
    ):
        with pytest.raises(Exception, match=r"Give|one line"):
            call()


@pytest.mark.parametrize("lookalike", PROBE_LOOKALIKES)
def test_a_name_that_looks_like_an_existing_league_is_refused(world, lookalike):
    client = matrix.client_for(world, "player")
    assert found(client, PROBE).status_code == 302
    resp = found(client, lookalike)
    assert resp.status_code == 200
    body = resp.content.decode()
    assert "already exists" in body or "looks the same" in body or "mixes the letters" in body
    assert League.objects.filter(name_key=text.name_key(PROBE)).count() == 1
    assert League.objects.filter(name__startswith="Pr").count() == 1


def test_a_whole_word_of_another_alphabet_that_looks_the_same_is_refused(world):
    """Not mixed within a word, so only the key (UTS #39 confusables) catches it."""
    client = matrix.client_for(world, "player")
    assert found(client, "Poe League").status_code == 302
    resp = found(client, "\u0420\u043e\u0435 League")  # Cyrillic "Рое"
    assert resp.status_code == 200 and "looks the same as that of the league “Poe League”" in resp.content.decode()
    # A word of another alphabet that does not look like an existing name is welcome.
    assert found(client, "Ninja \u041b\u0438\u0433\u0430").status_code == 302  # "Ninja Лига"
    assert found(client, "忍者リーグ").status_code == 302  # Han and Katakana in one word


def test_names_are_stored_normalised(world):
    client = matrix.client_for(world, "player")
    assert found(client, "  Ｍｏｏｎ\u00a0\u00a0Riders\u200b ").status_code == 302
    league = League.objects.get(name_key="moon riders")
    assert league.name == "Moon Riders" and league.slug == "moon-riders"


def test_team_and_ninja_names_are_unique_by_their_key(world):
    player = world.users["player"]
    with pytest.raises(Exception, match="already in Lantern League"):
        make_team("tora", owner=player, name="TIGERS\u200b", league=world.league)
    with pytest.raises(Exception, match="mixes the letters of Cyrillic and Latin"):
        make_team("tora", owner=player, name="Tig\u0435rs", league=world.league)
    make_team("tora", owner=player, name="Poe", league=world.league)
    with pytest.raises(Exception, match="looks the same as that of the team “Poe” in Lantern League"):
        make_team("tora", owner=player, name="\u0420\u043e\u0435", league=world.league)  # Cyrillic "Рое"
    team = make_team("tora", owner=player, name="Paper Cranes")
    first = recruit(team, "tora-kaiken", name="Kage")
    client = matrix.client_for(world, "player")
    resp = client.post(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]), {"name": "  KAGE "})
    assert resp.status_code == 200 and "already on the team" in resp.content.decode()
    second = recruit(team, "tora-kaiken", name="Kumo")
    resp = client.post(reverse("teams:ninja_rename", args=[team.pk, second.pk]), {"name": "kage\u00a0"})
    assert resp.status_code == 200 and "already on the team" in resp.content.decode()
    assert Ninja.objects.get(pk=second.pk).name == "Kumo" and Ninja.objects.get(pk=first.pk).name == "Kage"


def test_the_database_refuses_a_second_name_with_the_same_key(world):
    """The unique constraints hold whoever writes (a service, the admin, a script)."""
    master = world.users["master"]
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.create(name="LANTERN\u00a0league", slug="lantern-2", master=master)
    with pytest.raises(IntegrityError), transaction.atomic():
        Team.objects.create(name="tigers", owner=master, clan=world.team_a.clan, league=world.league)
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.create(name="\u200b", slug="blank", master=master)  # nothing visible: an empty key
    team = Team.objects.create(name="tigers", owner=master, clan=world.team_a.clan)  # in no league: fine
    team.name = "Tigers\u00a0Two"
    team.save(update_fields=["name"])
    team.refresh_from_db()
    assert (team.name, team.name_key) == ("Tigers Two", "tigers two")


def test_usernames_in_one_alphabet_and_no_lookalikes(client):
    UserFactory(username="scope")
    password = "Lantern-Pass-42-Moon!"
    for username, message in (
        ("sc\u043epe", "one alphabet"),  # a Cyrillic o inside
        ("\u0455\u0441\u043e\u0440\u0435", "looks the same"),  # "ѕсоре": all Cyrillic, looks like scope
        ("SCOPE", "already exists"),
    ):
        resp = client.post(
            reverse("signup"), {"username": username, "email": "", "password1": password, "password2": password}
        )
        assert resp.status_code == 200 and message in resp.content.decode(), username
    assert get_user_model().objects.count() == 1


# --- NUL bytes in URLs ----------------------------------------------------------------------------


def _nul_urls(world) -> list[str]:
    """Every URL (site and admin) with a str or path argument, that argument given a NUL byte."""
    from django.urls.converters import PathConverter, StringConverter

    admin = matrix.admin_cases(world)
    urls = []
    for url in named_urls():
        free = [name for name, conv in url.converters if type(conv) in (StringConverter, PathConverter)]
        if not free:
            continue
        if url.name in matrix.RULES:
            kwargs = dict(matrix.RULES[url.name][0].kwargs(world))
        elif url.name in admin:
            kwargs = dict(admin[url.name][0])
        else:
            continue
        urls.append(reverse(url.name, kwargs={**kwargs, **dict.fromkeys(free, "x\x00y")}))
    return urls


def test_a_nul_byte_in_a_url_is_a_404(world):
    """On PostgreSQL these were 500s (text cannot hold NUL); the middleware answers 404 first."""
    urls = ["/leagues/tasks/%00/", "/matches/simulations/tasks/%00/", "/teams/%00/", "/leagues/lan%00tern/"]
    urls += _nul_urls(world)
    assert any(u.startswith("/admin/") for u in urls) and len(urls) >= 8
    for role in ROLES:
        client = matrix.client_for(world, role)
        for url in urls:
            assert client.get(url).status_code == 404, (role, url)
    client = matrix.client_for(world, "anonymous")
    assert client.get("/teams/?page=%00").status_code == 400
    assert client.get("/leagues/tasks/%01/").status_code == 404


# --- two foundings of one name at once ------------------------------------------------------------


def test_two_foundings_of_one_name_at_once_give_the_loser_the_form_error(postgres_tx, catalog, monkeypatch):
    """Both requests pass the name check before either writes; the database's unique constraint
    refuses the second, and the service turns that into the form's error (not a 500)."""
    from django.test import Client

    from league.forms import LeagueCreateForm

    users = [UserFactory(username=f"founder-{i}") for i in range(2)]
    barrier = threading.Barrier(2)
    real_unique_slug = league_leagues._unique_slug

    def slug_after_both_checked(name):
        barrier.wait(timeout=10)  # both have checked the name: now they race to insert it
        return real_unique_slug(name)

    monkeypatch.setattr(league_leagues, "_unique_slug", slug_after_both_checked)
    results: list = [None, None]

    def found_as(i):
        try:
            client = Client(raise_request_exception=True)
            client.force_login(users[i])
            data = matrix.initial_data(LeagueCreateForm(), name="Probe League" if i == 0 else "PROBE  league")
            resp = client.post(reverse("league:create"), data)
            results[i] = (resp.status_code, resp.content.decode() if resp.status_code == 200 else resp["Location"])
        except Exception as exc:  # a server error
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=found_as, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(isinstance(r, Exception) for r in results), results
    statuses = sorted(r[0] for r in results)
    assert statuses == [200, 302], results
    loser = next(r for r in results if r[0] == 200)
    assert "already exists" in loser[1]
    assert League.objects.filter(name_key="probe league").count() == 1


def test_a_slug_race_takes_the_next_slug(world, monkeypatch):
    """Two names with one slug ("Probe League" and "Probe League!"): the second gets probe-league-2
    even when the first took the slug between the check and the insert."""
    client = matrix.client_for(world, "player")
    assert found(client, PROBE).status_code == 302
    calls = []
    real = league_leagues._unique_slug

    def stale_once(name):
        calls.append(name)
        return "probe-league" if len(calls) == 1 else real(name)

    monkeypatch.setattr(league_leagues, "_unique_slug", stale_once)
    assert found(client, "Probe League!").status_code == 302
    assert League.objects.get(name="Probe League!").slug == "probe-league-2"


# --- existing rows get their keys -----------------------------------------------------------------


@pytest.mark.slow(reason="migrates the database back to an old state and forward again")
def test_the_migration_fills_the_keys_of_existing_rows(transactional_db, catalog):
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    before = [("league", "0005_max_bonus_koban_limit"), ("teams", "0002_refused_teams_leave_their_league")]
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    User = apps.get_model("auth", "User")
    LeagueOld, TeamOld, NinjaOld = (
        apps.get_model(*m) for m in (("league", "League"), ("teams", "Team"), ("teams", "Ninja"))
    )
    Clan, Profile = apps.get_model("rules", "Clan"), apps.get_model("rules", "Profile")
    master = User.objects.create(username="old-master")
    first = LeagueOld.objects.create(name="Probe League", slug="probe-league", master=master)
    LeagueOld.objects.create(name="PROBE LEAGUE", slug="probe-league-2", master=master)
    LeagueOld.objects.create(name="\u200b", slug="blank", master=master)
    clan = Clan.objects.get(slug="tora")
    team = TeamOld.objects.create(name="Tigers", owner=master, clan=clan, league=first)
    TeamOld.objects.create(name="tigers", owner=master, clan=clan, league=first)
    TeamOld.objects.create(name="Tigers", owner=master, clan=clan)  # in no league: left alone
    kaiken = Profile.objects.get(slug="tora-kaiken")
    NinjaOld.objects.create(team=team, profile=kaiken, name="Kage")
    NinjaOld.objects.create(team=team, profile=kaiken, name="KAGE")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    blank = League.objects.get(slug="blank").pk
    assert sorted(League.objects.values_list("name", "name_key")) == [
        (f"League {blank}", f"league {blank}"),
        ("PROBE LEAGUE (2)", "probe league (2)"),
        ("Probe League", "probe league"),
    ]
    assert sorted(Team.objects.values_list("name", "name_key", "league__name"), key=str) == [
        ("Tigers", "tigers", "Probe League"),
        ("Tigers", "tigers", None),
        ("tigers (2)", "tigers (2)", "Probe League"),
    ]
    assert sorted(Ninja.objects.values_list("name", flat=True)) == ["KAGE (2)", "Kage"]


def test_the_text_rules():
    assert text.normalize_name(" a\u00a0\u2003b\u200b\u00ad c ") == "a b c"
    assert text.name_key("ΙNDIGO") == text.name_key("indigo")  # Greek capital iota
    assert text.name_key("Straße") == text.name_key("STRASSE")
    assert text.mixed_script_words("Probe Le\u0430gue") == ["Le\u0430gue"]
    assert text.mixed_script_words("忍者リーグ and 한국 Ninja") == []
    assert text.forbidden_characters("a\tb\x00\u202e") == [
        "U+0009",
        "U+0000",
        "U+202E RIGHT-TO-LEFT OVERRIDE",
    ]
    assert text.forbidden_characters("a\tb\r\n", multiline=True) == []
    assert len(text.name_key("ﬃ" * 200)) == text.KEY_LENGTH
