"""History across seasons: a league's honours, a team's seasons, a ninja's career, a coach's record.

Only confirmed results count (a voided match keeps its rows but not its place in history). Every
function runs a fixed number of queries: its callers page the seasons or teams they show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce

from games import registry
from games.base import GameInfo
from league import selectors as league_selectors
from league.models import BracketSlot, League, Season
from matches.models import Match, MatchNinja, MatchTeam
from rules.engine import league as rules_league
from rules.engine.postgame import XP_REASON_MATCH, XP_REASON_WATER
from teams.models import Advancement, AdvancementRoll, Ninja, StrengthRating, Team, XpEvent
from teams.selectors import team_rating

CONFIRMED = Match.Status.CONFIRMED
WIN, DRAW, LOSS = MatchTeam.Outcome.WIN, MatchTeam.Outcome.DRAW, MatchTeam.Outcome.LOSS


# --- a league's honours ----------------------------------------------------------------------------


@dataclass
class SeasonHonours:
    season: Season
    champion: dict | None  # {"team_id", "team", "by"} as archived when the season finished
    playoff_rounds: list[list[BracketSlot]] = field(default_factory=list)

    @property
    def final(self) -> BracketSlot | None:
        """The last playoff round's slot when it is the only one (the final), else None."""
        if self.playoff_rounds and len(self.playoff_rounds[-1]) == 1:
            return self.playoff_rounds[-1][0]
        return None

    @property
    def runner_up_id(self) -> int | None:
        final = self.final
        if final is None or final.winner_id is None or final.away_id is None:
            return None
        return final.away_id if final.winner_id == final.home_id else final.home_id


def league_seasons(league: League) -> QuerySet:
    """The league's seasons, newest first (the honours page pages these)."""
    return Season.objects.filter(league=league).order_by("-number")


def league_honours(seasons: Sequence[Season]) -> list[SeasonHonours]:
    """Champions and playoff results of ``seasons`` (a page of them), in two queries: the bracket
    slots of every season with their teams and matches, and the matches' sides."""
    slots = (
        BracketSlot.objects.filter(season__in=list(seasons))
        .select_related("home", "away", "winner", "match")
        .prefetch_related(Prefetch("match__sides", queryset=MatchTeam.objects.order_by("slot")))
        .order_by("season_id", "round_number", "slot")
    )
    rounds: dict[int, dict[int, list[BracketSlot]]] = {}
    for slot in slots:
        rounds.setdefault(slot.season_id, {}).setdefault(slot.round_number, []).append(slot)
    return [
        SeasonHonours(
            season=season,
            champion=(season.final_table or {}).get("champion") if season.is_finished else None,
            playoff_rounds=[by_round[r] for r in sorted(by_round)] if (by_round := rounds.get(season.pk)) else [],
        )
        for season in seasons
    ]


# --- a team's history ------------------------------------------------------------------------------


@dataclass
class TeamSeasonLine:
    season: Season
    teams: int  # teams in the season's table
    position: int | None
    played: int
    won: int
    drawn: int
    lost: int
    points: int
    rating_start: int | None  # team rating at the kick-off of its first confirmed game of the season
    rating_end: int | None  # at the season's end (archived), or now for a season still running
    trophies: list[str] = field(default_factory=list)


def team_seasons(team: Team) -> QuerySet:
    """The seasons the team entered, newest first (the history page pages these)."""
    return Season.objects.filter(entries__team=team).select_related("league").order_by("-league__created_at", "-number")


def team_history(team: Team, seasons: Sequence[Season]) -> list[TeamSeasonLine]:
    """Season by season: position, record, league points, rating at start and end, trophies.

    A finished season's figures are read from its archived final table (what the table said when
    it ended); a running season's from the live table (league.selectors.league_table). Queries:
    one for the kick-off ratings, one for the playoff finals, and the live table's few when a
    running season is on the page (a team is in at most one running season).
    """
    seasons = list(seasons)
    ratings: dict[int, list[int]] = {}
    kick_offs = (
        MatchTeam.objects.filter(team=team, match__season__in=seasons, match__status=CONFIRMED, rating__isnull=False)
        .order_by("match__confirmed_at", "match_id")
        .values_list("match__season_id", "rating")
    )
    for season_id, rating in kick_offs:
        ratings.setdefault(season_id, []).append(rating)
    honours = {h.season.pk: h for h in league_honours(seasons)}
    lines = []
    for season in seasons:
        if season.is_finished:
            archived = season.final_table or {}
            rows = archived.get("rows", [])
            row = next((r for r in rows if r["team_id"] == team.pk), None)
            champion = archived.get("champion")
            end = row["rating"] if row else None
        else:
            live = league_selectors.league_table(season)
            rows = [r.as_dict() for r in live]
            row = next((r for r in rows if r["team_id"] == team.pk), None)
            champion = None
            end = team_rating(team)
        trophies = []
        if champion and champion.get("team_id") == team.pk:
            trophies.append(f"Champion ({champion.get('by', 'league table')})")
        if honours[season.pk].runner_up_id == team.pk:
            trophies.append("Playoff finalist")
        won_playoffs = champion and champion.get("by") == "playoffs" and champion.get("team_id") != team.pk
        if row and row["position"] == 1 and row["played"] and won_playoffs:
            trophies.append("Top of the regular season")
        played = ratings.get(season.pk, [])
        lines.append(
            TeamSeasonLine(
                season=season,
                teams=len(rows),
                position=row["position"] if row else None,
                played=row["played"] if row else 0,
                won=row["won"] if row else 0,
                drawn=row["drawn"] if row else 0,
                lost=row["lost"] if row else 0,
                points=row["points"] if row else 0,
                rating_start=played[0] if played else None,
                rating_end=end,
                trophies=trophies,
            )
        )
    return lines


