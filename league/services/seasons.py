"""Seasons: opening one with a frozen copy of the league's rules, finishing it (its final table
archived), rolling over to the next."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from common import invalidation, text
from games import registry as games
from league import selectors
from league.models import BracketSlot, League, Season, SeasonEntry
from matches.models import AWAITING_STATUSES, Match
from teams.models import Team

VOID_REASON_SEASON_ENDED = "Not played before the season ended"


def _validate_format(format: str, swiss_rounds: int | None, playoff_teams: int, game: str | None = None) -> None:
    if format not in Season.Format.values:
        raise ValidationError({"format": f"Unknown format {format!r}."})
    if game is not None and format not in Season.formats_for(game):
        info = games.get(game)
        offered = ", ".join(Season.Format(f).label.lower() for f in Season.formats_for(game))
        why = (
            "its games are tables of several players"
            if games.game_of(game).tables
            else "its games are one side against another"
        )
        raise ValidationError(
            {
                "format": f"A league of {info.name} has no {Season.Format(format).label.lower()} seasons: "
                f"{why}. Choose one of: {offered}."
            }
        )
    if format == Season.Format.SWISS and not swiss_rounds:
        raise ValidationError({"swiss_rounds": "Say how many swiss rounds the season has."})
    if format in (Season.Format.TABLES, Season.Format.SWISS_TABLES) and not swiss_rounds:
        raise ValidationError({"swiss_rounds": "Say how many rounds of tables the season has."})
    if playoff_teams == 1:
        raise ValidationError({"playoff_teams": "A playoff needs at least two teams (0: no playoffs)."})
    if playoff_teams and game is not None and games.game_of(game).tables:
        raise ValidationError(
            {
                "playoff_teams": f"A {games.get(game).name} season has no playoffs: the league table after "
                "the last round decides (docs/leagues.md). Set 0."
            }
        )


def _clean_season_name(name: str) -> str:
    """Blank (the default "Season N" is used), or a valid name."""
    if not text.normalize_name(name):
        return ""
    return text.clean_name(name, max_length=Season._meta.get_field("name").max_length)


def season_create(
    *, league: League, format: str, name: str = "", swiss_rounds: int | None = None, playoff_teams: int = 0
) -> Season:
    """Open the league's next season with a frozen copy of the league's current house rules.

    Every accepted team of the league (not retired) is entered.
    """
    _validate_format(format, swiss_rounds, playoff_teams, league.game)
    name = _clean_season_name(name)
    with transaction.atomic():
        league = League.objects.select_for_update().get(pk=league.pk)
        if league.seasons.exclude(status=Season.Status.FINISHED).exists():
            raise ValidationError("Finish the current season before opening a new one.")
        number = (league.seasons.aggregate(n=Max("number"))["n"] or 0) + 1
        season = Season.objects.create(
            league=league,
            number=number,
            name=name or f"Season {number}",
            format=format,
            swiss_rounds=swiss_rounds if format in Season.COUNTED_FORMATS else None,
            playoff_teams=playoff_teams,
            **league.house_rules(),
        )
        teams = Team.objects.filter(league=league, entry_status=Team.EntryStatus.ACCEPTED).exclude(
            status=Team.Status.RETIRED
        )
        teams = list(teams.order_by("id"))
        if not season.several_teams_per_owner:
            _one_team_per_owner(teams, league)
        SeasonEntry.objects.bulk_create([SeasonEntry(season=season, team=t) for t in teams])
    return season


def _one_team_per_owner(teams: list[Team], league: League) -> None:
    """Refuse to open a season entering two teams of one player when its house rules forbid it."""
    seen: dict[int, Team] = {}
    clashes = []
    for team in teams:
        if team.owner_id in seen:
            clashes.append(f"{seen[team.owner_id].name} and {team.name}")
        else:
            seen[team.owner_id] = team
    if clashes:
        raise ValidationError(
            f"The house rules of {league} allow one team per player in a season, but one player has "
            + "; ".join(clashes)
            + ". Allow several teams per player in the house rules, or let the player retire one."
        )


def current_season(league: League) -> Season | None:
    return league.seasons.exclude(status=Season.Status.FINISHED).order_by("-number").first()


def _archive_table(season: Season) -> dict:
    rows = selectors.league_table(season)
    champion = None
    final = (
        BracketSlot.objects.filter(season=season, winner__isnull=False)
        .order_by("-round_number")
        .select_related("winner")
        .first()
    )
    if (
        final is not None
        and not BracketSlot.objects.filter(season=season, round_number=final.round_number).exclude(pk=final.pk).exists()
    ):
        champion = {"team_id": final.winner_id, "team": final.winner.name, "by": "playoffs"}
    elif rows and rows[0].played:
        champion = {"team_id": rows[0].team.pk, "team": rows[0].team.name, "by": "league table"}
    return {
        "tie_breakers": season.tie_breaker_list,
        "points": {"win": season.points_win, "draw": season.points_draw, "loss": season.points_loss},
        "champion": champion,
        "rows": [row.as_dict() for row in rows],
    }


def season_finish(*, season: Season) -> Season:
    """End a season: archive its final table as JSON; fixtures never played are voided.

    Refused while a result waits for confirmation. Finishing twice changes nothing.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=season.pk)
        if season.is_finished:
            return season
        if season.matches.filter(status__in=AWAITING_STATUSES).exists():
            raise ValidationError(
                "A result is waiting for confirmation or settlement: deal with it before ending the season."
            )
        now = timezone.now()
        with invalidation.changing(("season", season.pk)):
            season.matches.filter(status=Match.Status.SCHEDULED).update(
                status=Match.Status.VOIDED, voided_at=now, void_reason=VOID_REASON_SEASON_ENDED
            )
        season.final_table = _archive_table(season)
        season.status = Season.Status.FINISHED
        season.finished_at = now
        season.save(update_fields=["final_table", "status", "finished_at"])
    return season


def season_rollover(
    *,
    season: Season,
    name: str = "",
    format: str | None = None,
    swiss_rounds: int | None = None,
    playoff_teams: int | None = None,
) -> Season:
    """Finish ``season`` and open the next one with the league's current rules.

    Accepted teams carry over, seeded by their final position (new teams after them). Rosters,
    treasuries, XP and downtime absences carry over untouched (docs/rulings.md, "Leagues").
    """
    format = format or season.format
    playoff_teams = season.playoff_teams if playoff_teams is None else playoff_teams
    if format in Season.COUNTED_FORMATS and not swiss_rounds:
        swiss_rounds = season.swiss_rounds
    _validate_format(format, swiss_rounds, playoff_teams, season.league.game)
    with transaction.atomic():
        finished = season_finish(season=season)
        new = season_create(
            league=finished.league, format=format, name=name, swiss_rounds=swiss_rounds, playoff_teams=playoff_teams
        )
        position = {row["team_id"]: row["position"] for row in finished.final_table["rows"]}
        entries = list(new.entries.all())
        ordered = sorted(entries, key=lambda e: (position.get(e.team_id, 10**6), e.team_id))
        for seed, entry in enumerate(ordered, start=1):
            entry.seed = seed
        SeasonEntry.objects.bulk_update(entries, ["seed"])
    return new


def mark_running(season: Season) -> None:
    """An open season is running once it has its first fixture or schedule run."""
    if season.status == Season.Status.OPEN:
        season.status = Season.Status.RUNNING
        season.save(update_fields=["status"])
