"""Hostile input to every form of the site: never a server error, nothing written when refused.

Hypothesis posts random and hostile values (huge and negative numbers, unicode, NUL bytes, very
long text, missing fields, several values for one field, ids of other leagues' objects) to each
form as a user who may use it. The client re-raises any server error, so a 500 fails the test
with the example that caused it. When the answer is not a success (a form error, a 4xx, a redirect
after an error message), the fingerprint of every table must be unchanged.
"""

from __future__ import annotations

import os

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.forms import LeagueCreateForm
from league.models import Season
from matches import services as match_services
from matches.models import Match
from rules.models import Challenge, Clan, SpecialAbility
from teams.models import AdvancementRoll, Team
from tests.trust.hostile import HUGE, form_data, hostile, judge, post
from tests.trust.matrix import client_for
from tests.trust.world import World, seed_world
from tests.worlds import shared_world

pytestmark = pytest.mark.usefixtures("catalog")

EXAMPLES = int(os.environ.get("TRUST_EXAMPLES", "20"))  # e.g. TRUST_EXAMPLES=300 for a deep run
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FEWER = settings(FAST, max_examples=max(1, EXAMPLES * 3 // 5))
BAD_IDS = [0, 2**31, 2**63, 10**30]


def seed_hostile_world() -> World:
    w = seed_world()
    # Result entry on a kicked-off match writes nothing else. The open match kicks off as if before
    # team A's roll was earned (a later roll never blocks a match already kicked off): the roll
    # stays pending for the advancement tests.
    AdvancementRoll.objects.filter(pk=w.roll.pk).update(status=AdvancementRoll.Status.CHOSEN)
    match_services.match_kick_off(match=w.open_match)
    AdvancementRoll.objects.filter(pk=w.roll.pk).update(status=AdvancementRoll.Status.PENDING)
    w.open_match.refresh_from_db()
    brawl = Challenge.objects.get(slug="brawl")
    choose = match_services.match_create(teams=[w.team_a, w.team_b], season=w.season)
    Match.objects.filter(pk=choose.pk).update(challenge_chooser=Match.ChallengeChooser.PLAYER1)
    w.extra["choose"] = choose
    w.extra["blank_roll"] = AdvancementRoll.objects.create(ninja=w.ninja_a, level=3, faces=[])
    w.extra["brawl"] = brawl
    return w


#: Built once for the module, rolled back between tests (tests/worlds.py).
world_built, world = shared_world(seed_hostile_world)


def ids(w: World) -> list[int]:
    """Ids of objects of both leagues (and of no one), for any id field."""
    return [
        w.team_a.pk,
        w.team_b.pk,
        w.team_c.pk,
        w.free_team.pk,
        w.league.pk,
        w.other_league.pk,
        w.season.pk,
        w.other_season.pk,
        w.other_match.pk,
        w.ninja_b.pk,
        *BAD_IDS,
    ]


def _check(world, role, url, data, **kw):
    judge(post(client_for(world, role), url, data, **kw), data)


# --- accounts ---------------------------------------------------------------------------------------


@FAST
@given(data=st.data())
def test_signup(world, data):
    fields = {
        "username": hostile("newcomer", "trust-player"),
        "email": hostile("a@example.org", "not-an-email"),
        "password1": hostile("Lantern-Pass-42!"),
        "password2": hostile("Lantern-Pass-42!"),
    }
    _check(world, "anonymous", reverse("signup"), data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_login(world, data):
    fields = {
        "username": hostile("trust-player"),
        "password": hostile("s3cret-Moon-Pass!"),
        "next": hostile("/teams/", "https://evil.example.org/", "//evil.example.org"),
    }
    body = data.draw(form_data(fields))
    posted = post(client_for(world, "anonymous"), reverse("login"), body)
    judge(posted, body)
    assert "evil" not in posted.location


@FAST
@given(data=st.data())
def test_password_change(world, data):
    fields = {
        "old_password": hostile("s3cret-Moon-Pass!"),
        "new_password1": hostile("Another-Pass-42!"),
        "new_password2": hostile("Another-Pass-42!"),
    }
    _check(world, "player", reverse("password_change"), data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_password_reset(world, data):
    fields = {"email": hostile("trust-player@example.org", "nobody@example.org", "not-an-email")}
    _check(world, "anonymous", reverse("password_reset"), data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_email_change(world, data):
    fields = {
        "email": hostile("elsewhere@example.org", "trust-other@example.org"),
        "password": hostile("s3cret-Moon-Pass!", "wrong"),
    }
    _check(world, "player", reverse("email_change"), data.draw(form_data(fields)))


@FAST
@given(token=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/"), min_size=1, max_size=2000))
def test_email_change_confirm(world, token):
    """Any token in the link: refused (400/403), nothing written."""
    from urllib.parse import quote

    url = reverse("email_change_confirm", args=["TOKEN"]).replace("TOKEN", quote(token, safe=""))
    _check(world, "player", url, {})


# --- notifications ----------------------------------------------------------------------------------


@FAST
@given(data=st.data())
def test_notification_settings(world, data):
    from notifications.models import Kind

    fields = {f"{kind}_{how}": hostile("on", "", "false") for kind in Kind.values for how in ("email", "site")}
    fields["unknown_email"] = hostile("on")
    _check(world, "player", reverse("notifications:settings"), data.draw(form_data(fields)))


@FAST
@given(token=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/"), min_size=1, max_size=2000))
def test_notification_unsubscribe(world, token):
    """Any token in the link: refused (400), nothing written; by anyone, signed in or not."""
    from urllib.parse import quote

    url = reverse("notifications:unsubscribe", args=["TOKEN"]).replace("TOKEN", quote(token, safe=""))
    _check(world, "anonymous", url, {"List-Unsubscribe": "One-Click"})
    _check(world, "other_player", url, {})


# --- teams ------------------------------------------------------------------------------------------


@FAST
@given(data=st.data())
def test_team_create(world, data):
    clans = list(Clan.objects.values_list("pk", flat=True))
    fields = {"name": hostile("New Moon"), "clan": hostile(*clans, *BAD_IDS), "league": hostile("", *ids(world))}
    _check(world, "player", reverse("teams:create"), data.draw(form_data(fields)))


@FAST
@given(data=st.data(), slug=st.sampled_from(["yamazaru-chunin", "yamazaru-kaiken", "yamazaru-son-goku", "tora-oni"]))
def test_recruit(world, data, slug):
    abilities = list(SpecialAbility.objects.values_list("pk", flat=True)[:40])
    mine = list(SpecialAbility.objects.filter(profile__slug=slug).values_list("pk", flat=True))
    fields = {"name": hostile("Cub"), "abilities": hostile(*mine, *abilities[:5], *BAD_IDS)}
    url = reverse("teams:recruit_profile", kwargs={"pk": world.free_team.pk, "slug": slug})
    _check(world, "player", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_ninja_rename(world, data):
    url = reverse("teams:ninja_rename", kwargs={"pk": world.team_a.pk, "ninja_pk": world.ninja_a.pk})
    _check(world, "player", url, data.draw(form_data({"name": hostile("Renamed")})))


@FEWER
@given(data=st.data())
def test_ninja_release_and_ready_with_any_ids(world, data):
    """No fields: only the ids in the URL are the player's to choose."""
    team = data.draw(st.sampled_from([world.team_a.pk, world.team_b.pk, world.team_c.pk, *BAD_IDS]))
    ninja = data.draw(st.sampled_from([world.ninja_a.pk, world.ninja_b.pk, *BAD_IDS]))
    body = data.draw(form_data({"confirm": hostile("yes")}))
    _check(world, "player", reverse("teams:ninja_release", kwargs={"pk": team, "ninja_pk": ninja}), body)
    _check(world, "player", reverse("teams:ready", kwargs={"pk": team}), body)


@FAST
@given(data=st.data())
def test_team_edit(world, data):
    fields = {
        "name": hostile("Tigers", "Squids", "Renamed"),
        "colour_primary": hostile("#1f3a5c", "#000", "red"),
        "colour_secondary": hostile("#f2c14e", ""),
        "no_colours": hostile("on"),
        "motto": hostile("Quiet feet"),
    }
    _check(world, "player", reverse("teams:edit", kwargs={"pk": world.team_a.pk}), data.draw(form_data(fields)))


@FEWER
@given(data=st.data())
def test_team_retire_with_any_ids(world, data):
    """No fields: the team comes from the URL (team A has fixtures: refused; a free team retires)."""
    team = data.draw(st.sampled_from([world.team_a.pk, world.team_b.pk, world.free_team.pk, *BAD_IDS]))
    body = data.draw(form_data({"confirm": hostile("yes")}))
    _check(world, "player", reverse("teams:retire", kwargs={"pk": team}), body)


# --- matches ----------------------------------------------------------------------------------------


def result_fields(match: Match) -> dict:
    fields = {"s1_points": hostile(3, 0, 99, 100), "s2_points": hostile(1, 0)}
    for side in match.sides.all():
        for row in side.roster_snapshot or []:
            nid = row["id"]
            for name in ("played", "hh", "allstar"):
                fields[f"n{nid}_{name}"] = hostile("on")
            for name in ("injuries", "chunin_stuns", "reveals"):
                fields[f"n{nid}_{name}"] = hostile(0, 1, 2, 50, 51)
            fields[f"u{nid}"] = hostile("pay", "release")
            fields[f"d{nid}"] = hostile("Fire", "Void")
    return fields


@FEWER
@given(data=st.data(), draft=st.booleans())
def test_result_entry(world, data, draft):
    """As the player; a draft stores what was typed (only the match row may change)."""
    body = data.draw(form_data(result_fields(world.open_match)))
    if draft:
        body["save_draft"] = "1"
    url = reverse("matches:result", kwargs={"pk": world.open_match.pk})
    posted = post(client_for(world, "player"), url, body, may_write=frozenset({"matches_match"} if draft else ()))
    judge(posted, body)


@pytest.mark.slow(reason="hypothesis draws hostile result records for two roles and two endpoints")
@FEWER
@given(data=st.data(), role=st.sampled_from(["other_player", "master"]))
def test_counter_record_and_settlement(world, data, role):
    """The other side's own record of a submitted result; the master settling a dispute (picking a
    record, or an edited one)."""
    body = data.draw(form_data(result_fields(world.submitted)))
    _check(world, "other_player", reverse("matches:result", kwargs={"pk": world.submitted.pk}), body)
    disputed = world.extra["disputed"]
    fields = {**result_fields(disputed), "pick": hostile("first", "second"), "settle_edited": hostile("1")}
    _check(world, role, reverse("matches:settle", kwargs={"pk": disputed.pk}), data.draw(form_data(fields)))


@FAST
@given(data=st.data(), role=st.sampled_from(["other_player", "master"]))
def test_confirm(world, data, role):
    fields = {"decision": hostile("confirm", "reject"), "reason": hostile("Wrong score")}
    _check(world, role, reverse("matches:confirm", kwargs={"pk": world.submitted.pk}), data.draw(form_data(fields)))


@FAST
@given(data=st.data(), role=st.sampled_from(["other_player", "master"]))
def test_upkeep_decision(world, data, role):
    fields = {f"u{world.extra['upkeep_ronin'].pk}": hostile("pay", "release")}
    _check(
        world,
        role,
        reverse("matches:upkeep", kwargs={"pk": world.extra["upkeep_waits"].pk}),
        data.draw(form_data(fields)),
    )


@FAST
@given(data=st.data())
def test_void(world, data):
    url = reverse("matches:void", kwargs={"pk": world.confirmed.pk})
    _check(world, "master", url, data.draw(form_data({"reason": hostile("Played the wrong challenge")})))


@FAST
@given(data=st.data(), blank=st.booleans())
def test_advancement(world, data, blank):
    roll = world.extra["blank_roll"] if blank else world.roll
    fields = {
        "choice": hostile("attribute:speed", "keyword:Agile", "affinity:Fire"),
        "first": hostile("Fire", "Void"),
        "second": hostile("Water"),
    }
    url = reverse("matches:advancement_choose", kwargs={"roll_pk": roll.pk})
    _check(world, "player", url, data.draw(form_data(fields)))


@FEWER
@given(data=st.data())
def test_kick_off_and_simulate_with_any_ids(world, data):
    pk = data.draw(st.sampled_from([world.open_match.pk, world.extra["choose"].pk, world.other_match.pk, *BAD_IDS]))
    body = data.draw(form_data({"policy": hostile("auto", "pending")}))
    _check(world, "player", reverse("matches:kick_off", kwargs={"pk": pk}), body)
    if "simulation:simulate" in _url_names():
        _check(world, "master", reverse("simulation:simulate", kwargs={"pk": pk}), body)


# --- leagues ----------------------------------------------------------------------------------------


def house_rule_fields() -> dict:
    fields = {}
    for name, form_field in LeagueCreateForm().fields.items():
        choices = [c[0] for c in getattr(form_field, "choices", [])][:6]
        fields[name] = hostile(*(choices or [0, 3, 10, 100, 32767, 32768]))
    return fields


@FAST
@given(data=st.data())
def test_league_create(world, data):
    _check(world, "player", reverse("league:create"), data.draw(form_data(house_rule_fields())))


@FAST
@given(data=st.data())
def test_league_import(world, data):
    """The import page's fields without a file (hostile files: tests/api/test_backup_web.py)."""
    fields = {"name": hostile("Copied"), "slug": hostile("copied"), "confirm": hostile("1"), "upload": hostile("1")}
    _check(world, "player", reverse("exports:league_import"), data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_league_edit(world, data):
    fields = {k: v for k, v in house_rule_fields().items() if k != "name"}
    _check(world, "master", reverse("league:edit", kwargs={"slug": world.league.slug}), data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_league_apply(world, data):
    url = reverse("league:apply", kwargs={"slug": world.league.slug})
    _check(world, "player", url, data.draw(form_data({"team": hostile(*ids(world))})))


@FAST
@given(data=st.data())
def test_invitations(world, data):
    fields = {"days": hostile(1, 7, 365, 366, 0), "max_uses": hostile("", 1, 500, 501)}
    url = reverse("league:invitations", kwargs={"slug": world.league.slug})
    _check(world, "master", url, data.draw(form_data(fields)))


@FEWER
@given(data=st.data(), role=st.sampled_from(["player", "master"]))
def test_invitation_revoke_and_join(world, data, role):
    """The revoke button takes its link from the URL; the join form only a team."""
    pk = data.draw(st.sampled_from([world.extra["invitation"].pk, *BAD_IDS]))
    body = data.draw(form_data({"confirm": hostile("yes")}))
    _check(world, role, reverse("league:invitation_revoke", kwargs={"slug": world.league.slug, "pk": pk}), body)
    url = reverse("league:join", kwargs={"code": world.extra["invitation"].code})
    _check(world, role, url, data.draw(form_data({"team": hostile(*ids(world))})))


@FAST
@given(data=st.data())
def test_applications(world, data):
    fields = {"decision": hostile("accept", "refuse"), "team": hostile(*ids(world))}
    url = reverse("league:applications", kwargs={"slug": world.league.slug})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data(), role=st.sampled_from(["player", "other_player", "master"]))
def test_application_withdraw(world, data, role):
    states = world.extra["team_states"]
    url = reverse("league:application_withdraw", kwargs={"slug": world.league.slug})
    team_ids = [states["pending"].pk, states["refused"].pk, states["withdrawn"].pk, *ids(world)]
    _check(world, role, url, data.draw(form_data({"team": hostile(*team_ids)})))


def season_fields() -> dict:
    return {
        "name": hostile("Season X"),
        "format": hostile(*Season.Format.values),
        "swiss_rounds": hostile(1, 3, 30, 31),
        "playoff_teams": hostile(0, 1, 2, 4, 64, 65),
        "confirm": hostile("on"),
    }


@FAST
@given(data=st.data(), league=st.sampled_from(["lantern", "mist"]))
def test_season_create(world, data, league):
    """Lantern has a running season; Mist is the other master's (they post to their own)."""
    role = "master" if league == "lantern" else "other_master"
    _check(world, role, reverse("league:season_create", kwargs={"slug": league}), data.draw(form_data(season_fields())))


@FAST
@given(data=st.data())
def test_season_rollover(world, data):
    url = reverse("league:season_rollover", kwargs={"slug": world.league.slug, "number": world.season.number})
    _check(world, "master", url, data.draw(form_data(season_fields())))


@FAST
@given(data=st.data(), role=st.sampled_from(["player", "master"]))
def test_fixture_create(world, data, role):
    challenges = list(Challenge.objects.values_list("pk", flat=True)[:3])
    fields = {
        "home": hostile(*ids(world)),
        "away": hostile(*ids(world)),
        "date": hostile("2025-02-30", "2025-03-01", "0000-00-00", "9999-12-31", "1-1-1"),
        "challenge": hostile("", *challenges, *BAD_IDS),
    }
    url = reverse("league:fixture_create", kwargs={"slug": world.league.slug, "number": world.season.number})
    _check(world, role, url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_fixture_challenge(world, data):
    challenges = list(Challenge.objects.values_list("pk", flat=True))
    url = reverse("league:fixture_challenge", kwargs={"pk": world.extra["choose"].pk})
    _check(world, "player", url, data.draw(form_data({"challenge": hostile(*challenges, *BAD_IDS)})))


@FAST
@given(data=st.data())
def test_schedule_generate(world, data):
    """Mist's master asks for Mist's round robin (it can be generated) with any values."""
    challenges = list(Challenge.objects.values_list("pk", flat=True)[:3])
    fields = {
        "kind": hostile("round_robin", "random_weekly", "swiss", "playoff"),
        "round_number": hostile(0, 1, 2, *HUGE[:6]),
        "challenge": hostile("", *challenges, *BAD_IDS),
        "starts_on": hostile(*DATES),
        "deadline": hostile(*DATES),
        "interval_days": hostile(1, 7, 365, 366, *HUGE[:4]),
    }
    url = reverse(
        "league:schedule_generate", kwargs={"slug": world.other_league.slug, "number": world.other_season.number}
    )
    _check(world, "other_master", url, data.draw(form_data(fields)))


DATES = ("2025-02-30", "2026-03-01", "2026-02-01", "0000-00-00", "9999-12-31", "1-1-1", "")


@FAST
@given(data=st.data(), playoff=st.booleans())
def test_round_dates(world, data, playoff):
    name = "league:playoff_round_dates" if playoff else "league:round_dates"
    url = reverse(name, kwargs={"slug": world.league.slug, "number": world.season.number, "round_number": 1})
    _check(world, "master", url, data.draw(form_data({"starts_on": hostile(*DATES), "deadline": hostile(*DATES)})))


@FAST
@given(data=st.data())
def test_fixture_reschedule(world, data):
    fields = {"date": hostile(*DATES), "deadline": hostile(*DATES), "place": hostile("Dojo", "x" * 101, "")}
    url = reverse("league:fixture_reschedule", kwargs={"pk": world.extra["rescheduled"].pk})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_fixture_pairing(world, data):
    fields = {
        "home": hostile(*ids(world)),
        "away": hostile(*ids(world)),
        "confirm": hostile("True", "False", "on", ""),
        "accept_violations": hostile("on", ""),
    }
    url = reverse("league:fixture_pairing", kwargs={"pk": world.extra["rescheduled"].pk})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_fixture_forfeit(world, data):
    fields = {
        "forfeiting": hostile(world.team_a.pk, world.team_b.pk, "both", *ids(world)),
        "reason": hostile("No-show", "x" * 201, ""),
    }
    url = reverse("league:fixture_forfeit", kwargs={"pk": world.extra["rescheduled"].pk})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_table_dropout(world, data):
    """A Kage table's drop-out (issue 28, part 4): any player, any time, any choice, confirmed or not."""
    players = [t.pk for t in world.extra["kage_players"]]
    fields = {
        "player": hostile(*players, *ids(world)),
        "when": hostile("before", "during", "after", ""),
        "below_minimum": hostile("replay", "dissolve", "both", ""),
        "confirm": hostile("True", "False", "on", ""),
    }
    url = reverse("league:table_dropout", kwargs={"pk": world.extra["kage_round_table"].pk})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_table_dropout_undo(world, data):
    """A drop-out undone (issue 28, part 4): any player, confirmed or not, at a table nobody or
    somebody dropped out of."""
    players = [t.pk for t in world.extra["kage_players"]]
    fields = {"player": hostile(*players, *ids(world)), "confirm": hostile("True", "False", "on", "")}
    for table in ("kage_round_table", "kage_open"):
        url = reverse("league:table_dropout_undo", kwargs={"pk": world.extra[table].pk})
        _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_round_seating(world, data):
    """Moving players between a round's tables (issue 28, part 4): any table for anyone, or none."""
    table = world.extra["kage_round_table"]
    other = world.extra["kage_open"]
    fields = {f"seat_{side.team_id}": hostile(table.pk, other.pk, *ids(world)) for side in table.sides.all()}
    fields["confirm"] = hostile("True", "False", "on", "")
    season = world.extra["kage_tables_season"]
    url = reverse(
        "league:round_seating", kwargs={"slug": season.league.slug, "number": season.number, "round_number": 1}
    )
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_kage_table_arrange(world, data):
    """A self-arranged Kage table (issue 28, part 4): 0 to 6 players ticked, anyone's entry."""
    players = [t.pk for t in world.extra["kage_players"]]
    fields = {
        "home": hostile(*players, *ids(world)),
        "others": hostile(players[1], players[2], *ids(world)),
        "date": hostile(*DATES),
    }
    season = world.extra["kage_season"]
    url = reverse("league:fixture_create", kwargs={"slug": season.league.slug, "number": season.number})
    _check(world, "player", url, data.draw(form_data(fields)))


@FEWER
@given(data=st.data())
def test_playoffs_and_season_simulation(world, data):
    body = data.draw(form_data({"policy": hostile("auto", "pending"), "max_rounds": hostile(1, 200, 201)}))
    kwargs = {"slug": world.other_league.slug, "number": world.other_season.number}
    _check(world, "other_master", reverse("league:playoffs_advance", kwargs=kwargs), body)
    for name in ("simulation:simulate_round", "simulation:simulate_season", "simulation:simulate_regular_season"):
        if name in _url_names():
            _check(world, "other_master", reverse(name, kwargs=kwargs), body)


@FEWER
@given(data=st.data())
def test_balance_study_start(world, data):
    """A league's master asks for a balance study: games a cell and policy levels, both bounded."""
    body = data.draw(
        form_data({"games": hostile(1, 0, -1, 201, 10**12), "levels": hostile("cautious", "aggressive", "reckless")})
    )
    _check(world, "other_master", reverse("simulation:balance_study_start"), body)


# --- newsletters ------------------------------------------------------------------------------------


def _url_names() -> set[str]:
    from tests.trust.urlconf import named_urls

    return {u.name for u in named_urls()}


@FAST
@given(data=st.data())
def test_newsletter_build(world, data):
    fields = {"period": hostile("2025-w07", "2025-w53", "2025-w00", "season-1-round-1", "season-9-round-99", "x")}
    url = reverse("newsletters:build", kwargs={"league_slug": world.league.slug})
    _check(world, "master", url, data.draw(form_data(fields)))


@FAST
@given(data=st.data())
def test_newsletter_edit(world, data):
    fields = {
        "title": hostile("Week 7"),
        "editorial": hostile("**bold** [x](javascript:alert(1))"),
        "preview": hostile("Preview"),
        "save": hostile("Save"),
    }
    url = reverse("newsletters:edit", kwargs={"league_slug": world.league.slug, "key": world.extra["draft"].period_key})
    _check(world, "master", url, data.draw(form_data(fields)))


@FEWER
@given(data=st.data())
def test_newsletter_publish(world, data):
    url = reverse(
        "newsletters:publish", kwargs={"league_slug": world.league.slug, "key": world.extra["draft"].period_key}
    )
    _check(world, "master", url, data.draw(form_data({"send_email": hostile("on", "")})))


# --- every form is covered ---------------------------------------------------------------------------

POSTED_HERE = {
    "signup",
    "password_reset",
    "email_change",
    "email_change_confirm",
    "login",
    "password_change",
    "teams:create",
    "teams:recruit_profile",
    "teams:ninja_rename",
    "teams:ninja_release",
    "teams:ready",
    "teams:edit",
    "teams:retire",
    "league:invitations",
    "league:invitation_revoke",
    "league:join",
    "matches:result",
    "matches:confirm",
    "matches:upkeep",
    "matches:settle",
    "matches:void",
    "matches:advancement_choose",
    "matches:kick_off",
    "simulation:simulate",
    "simulation:simulate_round",
    "simulation:simulate_season",
    "simulation:simulate_regular_season",
    "simulation:balance_study_start",
    "league:create",
    "exports:league_import",
    "league:edit",
    "league:apply",
    "league:applications",
    "league:application_withdraw",
    "league:season_create",
    "league:season_rollover",
    "league:fixture_create",
    "league:fixture_challenge",
    "league:schedule_generate",
    "league:playoffs_advance",
    "league:round_dates",
    "league:playoff_round_dates",
    "league:fixture_reschedule",
    "league:fixture_pairing",
    "league:fixture_forfeit",
    "league:table_dropout",
    "league:table_dropout_undo",
    "league:round_seating",
    "newsletters:build",
    "newsletters:edit",
    "newsletters:publish",
    "notifications:settings",
    "notifications:unsubscribe",
}


def _api_writes() -> set[str]:
    """The API's writes get hostile JSON in tests/api/test_hostile.py."""
    from tests.api.test_hostile import WRITE_NAMES

    return set(WRITE_NAMES)


def test_every_form_is_fuzzed():
    """Every URL the matrix lets someone POST to (with effect) is posted to by a test above, or is
    a button without fields whose ids come from the URL (rebuild, logout, resend emails)."""
    from tests.trust.matrix import READ_ONLY, RULES

    buttons = {
        "logout",
        "newsletters:rebuild",
        "newsletters:detail",
        "newsletters:status",
        "newsletters:deliveries",
        "teams:recruit",
        "data:token",  # make or revoke a token: no field but the button's name
        "league:fixture_replay",
        "notifications:read",  # mark one read: its id comes from the URL
        "notifications:read_all",
    }
    posting = {name for name, cases in RULES.items() if any(c.post not in (None, READ_ONLY) for c in cases)}
    missing = posting - POSTED_HERE - _api_writes() - buttons
    assert not missing, f"forms without a hostile-input test: {sorted(missing)}"


# --- user text is escaped ---------------------------------------------------------------------------

SCRIPT = '<script>alert("moon")</script>'
IMG = "<img src=x onerror=alert(1)>"


def test_league_name_and_description_are_escaped(world):
    from league import services as league_services

    league = league_services.league_create(
        master=world.users["player"], name=f"Evil {SCRIPT}", description=f"About {IMG}"
    )
    league_services.season_create(
        league=league, name=f"S {SCRIPT}", format=Season.Format.ROUND_ROBIN, swiss_rounds=None, playoff_teams=0
    )
    client = client_for(world, "anonymous")
    pages = [
        reverse("home"),
        reverse("league:list"),
        league.get_absolute_url(),
        reverse("league:season_detail", kwargs={"slug": league.slug, "number": 1}),
        reverse("league:season_fixtures", kwargs={"slug": league.slug, "number": 1}),
    ]
    for url in pages:
        body = client.get(url).content.decode()
        assert SCRIPT not in body and IMG not in body, url
        assert "&lt;script&gt;" in body, url


def test_team_and_ninja_names_are_escaped_on_match_pages(world):
    Team.objects.filter(pk=world.team_a.pk).update(name=f"Tigers {SCRIPT}")
    world.ninja_a.name = f"Kage {IMG}"
    world.ninja_a.save(update_fields=["name"])
    client = client_for(world, "anonymous")
    for url in (
        reverse("matches:detail", kwargs={"pk": world.open_match.pk}),
        reverse("matches:presheet", kwargs={"pk": world.open_match.pk}),
        reverse("league:season_detail", kwargs={"slug": world.league.slug, "number": 1}),
        reverse("teams:detail", kwargs={"pk": world.team_a.pk}),
    ):
        body = client.get(url).content.decode()
        assert SCRIPT not in body and IMG not in body, url


def test_newsletter_editorial_markdown_is_sanitized(world):
    draft = world.extra["draft"]
    client = client_for(world, "master")
    editorial = f"Hello **players**\n\n{SCRIPT}\n\n[click](javascript:alert(1)) {IMG}"
    url = reverse("newsletters:edit", kwargs={"league_slug": world.league.slug, "key": draft.period_key})
    resp = client.post(url, {"title": f"Week {SCRIPT}", "editorial": editorial, "save": "Save"})
    assert resp.status_code == 302
    body = client.get(draft.get_absolute_url()).content.decode()
    assert "<strong>players</strong>" in body
    assert SCRIPT not in body and "javascript:alert" not in body and "onerror" not in body


def test_result_draft_stores_only_the_form_fields(world):
    """A draft once stored every posted key: NUL bytes broke PostgreSQL (500), and a posted
    "rejected_record" key made the page claim the result had been rejected."""
    client = client_for(world, "player")
    url = reverse("matches:result", kwargs={"pk": world.open_match.pk})
    resp = client.post(
        url, {"save_draft": "1", "s1_points": "4\x00", "rejected_record": "x", "reason": "forged", "junk": "y" * 5000}
    )
    assert resp.status_code == 302
    world.open_match.refresh_from_db()
    assert world.open_match.result_draft == {"s1_points": "4"}
    page = client.get(url)
    assert page.status_code == 200 and b"forged" not in page.content and b"rejected" not in page.content


@pytest.mark.parametrize("value", [0, 2**31, 10**30])
def test_unknown_and_huge_ids_in_every_url(world, value):
    """Every named URL of the site with arguments, given ids and slugs of nothing: 404 (or a
    refusal), never a server error, nothing written. (The admin has its own tests in Django.)"""
    from django.urls.converters import IntConverter

    from tests.trust.matrix import request
    from tests.trust.urlconf import named_urls

    clients = {role: client_for(world, role) for role in ("anonymous", "master")}
    failures = []
    for url in named_urls():
        if not url.converters or url.name.startswith("admin:"):
            continue
        kwargs = {k: (value if isinstance(c, IntConverter) else f"nothing-{value}") for k, c in url.converters}
        path = reverse(url.name, kwargs=kwargs)
        for role, client in clients.items():
            for method in ("GET", "POST"):
                outcome = request(client, method, path, {})
                if outcome.error or outcome.status >= 500 or outcome.written:
                    failures.append(f"{method} {path} as {role}: {outcome} {outcome.written}")
    assert not failures, "\n".join(failures)
