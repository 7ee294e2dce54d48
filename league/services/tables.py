"""Tables as a club runs them (issue 28, part 4): a player who drops out of a table, and the master
moving players between the tables of a round before it starts (docs/leagues.md, "Kage tables as a
club runs them"). For a game played at tables (``Game.tables``: Kage Masters); the
scoring is the game's pure engine's (``games.kage_masters.engine.table_points``), applied when the
table's result is confirmed (``matches.services._apply_game_result``).
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from common import invalidation
from games.protocol import DROPOUT_FORFEIT_LOSS
from league import hooks, selectors
from league.models import Season
from league.services.fixtures import fixture_create
from league.services.rounds import _history_except
from matches.models import REGULAR_STAGE, Match, MatchTeam
from teams.models import Team

#: What the master chooses for a table left below the league's smallest table by a drop-out.
REPLAY, DISSOLVE = "replay", "dissolve"
BELOW_MINIMUM = {
    REPLAY: "Replay it: the table is voided and a new one, with the same players, is drawn up for the round",
    DISSOLVE: "Dissolve it: the table is voided and nobody scores for it",
}
WHEN = {
    MatchTeam.Dropout.BEFORE: "before the game",
    MatchTeam.Dropout.DURING: "during the game",
}


def _table_sizes(season: Season) -> tuple[int, int]:
    info = season.league.game_info
    return info.table_sizes or (info.min_players, info.max_players)


def _names(teams: Sequence[Team]) -> str:
    names = [t.name for t in teams]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --- a player drops out --------------------------------------------------------------------------


def dropout_refusal(match: Match) -> str | None:
    """Why no drop-out can be recorded at this fixture (None when one can): a scheduled table of a
    game played at tables, in a season still running, with no result entered."""
    if match.season_id is None:
        return "Only a league table's drop-out is recorded."
    if not match.league.game_site.tables:
        return f"{match.league.game_info.name} is not played at tables: record a forfeit instead."
    if match.season.is_finished:
        return "The season is over."
    if match.status != Match.Status.SCHEDULED:
        return (
            f"This table is {match.get_status_display().lower()}: a drop-out is recorded before its result "
            "is entered (reject or void a result first)."
        )
    present = [s for s in match.sides.all() if not s.dropped_out]
    if len(present) < 2:
        return "Nobody is left at this table."
    return None


@dataclass
class DropoutPlan:
    """What recording a drop-out does, as the confirmation page lists it."""

    match: Match
    team: Team
    when: str
    present: list[Team]
    below_minimum: bool
    choice: str = ""
    facts: list[str] = field(default_factory=list)


def dropout_plan(*, match: Match, team: Team, when: str, below_minimum: str = "") -> DropoutPlan:
    """What ``team`` dropping out of ``match`` (``when``: before or during the game) does; raises
    ValidationError when it cannot (``dropout_refusal``, a player not at the table or already
    gone, a table left too small without the master's choice). Writes nothing."""
    refusal = dropout_refusal(match)
    if refusal:
        raise ValidationError(refusal)
    if when not in WHEN:
        raise ValidationError({"when": "Say whether he dropped out before or during the game."})
    sides = list(match.sides.all())
    side = next((s for s in sides if s.team_id == team.pk), None)
    if side is None:
        raise ValidationError({"player": f"{team.name} is not at this table."})
    if side.dropped_out:
        raise ValidationError({"player": f"{team.name} has dropped out already."})
    present = [s.team for s in sides if not s.dropped_out and s.team_id != team.pk]
    fewest, _ = _table_sizes(match.season)
    below = len(present) < fewest
    if below and below_minimum not in BELOW_MINIMUM:
        raise ValidationError(
            {
                "below_minimum": f"Only {len(present)} players would be left, and a table seats at least "
                f"{fewest}: choose to replay the table or to dissolve it."
            }
        )
    plan = DropoutPlan(
        match=match, team=team, when=when, present=present, below_minimum=below, choice=below_minimum if below else ""
    )
    season = match.season
    if below:
        plan.facts.append(f"{team.name} drops out {WHEN[when]}: only {_names(present)} would be left.")
        if below_minimum == REPLAY:
            plan.facts.append(
                "The table is voided and replayed: a new table of the round with the same players, "
                f"{_names([s.team for s in sides])}, in the same seats."
            )
        else:
            plan.facts.append("The table is dissolved: it is voided, and nobody scores for it this round.")
        return plan
    plan.facts.append(f"{team.name} drops out {WHEN[when]}; the table plays on with {_names(present)}.")
    if season.league.game_site.dropout_scores(season)[0] == DROPOUT_FORFEIT_LOSS:
        plan.facts.append(
            f"{team.name} takes a forfeit loss ({season.forfeit_loss_points} league points); "
            f"the others are placed among themselves by their treasure (the season's house rules)."
        )
    else:
        plan.facts.append(
            f"{team.name} takes the last place at the table ({_ordinal(len(present) + 1)}); the others score their "
            f"places by their treasure, under the season's place points (the season's house rules)."
        )
    plan.facts.append("The result is entered for the players present only.")
    return plan


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def table_dropout(*, match: Match, team: Team, when: str, below_minimum: str = "", actor=None) -> DropoutPlan:
    """Record that ``team`` dropped out of the table ``match`` (who may: the master, checked by the
    view). The table plays on with the players present, unless fewer than the league's smallest
    table are left: then the master's ``below_minimum`` choice replays it (a new table of the same
    players, the drop-out forgotten) or dissolves it (voided, nobody scores). Checked again under
    the match's lock, written in one transaction."""
    with invalidation.changing(("season", match.season_id)), transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("season", "league", "season__league")
            .get(pk=match.pk)
        )
        sides = list(MatchTeam.objects.select_for_update().filter(match=locked).select_related("team").order_by("slot"))
        locked._prefetched_objects_cache = {"sides": sides}
        plan = dropout_plan(match=locked, team=team, when=when, below_minimum=below_minimum)
        side = next(s for s in sides if s.team_id == team.pk)
        side.dropped_out = when
        side.save(update_fields=["dropped_out"])
        if plan.below_minimum:
            now = timezone.now()
            locked.status = Match.Status.VOIDED
            locked.voided_at = now
            locked.void_reason = (
                f"{team.name} dropped out {WHEN[when]}: fewer than {_table_sizes(locked.season)[0]} players left; "
                + ("replayed" if plan.choice == REPLAY else "dissolved")
                + " by the master"
            )[:200]
            locked.save(update_fields=["status", "voided_at", "void_reason"])
            if plan.choice == REPLAY:
                replay = fixture_create(
                    season=locked.season,
                    round_number=locked.round_number,
                    sides=[s.team for s in sides],
                    rng=random.Random(secrets.randbits(63)),
                    stage=locked.stage,
                    pairing_reason=f"replay of table #{locked.pk} (left too small by a drop-out)",
                    date=None,
                )
                replay.replay_of = locked
                replay.deadline, replay.place = locked.deadline, locked.place
                replay.save(update_fields=["replay_of", "deadline", "place"])
                hooks.fixtures_created([replay])
    return plan


