"""Writes for leagues, one module a subject (as Zulip's ``zerver/actions/``):

* :mod:`.leagues`: leagues and their house rules;
* :mod:`.seasons`: seasons, finishing and rolling over;
* :mod:`.applications`: teams applying to a league;
* :mod:`.invitations`: invitation links to apply with;
* :mod:`.fixtures`: one fixture, generated or arranged by the players;
* :mod:`.schedules`: schedule runs (the Celery task's service);
* :mod:`.playoffs`: the playoff bracket;
* :mod:`.rounds`: the round life cycle: forfeits, replays, round dates, rescheduling, editing a pairing;
* :mod:`.tables`: a player dropping out of a table, the master moving players between a round's tables;
* :mod:`.simulations`: simulating a fixture, a round or the rest of a season (the Celery task's service).

Check, then do: every service validates first and writes inside one ``transaction.atomic`` block.
Schedule generation is idempotent: a :class:`ScheduleRun` is unique per (season, kind, round), the
season row is locked while fixtures are written, and a run that is done is never run again.
Randomness is passed in or seeded from a stored seed, so every draw can be replayed.

The names below are the package's public face: callers import ``league.services`` and use them.
"""

from league.services.applications import (
    application_accept,
    application_refuse,
    application_withdraw,
    player_apply,
    team_apply,
)
from league.services.fixtures import fixture_arrange, fixture_create, fixture_set_challenge
from league.services.invitations import invitation_apply, invitation_create, invitation_revoke
from league.services.leagues import RESERVED_SLUGS, league_create, league_update, validate_tie_breakers
from league.services.playoffs import on_match_confirmed, playoffs_advance
from league.services.rounds import (
    VIOLATION_TEXT,
    PairingPlan,
    fixture_edit_pairing,
    fixture_forfeit,
    fixture_replay,
    fixture_reschedule,
    forfeit_refusal,
    pairing_plan,
    pairing_refusal,
    replay_refusal,
    reschedule_refusal,
    round_set_dates,
)
from league.services.schedules import (
    FORMAT_KIND,
    PLANNERS,
    Progress,
    schedule_generate,
    schedule_next,
    schedule_request,
    schedule_run_failed,
)
from league.services.seasons import (
    VOID_REASON_SEASON_ENDED,
    current_season,
    season_create,
    season_finish,
    season_rollover,
)
from league.services.tables import (
    BELOW_MINIMUM,
    DropoutPlan,
    SeatingPlan,
    dropout_plan,
    dropout_refusal,
    dropout_undo_facts,
    dropout_undo_refusal,
    round_tables,
    seating_plan,
    seating_refusal,
    table_dropout,
    table_dropout_undo,
    tables_reseat,
)

__all__ = [
    # tables (issue 28, part 4)
    "BELOW_MINIMUM",
    "DropoutPlan",
    "SeatingPlan",
    "dropout_plan",
    "dropout_refusal",
    "dropout_undo_facts",
    "dropout_undo_refusal",
    "round_tables",
    "seating_plan",
    "seating_refusal",
    "table_dropout",
    "table_dropout_undo",
    "tables_reseat",
    # invitations
    "invitation_apply",
    "invitation_create",
    "invitation_revoke",
    # leagues
    "RESERVED_SLUGS",
    "league_create",
    "league_update",
    "validate_tie_breakers",
    # seasons
    "VOID_REASON_SEASON_ENDED",
    "current_season",
    "season_create",
    "season_finish",
    "season_rollover",
    # applications
    "application_accept",
    "application_refuse",
    "application_withdraw",
    "player_apply",
    "team_apply",
    # fixtures
    "fixture_arrange",
    "fixture_create",
    "fixture_set_challenge",
    # schedules
    "FORMAT_KIND",
    "PLANNERS",
    "Progress",
    "schedule_generate",
    "schedule_next",
    "schedule_request",
    "schedule_run_failed",
    # playoffs
    "on_match_confirmed",
    "playoffs_advance",
    # the round life cycle
    "VIOLATION_TEXT",
    "PairingPlan",
    "fixture_edit_pairing",
    "fixture_forfeit",
    "fixture_replay",
    "fixture_reschedule",
    "forfeit_refusal",
    "pairing_plan",
    "pairing_refusal",
    "replay_refusal",
    "reschedule_refusal",
    "round_set_dates",
]
