"""Fixtures: one match between two teams of a season (generated, self-arranged), or a table of 3
to 5 players (a game played at tables), and its challenge."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from games import registry as games
from league import hooks
from league.models import Season
from league.services.seasons import mark_running
from matches.models import MAX_SIDES, REGULAR_STAGE, DiceRoll, Match, MatchTeam
from rules.engine import league as rules_league
from rules.models import Challenge
from teams.models import Team


def _challenge_named(name: str, challenges: Mapping[str, Challenge] | None) -> Challenge:
    if challenges is not None and name in challenges:
        return challenges[name]
    return Challenge.objects.get(name=name)


def fixture_create(
    *,
    season: Season,
    round_number: int | None,
    home: Team | None = None,
    away: Team | None = None,
    sides: Sequence[Team] = (),
    challenge: Challenge | None = None,
    rng: random.Random,
    stage: str = REGULAR_STAGE,
    pairing_reason: str = "",
    date=None,
    challenges: Mapping[str, Challenge] | None = None,
) -> Match:
    """A scheduled fixture: a Match with its two sides (slot 1 = home = player 1).

    Unless the master set ``challenge``, the random challenge generator is rolled with ``rng`` (in
    a league of a game with challenges, All-Stars; the others have none, and ``rng`` is not drawn):
    both faces go to ``challenge_roll`` (and a DiceRoll row); on Void or Spirit nobody's
    challenge is set yet and ``challenge_chooser`` says which player picks it.
    ``challenges`` (name -> Challenge) saves a query per fixture when many are made.

    A table (a game played by several players at once: Kage Masters) gives ``sides`` instead of
    ``home`` and ``away``: its players in seat order, slots 1..n, as many as the game allows
    (at most ``MAX_SIDES``).
    """
    if sides:
        if home is not None or away is not None:
            raise ValidationError("Give either the home and away sides or the table's sides, not both.")
        teams = list(sides)
        info = games.get(teams[0].game)
        if not info.min_players <= len(teams) <= min(info.max_players, MAX_SIDES):
            raise ValidationError(f"A match of {info.name} has {info.min_players} to {info.max_players} sides.")
        if len({t.pk for t in teams}) != len(teams):
            raise ValidationError("A player cannot sit twice at a table.")
        return _table_create(
            season=season, round_number=round_number, teams=teams, stage=stage, pairing_reason=pairing_reason, date=date
        )
    if home is None or away is None:
        raise ValidationError("A fixture needs its home and away sides.")
    if home.pk == away.pk:
        raise ValidationError("A team cannot play itself.")
    chooser, roll = "", None
    # The teams are of the league's game (team_apply, player_apply): no query to learn it.
    if challenge is None and games.game_of(home.game).challenges:
        draw = rules_league.random_challenge(rng=rng)
        roll = {
            "first": draw.first_face.value,
            "second": draw.second_face.value,
            "column": draw.column,
            "challenge": draw.challenge_name,
            "chooser": draw.chooser,
        }
        if draw.challenge_name:
            challenge = _challenge_named(draw.challenge_name, challenges)
        else:
            chooser = draw.chooser or ""
    with transaction.atomic():
        match = _table_create(
            season=season,
            round_number=round_number,
            teams=[home, away],
            stage=stage,
            pairing_reason=pairing_reason,
            date=date,
            challenge=challenge,
            challenge_chooser=chooser,
            challenge_roll=roll,
        )
        if roll is not None:
            DiceRoll.objects.create(
                match=match, purpose=DiceRoll.Purpose.CHALLENGE, faces=[roll["first"], roll["second"]]
            )
    return match


def _table_create(
    *, season: Season, round_number: int | None, teams: list[Team], stage: str, pairing_reason: str, date, **challenge
) -> Match:
    """A fixture's match with its sides in slot (seat) order: a pair (home, away) or a table. Games
    at tables have no challenges (no rng drawn); a pair's ``challenge`` fields come from the caller."""
    with transaction.atomic():
        match = Match.objects.create(
            league_id=season.league_id,
            season=season,
            round_number=round_number,
            stage=stage,
            pairing_reason=pairing_reason[:200],
            date=date,
            **challenge,
        )
        MatchTeam.objects.bulk_create([MatchTeam(match=match, team=t, slot=i) for i, t in enumerate(teams, start=1)])
    return match


def _season_entry_ids(season: Season) -> set[int]:
    return set(season.entries.values_list("team_id", flat=True))


def fixture_arrange(
    *,
    season: Season,
    home: Team | None = None,
    away: Team | None = None,
    sides: Sequence[Team] = (),
    challenge: Challenge | None = None,
    date=None,
    rng: random.Random | None = None,
) -> Match:
    """A self-arranged fixture between two teams of the season (who may do it: permissions), or,
    for a game played at tables, a table of ``sides`` (its players in seat order, as many as a
    league's table seats: ``GameInfo.table_sizes``, 3 to 5 for Kage Masters)."""
    if season.format != Season.Format.SELF_ARRANGED:
        raise ValidationError("In this season the fixtures are scheduled by the master.")
    if season.is_finished:
        raise ValidationError("The season is over.")
    info = season.league.game_info
    if season.league.game_site.tables:
        teams = list(sides) or [t for t in (home, away) if t is not None]
        fewest, most = info.table_sizes or (info.min_players, info.max_players)
        if not fewest <= len(teams) <= most:
            raise ValidationError(f"A table of {info.name} seats {fewest} to {most} players.")
        if len({t.pk for t in teams}) != len(teams):
            raise ValidationError("A player sits at a table once.")
    else:
        if sides or home is None or away is None:
            raise ValidationError("Choose the two sides of the game.")
        teams = [home, away]
        if home.pk == away.pk:
            raise ValidationError("Choose two different teams.")
    entered = _season_entry_ids(season)
    missing = [t.name for t in teams if t.pk not in entered]
    if missing:
        raise ValidationError(f"Not in this season: {', '.join(missing)}.")
    if len({t.owner_id for t in teams}) != len(teams):
        raise ValidationError("Two teams of the same player never meet.")
    rng = rng or random.Random(secrets.randbits(63))
    # A table seats its sides; a two-sided game has a home and an away side, and its challenge.
    seats = {"sides": teams} if season.league.game_site.tables else {"home": home, "away": away, "challenge": challenge}
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        match = fixture_create(
            season=season, round_number=None, rng=rng, pairing_reason="arranged by the players", date=date, **seats
        )
        mark_running(season)
        hooks.fixtures_created([match])
    return match


def fixture_set_challenge(*, match: Match, challenge: Challenge) -> Match:
    """Set the challenge of a fixture not yet kicked off (the chooser's pick, or the master's). A
    fixture of a game without challenges (a players' game) has none to set: refused."""
    if match.league_id is not None and not match.league.game_site.challenges:
        raise ValidationError(f"{match.league.game_info.name} has no challenges: a game of it is played without one.")
    if match.status != Match.Status.SCHEDULED or match.kicked_off_at is not None:
        raise ValidationError("The challenge is fixed once the match has kicked off.")
    match.challenge = challenge
    match.save(update_fields=["challenge"])
    return match
