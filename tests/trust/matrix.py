"""The permission matrix: who may GET and POST every named URL of the site.

``RULES`` maps every URL name (outside the admin) to one or more cases. A case says how to build
the URL's arguments from the seeded world (tests/trust/world.py), which roles may GET it, which
may POST to it, and what a POST sends. ``check_case`` makes the requests and raises
AssertionError listing every broken promise:

* an allowed role gets an answer that is not a refusal (200, or a redirect that is not to log in),
  never 403, 404, 405 or a server error;
* a refused role gets 403, or (anonymous) a redirect to log in, never a server error, and the
  request writes nothing (the fingerprint of every table is unchanged);
* ``get=None`` / ``post=None``: the page has no such method (405; anonymous may be sent to log in
  first). ``post=READ_ONLY``: a page without a form; a POST by anyone writes nothing.

Every request runs inside a transaction that is rolled back afterwards, so an allowed POST (a
release, a rollover) leaves the world as seeded for the next role.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.shortcuts import resolve_url
from django.test import Client, RequestFactory
from django.urls import reverse

from rules.models import Challenge
from tests.trust.world import ROLES, World, Written, watch_writes

ANY = frozenset(ROLES)
MEMBERS = ANY - {"anonymous"}
NOBODY: frozenset[str] = frozenset()
TEAM_A = frozenset({"player", "master"})  # team A's owner and its league's master
IN_MATCH = frozenset({"player", "other_player", "master"})
MASTER = frozenset({"master"})
READ_ONLY = "read-only"


@dataclass(frozen=True)
class Case:
    kwargs: Callable[[World], dict]
    get: frozenset[str] | None
    post: frozenset[str] | str | None = READ_ONLY
    data: Callable[[World], dict] = lambda w: {}
    label: str = ""


def _public(kwargs=lambda w: {}, label: str = "") -> Case:
    return Case(kwargs=kwargs, get=ANY, post=READ_ONLY, label=label)


def _league(w: World) -> dict:
    return {"slug": w.league.slug}


def _season(w: World) -> dict:
    return {"slug": w.league.slug, "number": w.season.number}


def _extra(name: str) -> Callable[[World], dict]:
    """A match of ``world.extra`` (the other games' fixtures: tests/trust/world.py)."""
    return lambda w: {"pk": w.extra[name].pk}


def _ninjutsu_season(w: World) -> dict:
    return {"slug": w.extra["ninjutsu_league"].slug, "number": w.extra["ninjutsu_season"].number}


#: A Ninjutsu result as its phone form posts it (matches.game_forms.NinjutsuResultForm).
NINJUTSU_FORM = {
    "winner": "1",
    "ending": "soke_attacked",
    "card": "jump",
    "starter": "2",
    "colour_1": "Red",
    "colour_2": "Black",
    "ninjas_left_1": "4",
    "ninjas_left_2": "0",
}


#: A Kage Masters table of three as its phone form posts it (matches.game_forms.KageMastersResultForm).
KAGE_FORM = {
    **{f"kage_master_{slot}": master for slot, master in ((1, "Spy"), (2, "Assassin"), (3, "Firebrand"))},
    **{f"coins_{slot}": coins for slot, coins in ((1, "9"), (2, "6"), (3, "12"))},
    **{f"rewards_{slot}": "1" for slot in (1, 2, 3)},
    **{f"seat_{slot}": str(slot) for slot in (1, 2, 3)},
}


def _fixture_state(state: str) -> Callable[[World], dict]:
    """A fixture of L in a state of the round life cycle (tests/trust/world.py)."""
    named = {"scheduled": "open_match", "submitted": "submitted", "confirmed": "confirmed"}
    if state in named:
        return lambda w: {"pk": getattr(w, named[state]).pk}
    return lambda w: {"pk": w.extra[state].pk}


def _email_change_token(w: World) -> dict:
    """A link changing the player's email address (teams.accounts), as the mail would carry it."""
    from django.core import signing

    from teams.accounts import EMAIL_CHANGE_SALT

    user = w.user("player")
    token = signing.dumps({"u": user.pk, "e": "elsewhere@example.org", "o": user.email or ""}, salt=EMAIL_CHANGE_SALT)
    return {"token": token}


def _team(w: World) -> dict:
    return {"pk": w.team_a.pk}


#: Team states of issue 11, finding 1: who manages a team of trust-other's in each state. Only
#: entry in a running season gives L's master rights; an application, a refusal, a withdrawal or a
#: finished season give none. (Team A, entered too, is covered by each URL's first case.)
TEAM_STATES = {
    "pending": frozenset({"other_player"}),
    "refused": frozenset({"other_player"}),
    "withdrawn": frozenset({"other_player"}),
    "finished": frozenset({"other_player"}),
    "entered": frozenset({"other_player", "master"}),
}


def _state_team(state: str) -> Callable[[World], dict]:
    return lambda w: {"pk": w.extra["team_states"][state].pk}


def _state_ninja(state: str) -> Callable[[World], dict]:
    return lambda w: {"pk": w.extra["team_states"][state].pk, "ninja_pk": w.extra["state_ninjas"][state].pk}


def _state_profile(state: str) -> Callable[[World], dict]:
    def kwargs(w: World) -> dict:
        team = w.extra["team_states"][state]
        return {"pk": team.pk, "slug": f"{team.clan.slug}-kaiken"}

    return kwargs


def team_state_cases(name: str) -> list[Case]:
    """The cases of one team-management URL for every team state of TEAM_STATES."""
    cases = []
    for state, allowed in TEAM_STATES.items():
        label = f"team {state}"
        if name == "teams:recruit":
            cases.append(Case(kwargs=_state_team(state), get=allowed, post=allowed, label=label))
        elif name == "teams:recruit_profile":
            cases.append(
                Case(
                    kwargs=_state_profile(state), get=allowed, post=allowed, data=lambda w: {"name": "Spy"}, label=label
                )
            )
        elif name == "teams:ninja_release":
            cases.append(Case(kwargs=_state_ninja(state), get=allowed, post=allowed, label=label))
        elif name == "teams:ninja_rename":
            cases.append(
                Case(
                    kwargs=_state_ninja(state), get=allowed, post=allowed, data=lambda w: {"name": "Taken"}, label=label
                )
            )
        elif name == "teams:ready":
            cases.append(Case(kwargs=_state_team(state), get=None, post=allowed, label=label))
        elif name == "teams:edit":  # the owner alone, whatever the state (never the master)
            owner = frozenset({"other_player"})
            cases.append(
                Case(kwargs=_state_team(state), get=owner, post=owner, data=lambda w: {"name": "Renamed"}, label=label)
            )
        elif name == "teams:retire":
            owner = frozenset({"other_player"})
            cases.append(Case(kwargs=_state_team(state), get=owner, post=owner, label=label))
        else:
            raise ValueError(name)
    return cases


def _brawl() -> int:
    return Challenge.objects.get(slug="brawl").pk


def initial_data(form, **overrides) -> dict:
    """POST data a browser would send for an unbound form left as it is, with ``overrides``."""
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue
        if isinstance(value, (list, tuple)):
            data[name] = [str(v) for v in value]
        else:
            data[name] = "on" if value is True else str(value)
    data.update(overrides)
    return data


def _house_rules(w: World, **overrides) -> dict:
    from league.forms import HouseRulesForm

    return initial_data(HouseRulesForm(instance=w.league), **overrides)


def _new_league(w: World) -> dict:
    from league.forms import LeagueCreateForm

    return initial_data(LeagueCreateForm(), name="Another League", description="")


def _newsletter(key: str) -> Callable[[World], dict]:
    return lambda w: {"league_slug": w.league.slug, "key": w.extra[key].period_key}


def _unsubscribe(w: World) -> dict:
    from notifications.tokens import make_token

    return {"token": make_token(user_id=w.users["player"].pk, kind="result")}


RULES: dict[str, list[Case]] = {
    # --- site and accounts
    "home": [_public()],
    "healthz": [_public()],
    "signup": [
        Case(
            kwargs=lambda w: {},
            get=ANY,
            post=ANY,
            data=lambda w: {
                "username": "newcomer",
                "email": "",
                "password1": "Lantern-Pass-42!",
                "password2": "Lantern-Pass-42!",
            },
        )
    ],
    "login": [
        Case(kwargs=lambda w: {}, get=ANY, post=ANY, data=lambda w: {"username": "trust-player", "password": "x"})
    ],
    "logout": [Case(kwargs=lambda w: {}, get=None, post=ANY)],
    "password_change": [
        Case(
            kwargs=lambda w: {},
            get=MEMBERS,
            post=MEMBERS,
            data=lambda w: {
                "old_password": "wrong",
                "new_password1": "Another-Pass-42!",
                "new_password2": "Another-Pass-42!",
            },
        )
    ],
    "password_change_done": [Case(kwargs=lambda w: {}, get=MEMBERS, post=None)],
    "account": [Case(kwargs=lambda w: {}, get=MEMBERS, post=READ_ONLY)],
    "password_reset": [Case(kwargs=lambda w: {}, get=ANY, post=ANY, data=lambda w: {"email": "nobody@example.org"})],
    "password_reset_done": [Case(kwargs=lambda w: {}, get=ANY, post=None)],
    "password_reset_confirm": [Case(kwargs=lambda w: {"uidb64": "MQ", "token": "set-password"}, get=ANY)],
    "password_reset_complete": [Case(kwargs=lambda w: {}, get=ANY, post=None)],
    "email_change": [
        Case(
            kwargs=lambda w: {},
            get=MEMBERS,
            post=MEMBERS,
            data=lambda w: {"email": "elsewhere@example.org", "password": "wrong"},
        )
    ],
    # the player's own link: only the player may open and apply it (forged links: tests/teams/test_accounts.py)
    "email_change_confirm": [Case(kwargs=_email_change_token, get=frozenset({"player"}), post=frozenset({"player"}))],
    # --- rules reference (public)
    "rules:index": [_public()],
    "rules:clan": [_public(lambda w: {"slug": "tora"})],
    "rules:ronin": [_public()],
    "rules:keywords": [_public()],
    "rules:challenges": [_public()],
    "rules:status_effects": [_public()],
    "rules:tables": [_public()],
    "rules:odds": [_public()],
    "rules:ninjutsu_odds": [_public()],
    "rules:ninjutsu": [_public()],
    "rules:kage_masters": [_public()],
    # --- teams
    "teams:list": [_public()],
    "teams:create": [
        Case(
            kwargs=lambda w: {},
            get=MEMBERS,
            post=MEMBERS,
            data=lambda w: {"name": "Brand New", "clan": w.team_a.clan_id, "league": ""},
        )
    ],
    "teams:detail": [_public(_team)],
    "teams:ledger": [_public(_team)],
    "teams:recruit": [Case(kwargs=_team, get=TEAM_A, post=TEAM_A), *team_state_cases("teams:recruit")],
    "teams:recruit_profile": [
        Case(
            kwargs=lambda w: {"pk": w.team_a.pk, "slug": "tora-kaiken"},
            get=TEAM_A,
            post=TEAM_A,
            data=lambda w: {"name": "Cub"},
        ),
        *team_state_cases("teams:recruit_profile"),
    ],
    "teams:ninja_release": [
        Case(kwargs=lambda w: {"pk": w.team_a.pk, "ninja_pk": w.ninja_a.pk}, get=TEAM_A, post=TEAM_A),
        *team_state_cases("teams:ninja_release"),
    ],
    "teams:ninja_rename": [
        Case(
            kwargs=lambda w: {"pk": w.team_a.pk, "ninja_pk": w.ninja_a.pk},
            get=TEAM_A,
            post=TEAM_A,
            data=lambda w: {"name": "Renamed"},
        ),
        *team_state_cases("teams:ninja_rename"),
    ],
    "teams:ready": [Case(kwargs=_team, get=None, post=TEAM_A), *team_state_cases("teams:ready")],
    # a team's name, colours, motto and retirement: its player's alone (issue 14)
    "teams:edit": [
        Case(
            kwargs=_team,
            get=frozenset({"player"}),
            post=frozenset({"player"}),
            data=lambda w: {"name": "Tigers", "colour_primary": "#1f3a5c", "colour_secondary": "#f2c14e"},
        ),
        *team_state_cases("teams:edit"),
    ],
    # team A has fixtures in a running season: the player's POST is answered with the reason
    "teams:retire": [
        Case(kwargs=_team, get=frozenset({"player"}), post=frozenset({"player"})),
        *team_state_cases("teams:retire"),
    ],
    # --- matches
    "matches:detail": [
        _public(lambda w: {"pk": w.confirmed.pk}, "confirmed"),
        _public(lambda w: {"pk": w.open_match.pk}, "scheduled"),
        _public(_fixture_state("forfeited"), "forfeited"),
        _public(_fixture_state("rescheduled"), "rescheduled"),
        _public(_fixture_state("voided"), "voided"),
        _public(lambda w: {"pk": w.submitted.pk}, "submitted"),
        _public(lambda w: {"pk": w.extra["disputed"].pk}, "disputed"),
        *(_public(_extra(f"ninjutsu_{state}"), f"ninjutsu {state}") for state in ("open", "submitted", "disputed")),
        *(_public(_extra(f"kage_{state}"), f"kage table {state}") for state in ("open", "submitted")),
    ],
    "matches:presheet": [
        _public(lambda w: {"pk": w.open_match.pk}, "before kick-off"),
        _public(lambda w: {"pk": w.confirmed.pk}, "after kick-off"),
    ],
    "matches:kick_off": [Case(kwargs=lambda w: {"pk": w.open_match.pk}, get=None, post=IN_MATCH)],
    "matches:result": [
        Case(
            kwargs=lambda w: {"pk": w.open_match.pk},
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {"save_draft": "1", "s1_points": "2"},
            label="draft",
        ),
        Case(
            kwargs=lambda w: {"pk": w.open_match.pk},
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {"s1_points": "2", "s2_points": "1"},
            label="submit",
        ),
        # Submitted: the other side may enter his own record (the others are sent to the match).
        Case(
            kwargs=lambda w: {"pk": w.submitted.pk},
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {"s1_points": "2", "s2_points": "1", "submit_result": "1"},
            label="submitted",
        ),
        Case(
            kwargs=lambda w: {"pk": w.extra["disputed"].pk},
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {"s1_points": "2", "s2_points": "1", "submit_result": "1"},
            label="disputed",
        ),
        # A Ninjutsu game (issue 17): its players enter it on the game's own form, no kick-off first.
        Case(
            kwargs=_extra("ninjutsu_open"), get=IN_MATCH, post=IN_MATCH, data=lambda w: NINJUTSU_FORM, label="ninjutsu"
        ),
        Case(
            kwargs=_extra("ninjutsu_submitted"),
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {**NINJUTSU_FORM, "winner": "2"},
            label="ninjutsu submitted",
        ),
        # A Kage Masters table: any of its three players (or the master) enters it; the third
        # player, trust-stranger, is in no role here, so every other member is refused.
        Case(kwargs=_extra("kage_open"), get=IN_MATCH, post=IN_MATCH, data=lambda w: KAGE_FORM, label="kage table"),
    ],
    "matches:settle": [
        Case(
            kwargs=lambda w: {"pk": w.extra["disputed"].pk}, get=MASTER, post=MASTER, data=lambda w: {"pick": "first"}
        ),
        Case(
            kwargs=lambda w: {"pk": w.extra["disputed"].pk},
            get=MASTER,
            post=MASTER,
            data=lambda w: {"s1_points": "2", "s2_points": "1", "settle_edited": "1"},
            label="edited",
        ),
        Case(
            kwargs=lambda w: {"pk": w.submitted.pk},
            get=MASTER,
            post=MASTER,
            data=lambda w: {"pick": "first"},
            label="submitted",
        ),
        Case(
            kwargs=_extra("ninjutsu_disputed"),
            get=MASTER,
            post=MASTER,
            data=lambda w: {"pick": "second"},
            label="ninjutsu disputed",
        ),
    ],
    "matches:upkeep": [
        Case(
            kwargs=_extra("upkeep_waits"),
            get=None,
            post=frozenset({"other_player", "master"}),
            data=lambda w: {f"u{w.extra['upkeep_ronin'].pk}": "release"},
            label="the owner decides",
        ),
        Case(
            kwargs=lambda w: {"pk": w.submitted.pk},
            get=None,
            post=NOBODY,
            data=lambda w: {},
            label="nothing waits",
        ),
    ],
    "matches:confirm": [
        Case(
            kwargs=lambda w: {"pk": w.submitted.pk},
            get=None,
            post=frozenset({"other_player", "master"}),
            data=lambda w: {"decision": "confirm"},
            label="confirm",
        ),
        Case(
            kwargs=lambda w: {"pk": w.submitted.pk},
            get=None,
            post=frozenset({"other_player", "master"}),
            data=lambda w: {"decision": "reject", "reason": "no"},
            label="reject",
        ),
        Case(
            kwargs=lambda w: {"pk": w.extra["disputed"].pk},
            get=None,
            post=IN_MATCH,
            data=lambda w: {"decision": "confirm"},
            label="disputed",
        ),
        Case(
            kwargs=_extra("ninjutsu_submitted"),
            get=None,
            post=frozenset({"other_player", "master"}),
            data=lambda w: {"decision": "confirm"},
            label="ninjutsu confirm",
        ),
        # Another player at the table or the master confirms; the one who entered it may not.
        Case(
            kwargs=_extra("kage_submitted"),
            get=None,
            post=frozenset({"other_player", "master"}),
            data=lambda w: {"decision": "confirm"},
            label="kage table confirm",
        ),
    ],
    "matches:void": [
        Case(
            kwargs=lambda w: {"pk": w.confirmed.pk},
            get=MASTER,
            post=MASTER,
            data=lambda w: {"reason": "Played the wrong challenge"},
        )
    ],
    "simulation:simulate": [
        Case(kwargs=lambda w: {"pk": w.open_match.pk}, get=None, post=MASTER, data=lambda w: {"policy": "auto"})
    ],
    "simulation:simulate_round": [Case(kwargs=_season, get=None, post=MASTER, data=lambda w: {"policy": "auto"})],
    "simulation:simulate_season": [Case(kwargs=_season, get=None, post=MASTER, data=lambda w: {"policy": "auto"})],
    "simulation:simulate_regular_season": [
        Case(kwargs=_season, get=None, post=MASTER, data=lambda w: {"policy": "auto"})
    ],
    "simulation:simulation_job": [_public(lambda w: {"pk": w.extra["simulation"].pk})],
    "simulation:simulation_status": [_public(lambda w: {"task_id": w.extra["simulation"].task_id})],
    "simulation:balance_study": [_public()],
    "simulation:balance_study_start": [
        Case(
            kwargs=lambda w: {},
            get=None,
            post=frozenset({"master", "other_master"}),  # any league's master
            data=lambda w: {"games": 1, "levels": ["cautious"]},
        )
    ],
    "simulation:balance_study_status": [_public(lambda w: {"pk": w.extra["balance_study"].pk})],
    "matches:advancement_choose": [
        Case(
            kwargs=lambda w: {"roll_pk": w.roll.pk},
            get=TEAM_A,
            post=TEAM_A,
            data=lambda w: {"choice": "attribute:speed"},
        )
    ],
    # --- leagues
    "league:list": [_public()],
    "league:create": [Case(kwargs=lambda w: {}, get=MEMBERS, post=MEMBERS, data=_new_league)],
    "league:detail": [
        _public(_league),
        _public(lambda w: {"slug": w.other_league.slug}, "other league"),
        _public(lambda w: {"slug": w.extra["ninjutsu_league"].slug}, "ninjutsu league"),
    ],
    "league:edit": [
        Case(
            kwargs=_league,
            get=MASTER,
            post=MASTER,
            data=lambda w: _house_rules(w, description="Rewritten by whoever got in"),
        )
    ],
    "league:apply": [
        Case(kwargs=_league, get=MEMBERS, post=MEMBERS, data=lambda w: {"team": w.free_team.pk}),
        # A players' league: a member joins as himself, under a display name (issue 17).
        Case(
            kwargs=lambda w: {"slug": w.extra["ninjutsu_league"].slug},
            get=MEMBERS,
            post=MEMBERS,
            data=lambda w: {"display_name": "Night Owl"},
            label="ninjutsu league",
        ),
    ],
    "league:applications": [
        Case(kwargs=_league, get=MASTER, post=MASTER, data=lambda w: {"decision": "refuse", "team": w.team_b.pk})
    ],
    "league:invitations": [Case(kwargs=_league, get=MASTER, post=MASTER, data=lambda w: {"days": "7"})],
    "league:invitation_revoke": [
        Case(
            kwargs=lambda w: {"slug": w.league.slug, "pk": w.extra["invitation"].pk},
            get=None,
            post=MASTER,
        )
    ],
    # any signed-in player opens a link and applies with a team of his (the master decides later)
    "league:join": [
        Case(
            kwargs=lambda w: {"code": w.extra["invitation"].code},
            get=MEMBERS,
            post=MEMBERS,
            data=lambda w: {"team": w.free_team.pk},
        )
    ],
    "league:application_withdraw": [
        Case(
            kwargs=_league,
            get=None,
            post=frozenset({"other_player"}),
            data=lambda w: {"team": w.extra["team_states"]["pending"].pk},
            label="pending application",
        )
    ],
    "league:season_create": [
        Case(
            kwargs=_league,
            get=MASTER,
            post=MASTER,
            data=lambda w: {"name": "", "format": "round_robin", "playoff_teams": "0"},
        )
    ],
    "league:season_detail": [_public(_season), _public(_ninjutsu_season, "ninjutsu season")],
    "league:season_fixtures": [_public(_season), _public(_ninjutsu_season, "ninjutsu season")],
    "league:season_desk": [Case(kwargs=_season, get=MASTER, post=None)],
    "league:season_bracket": [_public(_season)],
    "league:fixture_create": [
        Case(kwargs=_season, get=IN_MATCH, post=IN_MATCH, data=lambda w: {"home": w.team_a.pk, "away": w.team_b.pk}),
        # a self-arranged Kage table of 3 (issue 28, part 4): a player of the season, or the master
        Case(
            kwargs=lambda w: {"slug": w.extra["kage_league"].slug, "number": w.extra["kage_season"].number},
            get=IN_MATCH,
            post=IN_MATCH,
            data=lambda w: {
                "home": w.extra["kage_players"][0].pk,
                "others": [t.pk for t in w.extra["kage_players"][1:]],
            },
            label="kage table",
        ),
    ],
    "league:schedule_generate": [
        Case(kwargs=_season, get=None, post=MASTER, data=lambda w: {"kind": "round_robin", "round_number": "0"})
    ],
    "league:playoffs_advance": [Case(kwargs=_season, get=None, post=MASTER)],
    "league:season_rollover": [
        Case(
            kwargs=_season,
            get=MASTER,
            post=MASTER,
            data=lambda w: {"name": "Lantern 2", "format": "self_arranged", "playoff_teams": "0", "confirm": "on"},
        )
    ],
    "league:schedule_run": [_public(lambda w: {"pk": w.run.pk})],
    "league:task_status": [_public(lambda w: {"task_id": w.run.task_id})],
    "league:fixture_challenge": [
        Case(kwargs=lambda w: {"pk": w.open_match.pk}, get=TEAM_A, post=TEAM_A, data=lambda w: {"challenge": _brawl()})
    ],
    # --- the round life cycle (issue 13): every URL in every fixture state it can meet
    "league:round_dates": [
        Case(
            kwargs=lambda w: {**_season(w), "round_number": 1},
            get=MASTER,
            post=MASTER,
            data=lambda w: {"starts_on": "2026-04-01", "deadline": "2026-04-08"},
        )
    ],
    "league:playoff_round_dates": [
        Case(kwargs=lambda w: {**_season(w), "round_number": 1}, get=MASTER, post=MASTER, data=lambda w: {})
    ],
    **{
        name: [
            Case(kwargs=_fixture_state(state), get=MASTER, post=MASTER, data=data, label=state)
            for state in ("scheduled", "rescheduled", "submitted", "confirmed", "forfeited", "voided")
        ]
        for name, data in (
            (
                "league:fixture_reschedule",
                lambda w: {"date": "2026-04-02", "deadline": "2026-04-09", "place": "Riverside"},
            ),
            ("league:fixture_pairing", lambda w: {"home": w.team_b.pk, "away": w.team_a.pk, "confirm": "True"}),
            ("league:fixture_forfeit", lambda w: {"forfeiting": str(w.team_b.pk), "reason": "Did not come"}),
            ("league:fixture_replay", lambda w: {}),
        )
    },
    # --- tables as a club runs them (issue 28, part 4): the master's only, in every state of a table
    "league:table_dropout": [
        Case(
            kwargs=kwargs,
            get=MASTER,
            post=MASTER,
            data=lambda w: {
                "player": w.extra["kage_players"][1].pk,
                "when": "during",
                "below_minimum": "replay",
                "confirm": "True",
            },
            label=label,
        )
        for kwargs, label in (
            (_extra("kage_open"), "kage table open"),
            (_extra("kage_submitted"), "kage table submitted"),
            (_extra("kage_round_table"), "kage round's table"),
            (_fixture_state("scheduled"), "an All-Stars fixture"),
        )
    ],
    "league:table_dropout_undo": [
        Case(
            kwargs=kwargs,
            get=MASTER,
            post=MASTER,
            data=lambda w: {"player": w.extra["kage_players"][1].pk, "confirm": "True"},
            label=label,
        )
        for kwargs, label in (
            (_extra("kage_open"), "kage table open"),
            (_extra("kage_submitted"), "kage table submitted"),
            (_fixture_state("scheduled"), "an All-Stars fixture"),
        )
    ],
    "league:round_seating": [
        Case(
            kwargs=lambda w: {
                "slug": w.extra["kage_tables_season"].league.slug,
                "number": w.extra["kage_tables_season"].number,
                "round_number": 1,
            },
            get=MASTER,
            post=MASTER,
            data=lambda w: (
                {
                    f"seat_{side.team_id}": w.extra["kage_round_table"].pk
                    for side in w.extra["kage_round_table"].sides.all()
                }
                | {"confirm": "True"}
            ),
            label="kage round 1",
        ),
        Case(kwargs=lambda w: {**_season(w), "round_number": 1}, get=MASTER, post=MASTER, label="an All-Stars round"),
    ],
    # --- newsletters
    "newsletters:list": [_public(lambda w: {"league_slug": w.league.slug})],
    "newsletters:feed": [_public(lambda w: {"league_slug": w.league.slug})],
    "newsletters:detail": [
        _public(_newsletter("published"), "published"),
        Case(kwargs=_newsletter("draft"), get=MASTER, post=MASTER, label="draft"),
    ],
    "newsletters:build": [
        Case(
            kwargs=lambda w: {"league_slug": w.league.slug},
            get=None,
            post=MASTER,
            data=lambda w: {"period": "2025-w08"},
        )
    ],
    "newsletters:edit": [
        Case(
            kwargs=_newsletter("draft"),
            get=MASTER,
            post=MASTER,
            data=lambda w: {"title": "Taken over", "editorial": "**hi**"},
        )
    ],
    "newsletters:rebuild": [Case(kwargs=_newsletter("draft"), get=None, post=MASTER)],
    "newsletters:publish": [Case(kwargs=_newsletter("draft"), get=MASTER, post=MASTER, data=lambda w: {})],
    "newsletters:status": [Case(kwargs=_newsletter("draft"), get=MASTER, post=MASTER)],
    "newsletters:deliveries": [Case(kwargs=_newsletter("published"), get=MASTER, post=MASTER)],
    # --- notifications: each member's own; the unsubscribe link's token is its authority (no log-in)
    "notifications:list": [Case(kwargs=lambda w: {}, get=MEMBERS, post=None)],
    "notifications:read": [
        Case(kwargs=lambda w: {"pk": w.extra["notification"].pk}, get=None, post=frozenset({"player"}))
    ],
    "notifications:read_all": [Case(kwargs=lambda w: {}, get=None, post=MEMBERS)],
    "notifications:settings": [
        Case(
            kwargs=lambda w: {}, get=MEMBERS, post=MEMBERS, data=lambda w: {"fixture_email": "on", "result_site": "on"}
        )
    ],
    # (a forged or expired token is answered 400 and writes nothing: tests/notifications and the
    # hostile-input tests post such tokens)
    "notifications:unsubscribe": [Case(kwargs=_unsubscribe, get=ANY, post=ANY)],
    # --- statistics: public, read-only (GET and HEAD only)
    "stats:honours": [_public(_league), _public(lambda w: {"slug": w.other_league.slug}, "other league")],
    "stats:team_history": [_public(_team), _public(lambda w: {"pk": w.free_team.pk}, "a team in no league")],
    "stats:ninja_career": [_public(lambda w: {"pk": w.ninja_a.pk})],
    "stats:coach": [_public(lambda w: {"username": w.users["player"].username})],
    "stats:leaderboards": [_public()],
    "stats:balance": [_public()],
    "stats:ratings": [_public()],
    "stats:coach_ratings": [_public()],
    "stats:club_ratings": [_public()],
    "stats:league_leaderboards": [_public(_league)],
    "stats:season_leaderboards": [_public(_season)],
}


# --- the REST API (api/): the same roles, authenticated by their tokens, JSON bodies -------------------


def _api_season(w: World) -> dict:
    return {"pk": w.season.pk}


def _api_result(w: World) -> dict:
    return {
        "sides": [{"slot": 1, "points": 2}, {"slot": 2, "points": 1}],
        "ninjas": [{"ninja": w.ninja_a.pk, "all_star": True}, {"ninja": w.ninja_b.pk, "all_star": True}],
    }


RULES.update(
    {
        "data:token": [Case(kwargs=lambda w: {}, get=MEMBERS, post=MEMBERS)],
        "exports:table_csv": [_public(lambda w: {"slug": w.league.slug, "number": w.season.number})],
        "exports:roster_csv": [_public(lambda w: {"pk": w.team_a.pk})],
        "exports:league_export": [Case(kwargs=_league, get=MASTER, post=None)],
        # any member may import a backup into a new league of their own (a POST without a file: the form again)
        "exports:league_import": [Case(kwargs=lambda w: {}, get=MEMBERS, post=MEMBERS)],
        # the leaderboards as CSV: public, as the leaderboard pages (stats.views)
        "exports:leaderboards_csv": [_public()],
        "exports:league_leaderboards_csv": [_public(_league)],
        "exports:season_leaderboards_csv": [_public(_season)],
        "api:api-root": [_public()],
        "api:schema": [_public()],
        "api:docs": [_public()],
        "api:clan-list": [_public()],
        "api:clan-detail": [_public(lambda w: {"slug": "tora"})],
        "api:profile-list": [_public()],
        "api:profile-detail": [_public(lambda w: {"slug": "tora-kaiken"})],
        "api:keyword-list": [_public()],
        "api:challenge-list": [_public()],
        "api:challenge-detail": [_public(lambda w: {"slug": "brawl"})],
        "api:status-effect-list": [_public()],
        "api:rules-tables": [_public()],
        "api:league-list": [_public()],
        "api:league-detail": [_public(_league)],
        "api:season-list": [_public()],
        "api:season-detail": [_public(_api_season)],
        "api:season-table": [_public(_api_season)],
        "api:season-fixtures": [_public(_api_season)],
        # a round's tables as seated: public, as the fixtures; moving players: the league's master
        # (issue 28, part 4), for a season of tables and for an All-Stars season alike (refused: 400)
        "api:season-seating": [
            Case(
                kwargs=lambda w: {"pk": w.extra["kage_tables_season"].pk},
                get=ANY,
                post=MASTER,
                data=lambda w: {
                    "round_number": 1,
                    "seating": {
                        str(side.team_id): w.extra["kage_round_table"].pk
                        for side in w.extra["kage_round_table"].sides.all()
                    },
                    "dry_run": False,
                },
                label="kage round 1",
            ),
            Case(
                kwargs=_api_season,
                get=ANY,
                post=MASTER,
                data=lambda w: {"round_number": 1, "seating": {str(w.team_a.pk): w.open_match.pk}},
                label="an All-Stars season",
            ),
        ],
        "api:season-schedule": [
            Case(kwargs=_api_season, get=None, post=MASTER, data=lambda w: {"kind": "round_robin"}),
            Case(
                kwargs=lambda w: {"pk": w.other_season.pk},
                get=None,
                post=frozenset({"other_master"}),  # Mist's master; L's master has no say there
                data=lambda w: {"kind": "round_robin"},
                label="another league's season",
            ),
        ],
        "api:match-list": [_public()],
        "api:match-detail": [
            _public(lambda w: {"pk": w.confirmed.pk}, "confirmed"),
            _public(lambda w: {"pk": w.open_match.pk}, "scheduled"),
        ],
        "api:match-draft": [
            Case(
                kwargs=lambda w: {"pk": w.open_match.pk},
                get=None,
                post=IN_MATCH,
                data=lambda w: {"sides": [{"slot": 1, "points": 2}]},
            )
        ],
        "api:match-result": [Case(kwargs=lambda w: {"pk": w.open_match.pk}, get=None, post=IN_MATCH, data=_api_result)],
        "api:match-confirm": [
            Case(kwargs=lambda w: {"pk": w.submitted.pk}, get=None, post=frozenset({"other_player", "master"}))
        ],
        "api:match-upkeep": [
            Case(
                kwargs=_extra("upkeep_waits"),
                get=None,
                post=frozenset({"other_player", "master"}),
                data=lambda w: {"upkeep": [{"ninja": w.extra["upkeep_ronin"].pk, "decision": "release"}]},
            )
        ],
        "api:match-reject": [
            Case(
                kwargs=lambda w: {"pk": w.submitted.pk},
                get=None,
                post=frozenset({"other_player", "master"}),
                data=lambda w: {"reason": "Wrong score"},
            )
        ],
        # settling a dispute through the API (issue 17, part 3): the league's master only
        "api:match-settle": [
            Case(
                kwargs=lambda w: {"pk": w.extra["disputed"].pk}, get=None, post=MASTER, data=lambda w: {"pick": "first"}
            )
        ],
        # a table's drop-out (issue 28, part 4): the league's master only, in every state of a table
        "api:match-dropout": [
            Case(
                kwargs=kwargs,
                get=None,
                post=MASTER,
                data=lambda w: {"player": w.extra["kage_players"][1].pk, "when": "during", "below_minimum": "replay"},
                label=label,
            )
            for kwargs, label in (
                (_extra("kage_open"), "kage table open"),
                (_extra("kage_submitted"), "kage table submitted"),
                (_extra("kage_round_table"), "kage round's table"),
                (lambda w: {"pk": w.open_match.pk}, "an All-Stars fixture"),
            )
        ],
        "api:team-list": [_public()],
        "api:team-detail": [_public(lambda w: {"pk": w.team_a.pk})],
        # Public, as the team's scroll and ledger page on the site (docs/api.md), whatever its state.
        "api:team-ledger": [
            _public(lambda w: {"pk": w.team_a.pk}),
            *[_public(_state_team(state), label=f"team {state}") for state in TEAM_STATES],
        ],
        "api:ninja-list": [_public()],
        "api:ninja-detail": [_public(lambda w: {"pk": w.ninja_a.pk})],
        "api:newsletter-list": [_public()],
        # leaderboards and strength ratings: public, as their pages (stats.views)
        "api:leaderboards": [_public()],
        "api:ratings": [_public()],
        "api:club_ratings": [_public()],
        "api:newsletter-detail": [
            _public(lambda w: {"pk": w.extra["published"].pk}, "published"),
            Case(kwargs=lambda w: {"pk": w.extra["draft"].pk}, get=MASTER, post=None, label="draft"),
        ],
    }
)


def is_api(name: str) -> bool:
    return name.startswith("api:")


# --- making the requests -----------------------------------------------------------------------------


@dataclass
class Outcome:
    status: int | None
    location: str = ""
    error: str = ""
    written: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.error:
            return f"server error: {self.error}"
        where = f" -> {self.location}" if self.location else ""
        return f"{self.status}{where}"


def client_for(world: World, role: str) -> Client:
    client = Client(raise_request_exception=True)
    user = world.user(role)
    if user is not None:
        client.force_login(user)
    return client


def api_client_for(world: World, role: str) -> Client:
    """A client of the REST API: the role's token in the Authorization header, no session."""
    token = world.extra["tokens"].get(role)
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"} if token else {}
    return Client(raise_request_exception=True, headers={"Accept": "application/json", **headers})


def request(
    client: Client, method: str, url: str, data: dict | None = None, *, track: bool = True, json: bool = False
) -> Outcome:
    """One request inside a transaction that is rolled back, with the fingerprint compared
    (unless ``track`` is off: the caller compares one fingerprint around many requests)."""
    with transaction.atomic():
        try:
            with watch_writes() if track else contextlib.nullcontext(Written()) as written:
                if method == "GET":
                    resp = client.get(url)
                elif json:
                    resp = client.post(url, data or {}, content_type="application/json")
                else:
                    resp = client.post(url, data or {})
        except Exception as exc:
            transaction.set_rollback(True)
            return Outcome(status=None, error=f"{type(exc).__name__}: {exc}")
        transaction.set_rollback(True)
    return Outcome(status=resp.status_code, location=resp.get("Location", ""), written=written.changed)


def is_login_redirect(outcome: Outcome, login_url: str | None = None) -> bool:
    login_url = login_url or resolve_url(settings.LOGIN_URL)
    return outcome.status == 302 and outcome.location.split("?")[0] == login_url


def is_refusal(outcome: Outcome, role: str, *, login_url: str | None = None, api: bool = False) -> bool:
    if outcome.error:
        return False
    if api:  # the API asks for credentials (401) instead of sending to the log-in page
        return outcome.status == (401 if role == "anonymous" else 403)
    if role == "anonymous":
        return is_login_redirect(outcome, login_url)
    return outcome.status == 403


def check_case(world: World, name: str, case: Case, *, clients: dict[str, Client] | None = None) -> None:
    """Request ``name`` as every role, by GET and by POST; raise AssertionError listing failures."""
    api = is_api(name)
    if api:
        clients = {role: api_client_for(world, role) for role in ROLES}
    clients = clients or {role: client_for(world, role) for role in ROLES}
    url = reverse(name, kwargs=case.kwargs(world))
    data = case.data(world)
    failures: list[str] = []
    for method, allowed in (("GET", case.get), ("POST", case.post)):
        for role in ROLES:
            outcome = request(clients[role], method, url, data, json=api)
            where = f"{method} {url} as {role}"
            if outcome.error:
                failures.append(f"{where}: {outcome}")
                continue
            if method == "GET" and outcome.written:  # no GET writes anything, for anyone (issue 11, 7)
                failures.append(f"{where}: a GET wrote {outcome.written}")
            if allowed is None:  # no such method: 405 (anonymous may be sent to log in first)
                if outcome.status != 405 and not is_login_redirect(outcome) and not (api and outcome.status == 401):
                    failures.append(f"{where}: expected 405, got {outcome}")
                if outcome.written:
                    failures.append(f"{where}: a refused method wrote {outcome.written}")
            elif allowed == READ_ONLY:
                if outcome.status >= 500 or outcome.written:
                    failures.append(f"{where}: a page without a form answered {outcome} and wrote {outcome.written}")
            elif role in allowed:
                refused = outcome.status in (403, 404, 405) or (api and outcome.status == 401)
                if refused or is_login_redirect(outcome) or outcome.status >= 500:
                    failures.append(f"{where}: should be allowed, got {outcome}")
            else:
                if not is_refusal(outcome, role, api=api):
                    expected = ("401" if api else "a redirect to log in") if role == "anonymous" else "403"
                    failures.append(f"{where}: should be refused with {expected}, got {outcome}")
                if outcome.written:
                    failures.append(f"{where}: refused, but wrote {outcome.written}")
    if failures:
        label = f" [{case.label}]" if case.label else ""
        raise AssertionError(f"{name}{label}:\n  " + "\n  ".join(failures))


# --- the admin ---------------------------------------------------------------------------------------

ADMIN_PUBLIC = {"admin:login", "admin:logout"}  # the log-in form; log-out sends non-staff to the index


def admin_cases(world: World) -> dict[str, tuple[dict, bool]]:
    """Every admin URL name -> (kwargs, whether a GET by staff should render a page).

    Model pages are named ``admin:<app>_<model>_<view>``; they get the first row of the model
    (or 0 when the table is empty: the admin then redirects staff to the index)."""
    from django.contrib import admin
    from django.contrib.contenttypes.models import ContentType

    team_type = ContentType.objects.get_for_model(type(world.team_a))
    cases: dict[str, tuple[dict, bool]] = {
        "admin:index": ({}, True),
        "admin:login": ({}, False),  # staff already logged in are sent on to the index
        "admin:logout": ({}, False),
        "admin:password_change": ({}, True),
        "admin:password_change_done": ({}, True),
        "admin:jsi18n": ({}, True),
        "admin:app_list": ({"app_label": "teams"}, True),
        "admin:autocomplete": ({}, False),  # needs query parameters; staff get 403 without them
        "admin:view_on_site": ({"content_type_id": team_type.pk, "object_id": world.team_a.pk}, False),
    }
    staff_request = RequestFactory().get("/admin/")
    staff_request.user = world.users["staff"]
    for model, model_admin in admin.site._registry.items():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        obj = model._default_manager.order_by("pk").first()
        object_id = str(obj.pk) if obj is not None else "0"
        cases[f"{prefix}_changelist"] = ({}, True)
        # Some models are read-only in the admin (ledgers, logs): staff get 403 there, by design.
        cases[f"{prefix}_add"] = ({}, model_admin.has_add_permission(staff_request))
        cases[f"{prefix}_change"] = ({"object_id": object_id}, obj is not None)
        cases[f"{prefix}_history"] = ({"object_id": object_id}, obj is not None)
        cases[f"{prefix}_delete"] = (
            {"object_id": object_id},
            obj is not None and model_admin.has_delete_permission(staff_request, obj),
        )
        if model._meta.label == settings.AUTH_USER_MODEL:
            cases[f"{prefix}_password_change"] = ({"id": object_id}, True)
    return cases


def check_admin(world: World, names: list[str], *, clients: dict[str, Client] | None = None) -> None:
    """Every admin page: anyone but staff is sent to the admin's log-in by GET and POST and writes
    nothing; staff get the page."""
    clients = clients or {role: client_for(world, role) for role in ROLES}
    cases = admin_cases(world)
    login_url = reverse("admin:login")
    failures: list[str] = []
    missing = [n for n in names if n not in cases]
    if missing:
        failures.append(f"no rule for admin URL names {missing}: add them to admin_cases()")
    # Refusals are checked without rolling back each, and what they wrote is compared around them
    # all (hundreds of requests); should it change, each refused request is replayed to find the writer.
    refused: list[tuple[str, str, str]] = []
    with watch_writes() as refusals:  # a fingerprint only if some request wrote
        for name in names:
            if name not in cases:
                continue
            kwargs, renders = cases[name]
            url = reverse(name, kwargs=kwargs)
            for role in ROLES:
                for method in ("GET", "POST"):
                    if role == "staff" and method == "POST":
                        continue  # staff may change anything there: not this matrix's business
                    where = f"{method} {url} as {role}"
                    if role == "staff":
                        outcome = request(clients[role], method, url, {}, track=False)
                        if outcome.error:
                            failures.append(f"{where}: {outcome}")
                        elif renders and outcome.status != 200:
                            failures.append(f"{where}: staff should see the page, got {outcome}")
                        elif outcome.status >= 500 or outcome.status == 404 or is_login_redirect(outcome, login_url):
                            failures.append(f"{where}: got {outcome}")
                        continue
                    try:
                        resp = clients[role].get(url) if method == "GET" else clients[role].post(url, {})
                    except Exception as exc:
                        failures.append(f"{where}: server error: {type(exc).__name__}: {exc}")
                        continue
                    outcome = Outcome(status=resp.status_code, location=resp.get("Location", ""))
                    refused.append((method, url, role))
                    if name in ADMIN_PUBLIC:
                        if outcome.status >= 400 and outcome.status != 405:
                            failures.append(f"{where}: got {outcome}")
                    elif not is_login_redirect(outcome, login_url):
                        failures.append(f"{where}: should go to the admin log-in, got {outcome}")
    if refusals.changed:
        for method, url, role in refused:
            outcome = request(clients[role], method, url, {})
            if outcome.written:
                failures.append(f"{method} {url} as {role}: refused, but wrote {outcome.written}")
    if failures:
        raise AssertionError("admin:\n  " + "\n  ".join(failures))