def dropout_undo_refusal(match: Match) -> str | None:
    """Why no drop-out can be undone at this fixture (None when one can): a scheduled table of a
    running season, with no result entered, that someone dropped out of. A drop-out that left the
    table too small voided it (replayed or dissolved): that is not undone here."""
    if match.season_id is None or not match.league.game_site.tables:
        return "Only a drop-out from a league's table is undone."
    if match.season.is_finished:
        return "The season is over."
    if match.status != Match.Status.SCHEDULED:
        return (
            f"This table is {match.get_status_display().lower()}: a drop-out is undone before its result is "
            "entered (reject the result first)."
        )
    if not any(s.dropped_out for s in match.sides.all()):
        return "Nobody has dropped out of this table."
    return None


def dropout_undo_facts(match: Match, team: Team) -> list[str]:
    """What undoing ``team``'s drop-out does, as the confirmation lists it; raises ValidationError
    when it cannot. Writes nothing."""
    refusal = dropout_undo_refusal(match)
    if refusal:
        raise ValidationError(refusal)
    sides = list(match.sides.all())
    side = next((s for s in sides if s.team_id == team.pk), None)
    if side is None or not side.dropped_out:
        raise ValidationError({"player": f"{team.name} has not dropped out of this table."})
    back = [s.team for s in sides if not s.dropped_out or s.team_id == team.pk]
    return [
        f"{team.name} is back at the table: the drop-out {WHEN[side.dropped_out]} is forgotten.",
        f"The table plays with {_names(back)}; each scores the place their treasure gives.",
    ]


def table_dropout_undo(*, match: Match, team: Team, actor=None) -> list[str]:
    """Undo ``team``'s drop-out from the table ``match`` (a drop-out recorded by mistake; who may:
    the master, checked by the view): checked again under the match's lock, in one transaction.
    Returns what it did (:func:`dropout_undo_facts`)."""
    with invalidation.changing(("season", match.season_id)), transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("season", "league", "season__league")
            .get(pk=match.pk)
        )
        sides = list(MatchTeam.objects.select_for_update().filter(match=locked).select_related("team").order_by("slot"))
        locked._prefetched_objects_cache = {"sides": sides}
        facts = dropout_undo_facts(locked, team)
        side = next(s for s in sides if s.team_id == team.pk)
        side.dropped_out = MatchTeam.Dropout.NO
        side.save(update_fields=["dropped_out"])
    return facts


# --- the master moves players between the tables of a round ---------------------------------------


def seating_refusal(season: Season, round_number: int, tables: Sequence[Match] | None = None) -> str | None:
    """Why the tables of this round cannot be re-seated (None when they can): a season of tables
    still running, the round drawn, and no table of it played or with a result entered.
    ``tables``: the round's (:func:`round_tables`), when the caller has them."""
    if not season.league.game_site.tables:
        return f"{season.league.game_info.name} is not played at tables."
    if season.is_finished:
        return "The season is over."
    if tables is None:
        tables = round_tables(season, round_number)
    if not tables:
        return f"Round {round_number} has no tables."
    if any(m.status != Match.Status.SCHEDULED or m.kicked_off_at is not None for m in tables):
        return f"A table of round {round_number} has been played or has a result entered: its seating is final."
    if any(s.dropped_out for m in tables for s in m.sides.all()):
        return f"A player has dropped out of a table of round {round_number}: its seating is final."
    return None


