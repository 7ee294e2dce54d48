"""What a write of the league's, teams' and matches' rows changes, for the cache versions of
common/invalidation.py (registered by ``LeagueConfig.ready``): the seeds of the models whose
foreign keys do not say it, and how a transaction's seeds widen into the scopes to bump.

* a team's write: the team, and every season it is entered in with their leagues (a league table
  shows its teams' names, ratings and owners), and its own league (the entrants' list);
* a match's write: the match, its season and league, and its sides' teams (their scrolls);
* a season's write: the season and its league (name and rules: ``league-meta``);
* a league's write: the league and its ``league-meta`` (every page of the league shows its name);
* a user's (a rename): the teams they own and the leagues they master;
* a stored strength rating: a team's, the team; a coach's, only the site's version.
"""

from __future__ import annotations

from common import invalidation
from league.models import League, Season, SeasonEntry
from matches.models import Match, MatchTeam
from teams.models import Ninja, StrengthRating, Team


def _league(instance, update_fields=None):
    return {("league", instance.pk), ("league-meta", instance.pk)}


def _season(instance, update_fields=None):
    return {("season", instance.pk), ("league", instance.league_id), ("league-meta", instance.league_id)}


def _team(instance, update_fields=None):
    return {("team", instance.pk), ("league", instance.league_id)}


def _match(instance, update_fields=None):
    return {("match", instance.pk), ("season", instance.season_id), ("league", instance.league_id)}


def _rating(instance, update_fields=None):
    """A team's stored strength is on its pages and its tables; a coach's only on pages no cache
    keeps (the coach's page, the leaderboards), so it moves the site's version alone."""
    return {("team", instance.team_id)} if instance.team_id else {("site", 0)}


def expand(by_kind: dict[str, set[int]]) -> set[str]:
    """Widen seeds (in place) into teams, matches, seasons and leagues: a few indexed queries."""
    teams = by_kind.setdefault("team", set())
    matches = by_kind.setdefault("match", set())
    seasons = by_kind.setdefault("season", set())
    leagues = by_kind.setdefault("league", set())
    metas = by_kind.setdefault("league-meta", set())
    if ninjas := by_kind.get("ninja"):
        teams |= set(Ninja.objects.filter(pk__in=ninjas).values_list("team_id", flat=True))
    if sides := by_kind.get("side"):
        for match_id, team_id in MatchTeam.objects.filter(pk__in=sides).values_list("match_id", "team_id"):
            matches.add(match_id)
            teams.add(team_id)
    if users := by_kind.get("user"):
        teams |= set(Team.objects.filter(owner_id__in=users).values_list("pk", flat=True))
        mastered = set(League.objects.filter(master_id__in=users).values_list("pk", flat=True))
        leagues |= mastered
        metas |= mastered
    if matches:
        for season_id, league_id in Match.objects.filter(pk__in=matches).values_list("season_id", "league_id"):
            seasons.add(season_id)
            leagues.add(league_id)
        teams |= set(MatchTeam.objects.filter(match_id__in=matches).values_list("team_id", flat=True))
    if teams:
        leagues |= set(Team.objects.filter(pk__in=teams).values_list("league_id", flat=True))
        seasons |= set(SeasonEntry.objects.filter(team_id__in=teams).values_list("season_id", flat=True))
    seasons.discard(None)
    if seasons:
        leagues |= set(Season.objects.filter(pk__in=seasons).values_list("league_id", flat=True))
    leagues.discard(None)
    return set()


def register() -> None:
    invalidation.register_seeds(League, _league)
    invalidation.register_seeds(Season, _season)
    invalidation.register_seeds(Team, _team)
    invalidation.register_seeds(Match, _match)
    invalidation.register_seeds(StrengthRating, _rating)
    invalidation.register_expansion(expand)
