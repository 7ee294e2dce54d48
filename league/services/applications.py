"""Applications: a team applies to a league; its master accepts or refuses; its player may withdraw."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from common import text
from league import hooks
from league.models import League, ScheduleRun, SeasonEntry
from league.services.seasons import current_season
from teams.models import Team


def owner_team_blockers(*, team: Team, league: League, allowed: bool) -> None:
    """One player, one team in a season, unless the house rule allows several: refuse ``team`` when
    its owner already has another team (not retired) accepted in ``league`` (accepted teams are
    entered in every season). Two pending applications may wait; accepting the second is refused.
    One query."""
    if allowed:
        return
    other = (
        Team.objects.filter(league=league, owner_id=team.owner_id, entry_status=Team.EntryStatus.ACCEPTED)
        .exclude(status=Team.Status.RETIRED)
        .exclude(pk=team.pk)
        .values_list("name", flat=True)
        .first()
    )
    if other is not None:
        raise ValidationError(
            f"{other} already plays for the same player in {league}, and its house rules allow one team "
            "per player in a season (the master may allow several)."
        )


def _name_taken(name: str, league: League, *, exclude_pk: int | None, thing: str, advice: str) -> None:
    """Refuse ``name`` when another entrant of ``league`` (not retired) has it or a look-alike."""
    existing = (
        Team.objects.filter(league=league, name_key=text.name_key(name))
        .exclude(status=Team.Status.RETIRED)
        .exclude(pk=exclude_pk)
        .values_list("name", flat=True)
        .first()
    )
    if existing is not None:
        message = text.same_name_message(name, existing, thing=thing, where=f" in {league}")
        raise ValidationError(f"{message} {advice}")


def team_apply(*, team: Team, league: League) -> Team:
    """A team owner applies to join a league; the master accepts or refuses."""
    if team.game != league.game:
        if league.game_site.team_scrolls:
            raise ValidationError(
                f"{team.name} is an entry in {team.get_game_display()}; {league} plays {league.get_game_display()}."
            )
        raise ValidationError(
            f"{league} plays {league.get_game_display()}: its entrants are players, not team scrolls. Join as a player."
        )
    if team.status == Team.Status.RETIRED:
        raise ValidationError("A retired team cannot join a league.")
    if team.entry_status == Team.EntryStatus.ACCEPTED and team.league_id:
        raise ValidationError(f"{team.name} already plays in {team.league}.")
    if team.league_id == league.pk and team.entry_status == Team.EntryStatus.PENDING:
        raise ValidationError(f"{team.name} has already applied to {league}.")

    def name_taken() -> None:
        _name_taken(team.name, league, exclude_pk=team.pk, thing="team", advice="Rename yours first.")

    name_taken()
    owner_team_blockers(team=team, league=league, allowed=league.several_teams_per_owner)
    before = (team.league, team.entry_status)
    team.league = league
    team.entry_status = Team.EntryStatus.PENDING
    try:
        with transaction.atomic():
            team.save(update_fields=["league", "entry_status"])
    except IntegrityError:
        team.league, team.entry_status = before
        name_taken()  # another team of that name applied at the same moment
        raise
    return team


def player_apply(*, user, league: League, display_name: str = "") -> Team:
    """A player applies to a league of a game without team scrolls (Ninjutsu, Kage Masters), as
    themselves: their entry is named in the league by ``display_name``, else their username.

    The entry is a ``Team`` row of the league's game with no clan (docs/leagues.md, "Games"), so the
    seasons, fixtures, byes, tables and playoffs serve it as they serve a team. A player has one
    entry in a league; an entry of theirs left by a refusal or a withdrawal is used again rather than
    a new row made. The master accepts or refuses it like any application.
    """
    if league.game_site.team_scrolls:
        raise ValidationError(f"{league} plays {league.get_game_display()}: apply with one of your teams.")
    name = text.clean_name(
        (display_name or "").strip() or user.username,
        max_length=Team._meta.get_field("name").max_length,
        what="your entry a display name",
    )
    current = (
        Team.objects.filter(
            owner=user, league=league, entry_status__in=[Team.EntryStatus.PENDING, Team.EntryStatus.ACCEPTED]
        )
        .exclude(status=Team.Status.RETIRED)
        .first()
    )
    if current is not None:
        if current.entry_status == Team.EntryStatus.PENDING:
            raise ValidationError(f"You have already applied to {league} (as {current.name}).")
        raise ValidationError(f"You already play in {league} (as {current.name}).")

    def name_taken() -> None:
        _name_taken(name, league, exclude_pk=None, thing="player", advice="Choose another display name.")

    name_taken()
    left = (
        Team.objects.filter(owner=user, game=league.game, league__isnull=True)
        .exclude(status=Team.Status.RETIRED)
        .order_by("id")
        .first()
    )
    try:
        with transaction.atomic():
            if left is None:
                return Team.objects.create(
                    owner=user,
                    name=name,
                    game=league.game,
                    clan=None,
                    league=league,
                    entry_status=Team.EntryStatus.PENDING,
                    status=Team.Status.READY,
                )
            left.name, left.league, left.entry_status = name, league, Team.EntryStatus.PENDING
            left.save(update_fields=["name", "name_key", "league", "entry_status"])
            return left
    except IntegrityError:
        name_taken()  # the same name applied at the same moment
        raise


def application_accept(*, team: Team) -> SeasonEntry | None:
    """Accept a pending team into its league, and into the current season when it can still join.

    A team accepted after a round robin was generated waits for the next season (its schedule is
    fixed); in the other formats it joins the running season at once.
    """
    with transaction.atomic():
        team = Team.objects.select_for_update(of=("self",)).select_related("league").get(pk=team.pk)
        if team.league_id is None or team.entry_status != Team.EntryStatus.PENDING:
            raise ValidationError(f"{team.name} has no pending application.")
        season = current_season(team.league)
        allowed = season.several_teams_per_owner if season is not None else team.league.several_teams_per_owner
        owner_team_blockers(team=team, league=team.league, allowed=allowed)
        team.entry_status = Team.EntryStatus.ACCEPTED
        team.save(update_fields=["entry_status"])
        hooks.application_decided(team, team.league, accepted=True)
        if season is None:
            return None
        if season.is_round_robin and season.schedule_runs.filter(kind=ScheduleRun.Kind.ROUND_ROBIN).exists():
            return None
        entry, _ = SeasonEntry.objects.get_or_create(season=season, team=team)
        return entry


def application_refuse(*, team: Team) -> Team:
    """Refuse a pending application. The team leaves the league at once (its name is free there
    again); ``entry_status`` keeps "refused" so its player can see what became of it."""
    with transaction.atomic():
        team = Team.objects.select_for_update().get(pk=team.pk)
        if team.league_id is None or team.entry_status != Team.EntryStatus.PENDING:
            raise ValidationError(f"{team.name} has no pending application.")
        league = League.objects.get(pk=team.league_id)
        team.league = None
        team.entry_status = Team.EntryStatus.REFUSED
        team.save(update_fields=["league", "entry_status"])
        hooks.application_decided(team, league, accepted=False)
    return team


def application_withdraw(*, team: Team, league: League) -> Team:
    """The team's player takes back a pending application to ``league``; no trace is left."""
    with transaction.atomic():
        team = Team.objects.select_for_update().get(pk=team.pk)
        if team.league_id != league.pk or team.entry_status != Team.EntryStatus.PENDING:
            raise ValidationError(f"{team.name} has no pending application to {league}.")
        team.league = None
        team.entry_status = Team.EntryStatus.NONE
        team.save(update_fields=["league", "entry_status"])
    return team