# --- a ninja's career ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelReached:
    level: rules_league.XpLevel
    match_id: int | None
    date: object  # the match's date, else the day the roll was made


@dataclass
class NinjaCareer:
    ninja: Ninja
    games: int
    injuries: int
    chunin_stuns: int
    reveals: int
    all_star_awards: int
    healing_house: int
    xp_by_source: list[tuple[str, int]]
    level: rules_league.XpLevel
    levels: list[LevelReached]
    advancements: list[Advancement]
    teams: list[Team]


def ninja_for_career(pk: int) -> Ninja:
    return Ninja.objects.select_related("profile", "team", "team__owner", "team__clan").get(pk=pk)


def ninja_career(ninja: Ninja) -> NinjaCareer:
    """A ninja's career in five queries: feats summed over its confirmed games, the Water XP, the
    levels it reached (advancement rolls not voided), its advancements, the teams it played for.

    XP by source splits the match XP with the rules' own ``match_xp`` (linear in the feats, so it
    applies to the sums): injuries, chunin stunned, reveals, All-Star awards; the rest of the
    match XP is the challenges' awards. "Other" is whatever else moved its XP (a master's
    correction, XP carried in from before the site)."""
    zero = Value(0)
    feats = MatchNinja.objects.filter(ninja=ninja, side__match__status=CONFIRMED).aggregate(
        games=Count("id", filter=Q(played=True)),
        injuries=Coalesce(Sum("injuries"), zero),
        chunin_stuns=Coalesce(Sum("chunin_stuns"), zero),
        reveals=Coalesce(Sum("reveals"), zero),
        all_star_awards=Coalesce(Sum("all_star_awards"), zero),
        healing_house=Count("id", filter=Q(in_healing_house=True)),
        match_xp=Coalesce(Sum("xp_gained"), zero),
    )
    xp_events = dict(
        XpEvent.objects.filter(ninja=ninja)
        .filter(Q(match__isnull=True) | Q(match__status=CONFIRMED))
        .exclude(reason=XP_REASON_MATCH)
        .values_list("reason")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    kind = ninja.profile.kind
    award = rules_league.match_xp(
        feats["injuries"],
        feats["chunin_stuns"],
        feats["reveals"],
        feats["all_star_awards"],
        is_chunin=kind == ninja.profile.Kind.CHUNIN,
        is_hero=kind == ninja.profile.Kind.HERO,
        is_ronin=kind == ninja.profile.Kind.RONIN,
    )
    water = xp_events.pop(XP_REASON_WATER, 0)
    other = sum(xp_events.values())
    sources = [
        ("Injuries inflicted", award.injuries),
        ("Chunin stunned", award.chunin_stuns),
        ("Reveals", award.reveals),
        ("All-Star awards", award.all_star),
        ("Challenge awards", feats["match_xp"] - award.total + award.challenge),
        ("Downtime: Water", water),
    ]
    if other:
        sources.append(("Other (corrections, earlier games)", other))
    rolls = (
        AdvancementRoll.objects.filter(ninja=ninja)
        .exclude(status=AdvancementRoll.Status.VOIDED)
        .select_related("match")
        .order_by("level", "id")
    )
    levels, seen = [], set()
    for roll in rolls:
        if roll.level in seen:
            continue
        seen.add(roll.level)
        when = roll.match.date if roll.match_id and roll.match.date else roll.created_at.date()
        levels.append(LevelReached(level=rules_league.XP_LEVELS[roll.level], match_id=roll.match_id, date=when))
    team_ids = set(
        MatchTeam.objects.filter(ninjas__ninja=ninja, match__status=CONFIRMED).values_list("team_id", flat=True)
    )
    team_ids.add(ninja.team_id)
    teams = list(Team.objects.filter(pk__in=team_ids).select_related("clan").order_by("name"))
    return NinjaCareer(
        ninja=ninja,
        games=feats["games"],
        injuries=feats["injuries"],
        chunin_stuns=feats["chunin_stuns"],
        reveals=feats["reveals"],
        all_star_awards=feats["all_star_awards"],
        healing_house=feats["healing_house"],
        xp_by_source=sources,
        level=rules_league.xp_level(max(ninja.xp, 0)),
        levels=levels,
        advancements=list(ninja.advancements.select_related("keyword").order_by("id")),
        teams=teams,
    )


# --- a coach -------------------------------------------------------------------------------------


def record_annotations() -> dict:
    """Played/won/drawn/lost over a team's confirmed games (friendlies and playoffs included: they
    are games played), as filtered aggregates of its sides."""
    confirmed = Q(match_sides__match__status=CONFIRMED)
    return {
        "played": Count("match_sides", filter=confirmed),
        "won": Count("match_sides", filter=confirmed & Q(match_sides__outcome=WIN)),
        "drawn": Count("match_sides", filter=confirmed & Q(match_sides__outcome=DRAW)),
        "lost": Count("match_sides", filter=confirmed & Q(match_sides__outcome=LOSS)),
    }


def coach_teams(user) -> QuerySet:
    """The coach's teams with each one's career record, in one query (the page pages these)."""
    return (
        Team.objects.filter(owner=user)
        .select_related("clan", "league")
        .annotate(**record_annotations())
        .order_by("-played", "name", "id")
    )


def coach_record(user) -> dict:
    """The coach's career record over all their teams' confirmed games, one query (every game's
    games counted: :func:`coach_careers` keeps each game apart, as the coach's page shows them)."""
    confirmed = Q(match__status=CONFIRMED)
    return MatchTeam.objects.filter(team__owner=user).aggregate(
        played=Count("id", filter=confirmed),
        won=Count("id", filter=confirmed & Q(outcome=WIN)),
        drawn=Count("id", filter=confirmed & Q(outcome=DRAW)),
        lost=Count("id", filter=confirmed & Q(outcome=LOSS)),
    )


@dataclass
class GameCareer:
    """A member's career in one game: the record of their teams (or entries) of it and their strength
    ratings in it, the game's own system first. Never summed with another game's."""

    game: GameInfo
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    ratings: list[StrengthRating] = field(default_factory=list)

    def rating_lines(self) -> list[tuple[StrengthRating, str]]:
        """Each rating with what it counts, in the game's words ("over 3 two-team games", "over 2
        tables of 2 to 5 players")."""
        out = []
        for rating in self.ratings:
            n = rating.games
            if rating.is_glicko:
                unit = self.game.in_own_words("two-team game" if n == 1 else "two-team games")
            elif self.game.strength_system == StrengthRating.System.PLACKETT_LUCE:
                unit = f"table{'' if n == 1 else 's'} of {self.game.min_players} to {self.game.max_players} {self.game.entrants}"
            else:
                unit = self.game.in_own_words(f"game{'' if n == 1 else 's'} of three or four teams")
            out.append((rating, f"over {n} {unit}"))
        return out

    @property
    def record(self) -> str:
        """The record in the game's words: places for a table game, no draws where there were none
        in a game without a score."""
        return registry.game_of(self.game.key).career_record(self.won, self.drawn, self.lost)


def coach_careers(user) -> list[GameCareer]:
    """The member's career a game, in the registry's order, for each game they played or are rated
    in: two queries (the records grouped by game, the ratings)."""
    confirmed = Q(match__status=CONFIRMED)
    careers: dict[str, GameCareer] = {}
    records = (
        MatchTeam.objects.filter(team__owner=user)
        .values("team__game")
        .annotate(
            played=Count("id", filter=confirmed),
            won=Count("id", filter=confirmed & Q(outcome=WIN)),
            drawn=Count("id", filter=confirmed & Q(outcome=DRAW)),
            lost=Count("id", filter=confirmed & Q(outcome=LOSS)),
        )
        .order_by()
    )
    for row in records:
        if row["played"] and row["team__game"] in registry.GAMES:
            careers[row["team__game"]] = GameCareer(
                registry.get(row["team__game"]), row["played"], row["won"], row["drawn"], row["lost"]
            )
    for rating in StrengthRating.objects.filter(coach=user, game__in=list(registry.GAMES)):
        careers.setdefault(rating.game, GameCareer(registry.get(rating.game))).ratings.append(rating)
    for career in careers.values():
        own = career.game.strength_system
        career.ratings.sort(key=lambda r: (r.system != own, r.system))
    return [careers[key] for key in registry.GAMES if key in careers]