def round_tables(season: Season, round_number: int) -> list[Match]:
    """The round's tables (not voided) with their sides, in table order (one query)."""
    return list(
        Match.objects.filter(season=season, stage=REGULAR_STAGE, round_number=round_number)
        .exclude(status=Match.Status.VOIDED)
        .select_related("season", "league")
        .prefetch_related(selectors.sides_prefetch())
        .order_by("pk")
    )


@dataclass
class SeatingPlan:
    """What moving players between a round's tables would change."""

    season: Season
    round_number: int
    #: [(table, its players in seat order after the move)], every table of the round
    tables: list[tuple[Match, list[Team]]] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    #: the pairs that would meet again and do not in the current seating
    added_repeats: list[str] = field(default_factory=list)
    repeats_before: int = 0
    repeats_after: int = 0


def seating_plan(*, season: Season, round_number: int, seating: Mapping[int, int]) -> SeatingPlan:
    """What seating the round's players as ``seating`` ({player's entry id: table's match id})
    changes, with the repeat meetings it adds (pairs that met at an earlier table of the season).
    Every player of the round is seated once, every table keeps 3 to 5 players (the game's
    ``table_sizes``); raises ValidationError otherwise. Writes nothing."""
    tables = round_tables(season, round_number)
    refusal = seating_refusal(season, round_number, tables)
    if refusal:
        raise ValidationError(refusal)
    players = {s.team_id: s.team for m in tables for s in m.sides.all()}
    table_ids = {m.pk for m in tables}
    if set(seating) != set(players):
        raise ValidationError("Seat every player of the round, once.")
    if not set(seating.values()) <= table_ids:
        raise ValidationError("Seat players at the round's own tables.")
    fewest, most = _table_sizes(season)
    plan = SeatingPlan(season=season, round_number=round_number)
    number = {m.pk: i for i, m in enumerate(tables, start=1)}
    for m in tables:
        stay = [s.team for s in m.sides.all() if seating[s.team_id] == m.pk]
        come = [t for pk, t in players.items() if seating[pk] == m.pk and t not in stay]
        seated = stay + sorted(come, key=lambda t: t.pk)
        if not fewest <= len(seated) <= most:
            raise ValidationError(
                f"Table {number[m.pk]} would seat {len(seated)} players: a table seats {fewest} to {most}."
            )
        plan.tables.append((m, seated))
    for m in tables:
        for s in m.sides.all():
            if seating[s.team_id] != m.pk:
                plan.changes.append(
                    f"{s.team.name} moves from table {number[m.pk]} to table {number[seating[s.team_id]]}."
                )
    if not plan.changes:
        raise ValidationError("That is the seating already.")
    history = Counter(
        pair for pair in _history_except(season, exclude_round=(REGULAR_STAGE, round_number)) for pair in _pairs(pair)
    )
    before = {p for m in tables for p in _pairs(s.team_id for s in m.sides.all())}
    after = {p for _, seated in plan.tables for p in _pairs(t.pk for t in seated)}
    plan.repeats_before = sum(1 for p in before if history[p])
    plan.repeats_after = sum(1 for p in after if history[p])
    for pair in sorted(after - before, key=lambda p: sorted(players[t].name for t in p)):
        if history[pair]:
            a, b = sorted(players[t].name for t in pair)
            times = history[pair] + 1
            plan.added_repeats.append(f"{a} and {b} meet for the {_ordinal(times)} time this season.")
    return plan


def _pairs(players) -> list[frozenset]:
    return [frozenset(p) for p in combinations(list(players), 2)]


def tables_reseat(*, season: Season, round_number: int, seating: Mapping[int, int], actor=None) -> SeatingPlan:
    """Apply a seating move (see :func:`seating_plan`): the tables' players as planned, in seat
    order (those who stay keep their order, those who come sit after them). Planned again under
    the season's lock; who may (the master) is checked by the view."""
    with invalidation.changing(("season", season.pk)), transaction.atomic():
        Season.objects.select_for_update().get(pk=season.pk)
        plan = seating_plan(season=season, round_number=round_number, seating=seating)
        ids = [m.pk for m, _ in plan.tables]
        for m in Match.objects.select_for_update().filter(pk__in=ids).order_by("pk"):
            if m.status != Match.Status.SCHEDULED or m.kicked_off_at is not None:
                raise ValidationError("A table of this round has a result meanwhile: look again.")
        MatchTeam.objects.filter(match_id__in=ids).delete()
        MatchTeam.objects.bulk_create(
            MatchTeam(match=m, team=t, slot=slot) for m, seated in plan.tables for slot, t in enumerate(seated, start=1)
        )
        moved = {m.pk for m, seated in plan.tables if [s.team_id for s in m.sides.all()] != [t.pk for t in seated]}
        Match.objects.filter(pk__in=moved).update(pairing_reason="seated by the master")
    return plan
