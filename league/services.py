"""Writes for leagues: leagues and their house rules, seasons and rollovers, applications,
fixtures (generated or self-arranged), schedule runs and the playoff bracket.

Check, then do: every service validates first and writes inside one ``transaction.atomic`` block.
Schedule generation is idempotent: a :class:`ScheduleRun` is unique per (season, kind, round), the
season row is locked while fixtures are written, and a run that is done is never run again.
Randomness is passed in or seeded from a stored seed, so every draw can be replayed.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import secrets
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from common import text
from league import readmodel, scheduling, selectors
from league.models import (
    MAX_HOUSE_KOBAN,
    MAX_HOUSE_POINTS,
    REGULAR_STAGE,
    TIE_BREAKER_CHOICES,
    BracketSlot,
    Bye,
    HouseRules,
    League,
    Round,
    ScheduleRun,
    Season,
    SeasonEntry,
    playoff_stage,
)
from matches.models import DiceRoll, Match, MatchTeam
from outbox import jobs
from rules.engine import league as rules_league
from rules.models import Challenge
from teams.models import Team, TreasuryEntry
from teams.services import treasury_post

Progress = Callable[[int, int], None]
logger = logging.getLogger(__name__)

#: Fixtures that still count as "to be played" (a submitted result waits for confirmation).
OPEN_STATUSES = (Match.Status.SCHEDULED, Match.Status.SUBMITTED)
VOID_REASON_SEASON_ENDED = "Not played before the season ended"


# --- house rules and leagues ---------------------------------------------------------------------


def validate_tie_breakers(value: str) -> str:
    """Normalise a comma-separated tie-breaker list; every name must be known, none repeated."""
    names = [t.strip() for t in (value or "").split(",") if t.strip()]
    unknown = [n for n in names if n not in TIE_BREAKER_CHOICES]
    if unknown:
        raise ValidationError({"tie_breakers": f"Unknown tie-breaker: {', '.join(unknown)}."})
    if len(set(names)) != len(names):
        raise ValidationError({"tie_breakers": "A tie-breaker is listed twice."})
    return ",".join(names)


#: House rules that may be empty (the default) or a number up to a bound.
BOUNDED_HOUSE_RULES = {
    "points_bye": MAX_HOUSE_POINTS,
    "points_forfeit_win": MAX_HOUSE_POINTS,
    "points_forfeit_loss": MAX_HOUSE_POINTS,
    "revenue_forfeit_win": MAX_HOUSE_KOBAN,
}


def _clean_house_rules(rules: Mapping) -> dict:
    unknown = set(rules) - set(HouseRules.HOUSE_RULE_FIELDS)
    if unknown:
        raise ValidationError(f"Not a house rule: {', '.join(sorted(unknown))}.")
    cleaned = dict(rules)
    if "tie_breakers" in cleaned:
        cleaned["tie_breakers"] = validate_tie_breakers(cleaned["tie_breakers"])
    for name, bound in BOUNDED_HOUSE_RULES.items():
        value = cleaned.get(name)
        if value is not None and not 0 <= value <= bound:
            raise ValidationError({name: f"Between 0 and {bound} (empty: the default)."})
    cap = cleaned.get("max_bonus_koban")
    if cap is not None and not 0 <= cap <= rules_league.MAX_BONUS_KOBAN_LIMIT:
        raise ValidationError(
            {"max_bonus_koban": f"The bonus koban cap is between 0 and {rules_league.MAX_BONUS_KOBAN_LIMIT}."}
        )
    return cleaned


#: Slugs the league URLs use for other pages.
RESERVED_SLUGS = {"new", "tasks", "schedule-runs", "fixtures"}


def _unique_slug(name: str) -> str:
    base = slugify(name)[:90] or "league"
    slug, n = base, 2
    while slug in RESERVED_SLUGS or League.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def _clean_description(description: str) -> str:
    description = (description or "").strip()
    try:
        text.validate_multiline(description)
    except ValidationError as exc:
        raise ValidationError({"description": exc.messages}) from exc
    if len(description) > League._meta.get_field("description").max_length:
        raise ValidationError({"description": "The description is too long."})
    return description


def _league_name_taken(name: str) -> None:
    """Raise the form error when a league has ``name``, or a name that looks the same."""
    existing = League.objects.filter(name_key=text.name_key(name)).values_list("name", flat=True).first()
    if existing is not None:
        raise ValidationError({"name": text.same_name_message(name, existing, thing="league")})


def league_create(*, master, name: str, description: str = "", **house_rules) -> League:
    """A new league; whoever creates it is its ninja master.

    Names are unique by their key (common/text.py): the same name in other letters, cases or
    spaces, or a look-alike, is refused. Two people founding the same name at once: the database's
    unique constraint refuses the second, who gets the same form error (not a server error).
    """
    name = text.clean_name(name, max_length=League._meta.get_field("name").max_length, what="the league a name")
    description = _clean_description(description)
    _league_name_taken(name)
    rules = _clean_house_rules(house_rules)
    for _attempt in range(5):
        try:
            with transaction.atomic():
                return League.objects.create(
                    name=name, slug=_unique_slug(name), description=description, master=master, **rules
                )
        except IntegrityError:
            _league_name_taken(name)  # lost the race for the name: the form error
            # Lost the race for the slug only (another name with the same slug): take the next one.
    raise ValidationError({"name": "The league could not be founded just now; please try again."})


def league_update(*, league: League, description: str | None = None, **house_rules) -> League:
    """Change the league's house rules: they apply from its next season; seasons keep their own."""
    rules = _clean_house_rules(house_rules)
    fields = list(rules)
    for name, value in rules.items():
        setattr(league, name, value)
    if description is not None:
        league.description = _clean_description(description)
        fields.append("description")
    if fields:
        league.save(update_fields=fields)
    return league


# --- seasons -------------------------------------------------------------------------------------


def _validate_format(format: str, swiss_rounds: int | None, playoff_teams: int) -> None:
    if format not in Season.Format.values:
        raise ValidationError({"format": f"Unknown format {format!r}."})
    if format == Season.Format.SWISS and not swiss_rounds:
        raise ValidationError({"swiss_rounds": "Say how many swiss rounds the season has."})
    if playoff_teams == 1:
        raise ValidationError({"playoff_teams": "A playoff needs at least two teams (0: no playoffs)."})


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
    _validate_format(format, swiss_rounds, playoff_teams)
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
            swiss_rounds=swiss_rounds if format == Season.Format.SWISS else None,
            playoff_teams=playoff_teams,
            **league.house_rules(),
        )
        teams = Team.objects.filter(league=league, entry_status=Team.EntryStatus.ACCEPTED).exclude(
            status=Team.Status.RETIRED
        )
        SeasonEntry.objects.bulk_create([SeasonEntry(season=season, team=t) for t in teams.order_by("id")])
    return season


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
        if season.matches.filter(status=Match.Status.SUBMITTED).exists():
            raise ValidationError("A result is waiting for confirmation: confirm or void it before ending the season.")
        now = timezone.now()
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
    if format == Season.Format.SWISS and not swiss_rounds:
        swiss_rounds = season.swiss_rounds
    _validate_format(format, swiss_rounds, playoff_teams)
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


# --- applications --------------------------------------------------------------------------------


def team_apply(*, team: Team, league: League) -> Team:
    """A team owner applies to join a league; the master accepts or refuses."""
    if team.status == Team.Status.RETIRED:
        raise ValidationError("A retired team cannot join a league.")
    if team.entry_status == Team.EntryStatus.ACCEPTED and team.league_id:
        raise ValidationError(f"{team.name} already plays in {team.league}.")
    if team.league_id == league.pk and team.entry_status == Team.EntryStatus.PENDING:
        raise ValidationError(f"{team.name} has already applied to {league}.")

    def name_taken() -> None:
        existing = (
            Team.objects.filter(league=league, name_key=text.name_key(team.name))
            .exclude(pk=team.pk)
            .values_list("name", flat=True)
            .first()
        )
        if existing is not None:
            message = text.same_name_message(team.name, existing, thing="team", where=f" in {league}")
            raise ValidationError(f"{message} Rename yours first.")

    name_taken()
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


def application_accept(*, team: Team) -> SeasonEntry | None:
    """Accept a pending team into its league, and into the current season when it can still join.

    A team accepted after a round robin was generated waits for the next season (its schedule is
    fixed); in the other formats it joins the running season at once.
    """
    with transaction.atomic():
        team = Team.objects.select_for_update(of=("self",)).select_related("league").get(pk=team.pk)
        if team.league_id is None or team.entry_status != Team.EntryStatus.PENDING:
            raise ValidationError(f"{team.name} has no pending application.")
        team.entry_status = Team.EntryStatus.ACCEPTED
        team.save(update_fields=["entry_status"])
        season = current_season(team.league)
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
        team.league = None
        team.entry_status = Team.EntryStatus.REFUSED
        team.save(update_fields=["league", "entry_status"])
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


# --- fixtures ------------------------------------------------------------------------------------


def _challenge_named(name: str, challenges: Mapping[str, Challenge] | None) -> Challenge:
    if challenges is not None and name in challenges:
        return challenges[name]
    return Challenge.objects.get(name=name)


def fixture_create(
    *,
    season: Season,
    round_number: int | None,
    home: Team,
    away: Team,
    challenge: Challenge | None = None,
    rng: random.Random,
    stage: str = REGULAR_STAGE,
    pairing_reason: str = "",
    date=None,
    challenges: Mapping[str, Challenge] | None = None,
) -> Match:
    """A scheduled fixture: a Match with its two sides (slot 1 = home = player 1).

    Unless the master set ``challenge``, the random challenge generator is rolled with ``rng``:
    both faces go to ``challenge_roll`` (and a DiceRoll row); on Void or Spirit nobody's
    challenge is set yet and ``challenge_chooser`` says which player picks it.
    ``challenges`` (name -> Challenge) saves a query per fixture when many are made.
    """
    if home.pk == away.pk:
        raise ValidationError("A team cannot play itself.")
    chooser, roll = "", None
    if challenge is None:
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
        match = Match.objects.create(
            league_id=season.league_id,
            season=season,
            round_number=round_number,
            stage=stage,
            pairing_reason=pairing_reason[:200],
            challenge=challenge,
            challenge_chooser=chooser,
            challenge_roll=roll,
            date=date,
        )
        MatchTeam.objects.bulk_create(
            [MatchTeam(match=match, team=home, slot=1), MatchTeam(match=match, team=away, slot=2)]
        )
        if roll is not None:
            DiceRoll.objects.create(
                match=match, purpose=DiceRoll.Purpose.CHALLENGE, faces=[roll["first"], roll["second"]]
            )
    return match


def _season_entry_ids(season: Season) -> set[int]:
    return set(season.entries.values_list("team_id", flat=True))


def fixture_arrange(
    *,
    season: Season,
    home: Team,
    away: Team,
    challenge: Challenge | None = None,
    date=None,
    rng: random.Random | None = None,
) -> Match:
    """A self-arranged fixture between two teams of the season (who may do it: permissions)."""
    if season.format != Season.Format.SELF_ARRANGED:
        raise ValidationError("In this season the fixtures are scheduled by the master.")
    if season.is_finished:
        raise ValidationError("The season is over.")
    if home.pk == away.pk:
        raise ValidationError("Choose two different teams.")
    entered = _season_entry_ids(season)
    missing = [t.name for t in (home, away) if t.pk not in entered]
    if missing:
        raise ValidationError(f"Not in this season: {', '.join(missing)}.")
    if home.owner_id == away.owner_id:
        raise ValidationError("Two teams of the same player never meet.")
    rng = rng or random.Random(secrets.randbits(63))
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        match = fixture_create(
            season=season,
            round_number=None,
            home=home,
            away=away,
            challenge=challenge,
            rng=rng,
            pairing_reason="arranged by the players",
            date=date,
        )
        _mark_running(season)
    return match


def fixture_set_challenge(*, match: Match, challenge: Challenge) -> Match:
    """Set the challenge of a fixture not yet kicked off (the chooser's pick, or the master's)."""
    if match.status != Match.Status.SCHEDULED or match.kicked_off_at is not None:
        raise ValidationError("The challenge is fixed once the match has kicked off.")
    match.challenge = challenge
    match.save(update_fields=["challenge"])
    return match


# --- schedule runs -------------------------------------------------------------------------------

FORMAT_KIND = {
    Season.Format.ROUND_ROBIN: ScheduleRun.Kind.ROUND_ROBIN,
    Season.Format.DOUBLE_ROUND_ROBIN: ScheduleRun.Kind.ROUND_ROBIN,
    Season.Format.RANDOM_WEEKLY: ScheduleRun.Kind.RANDOM_WEEKLY,
    Season.Format.SWISS: ScheduleRun.Kind.SWISS,
}


def _mark_running(season: Season) -> None:
    if season.status == Season.Status.OPEN:
        season.status = Season.Status.RUNNING
        season.save(update_fields=["status"])


def _regular_matches(season: Season):
    return season.matches.filter(stage=REGULAR_STAGE).exclude(status=Match.Status.VOIDED)


def schedule_next(season: Season, kind: str) -> tuple[int, list[str]]:
    """The round a new run of ``kind`` would generate, and every reason it may not (empty: it may)."""
    problems: list[str] = []
    if season.is_finished:
        return 0, ["The season is over."]
    entries = season.entries.count()
    if kind == ScheduleRun.Kind.PLAYOFF:
        if season.playoff_teams < 2:
            problems.append("This season has no playoffs.")
        if entries < 2:
            problems.append("A playoff needs at least two teams.")
        if _regular_matches(season).filter(status__in=OPEN_STATUSES).exists():
            problems.append("Every regular-season fixture must be played (or voided) before the playoffs.")
        return 1, problems
    if FORMAT_KIND.get(season.format) != kind:
        return 0, [f"A {season.get_format_display().lower()} season has no {kind.replace('_', ' ')} schedule."]
    if entries < 2:
        problems.append("At least two teams must be entered.")
    if season.schedule_runs.filter(kind=ScheduleRun.Kind.PLAYOFF).exists():
        problems.append("The playoffs have started.")
    if kind == ScheduleRun.Kind.ROUND_ROBIN:
        if _regular_matches(season).exists():
            problems.append("The season already has fixtures.")
        return 0, problems
    last = season.schedule_runs.filter(kind=kind).aggregate(n=Max("round_number"))["n"] or 0
    if (
        last
        and season.schedule_runs.filter(kind=kind, round_number=last).exclude(status=ScheduleRun.Status.DONE).exists()
    ):
        problems.append(f"Round {last} is still being generated.")
    if _regular_matches(season).filter(status__in=OPEN_STATUSES).exists():
        problems.append(f"Every fixture of round {last} must be played (or voided) first.")
    if kind == ScheduleRun.Kind.SWISS and season.swiss_rounds and last >= season.swiss_rounds:
        problems.append(f"All {season.swiss_rounds} swiss rounds have been paired.")
    return last + 1, problems


def schedule_request(
    *,
    season: Season,
    kind: str,
    round_number: int | None = None,
    challenge: Challenge | None = None,
    actor=None,
    seed: int | None = None,
    starts_on=None,
    deadline=None,
    interval_days: int = 7,
) -> ScheduleRun:
    """Record a request to generate fixtures; the caller dispatches the task after commit.

    Idempotent: asking again for a round that already has a run returns that run (a failed run
    is reset to be tried again). ``round_number`` is the round the page offered (so a double
    submission asks for the same round); ``None`` means the next one.
    """
    if kind not in ScheduleRun.Kind.values:
        raise ValidationError(f"Unknown schedule kind {kind!r}.")
    _check_dates(starts_on, deadline)
    if not 1 <= interval_days <= 365:
        raise ValidationError({"interval_days": "Between 1 and 365 days."})
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        expected, problems = schedule_next(season, kind)
        wanted = expected if round_number is None else round_number
        existing = ScheduleRun.objects.select_for_update().filter(season=season, kind=kind, round_number=wanted).first()
        if existing is not None:
            if existing.status == ScheduleRun.Status.FAILED:
                existing.status = ScheduleRun.Status.PENDING
                existing.task_id = str(uuid.uuid4())
                existing.error = ""
                existing.queued_at, existing.restarts, existing.restart_note = timezone.now(), 0, ""
                existing.save(update_fields=["status", "task_id", "error", "queued_at", "restarts", "restart_note"])
            return existing
        if problems:
            raise ValidationError(problems)
        if wanted != expected:
            raise ValidationError(f"The next round to generate is round {expected}, not {wanted}.")
        run = ScheduleRun.objects.create(
            season=season,
            kind=kind,
            round_number=wanted,
            task_id=str(uuid.uuid4()),
            seed=secrets.randbits(63) if seed is None else seed,
            challenge=challenge,
            requested_by=actor if getattr(actor, "pk", None) else None,
            queued_at=timezone.now(),
            starts_on=starts_on,
            deadline=deadline,
            interval_days=interval_days,
        )
        _mark_running(season)
    return run


def _seeded_team_ids(season: Season, rng: random.Random) -> list[int]:
    """Entries in seed order; unseeded entries are drawn at random after the seeded ones (and keep
    the seed they got)."""
    entries = list(season.entries.order_by("seed", "id"))
    seeded = sorted((e for e in entries if e.seed is not None), key=lambda e: (e.seed, e.id))
    unseeded = [e for e in entries if e.seed is None]
    rng.shuffle(unseeded)
    ordered = seeded + unseeded
    for i, entry in enumerate(ordered, start=1):
        entry.seed = i
    SeasonEntry.objects.bulk_update(ordered, ["seed"])
    return [e.team_id for e in ordered]


# A plan: fixtures (round, home id, away id, reason, bracket slot or None) and byes (round, team, reason).
Planned = tuple[int, int, int, str, BracketSlot | None]


def _history(season: Season) -> list[frozenset]:
    """Every regular-season meeting (not voided), once per game."""
    sides: dict[int, list[int]] = {}
    for match_id, team_id in (
        MatchTeam.objects.filter(match__season=season, match__stage=REGULAR_STAGE)
        .exclude(match__status=Match.Status.VOIDED)
        .values_list("match_id", "team_id")
    ):
        sides.setdefault(match_id, []).append(team_id)
    return [frozenset(t) for t in sides.values() if len(t) == 2]


def _plan_round_robin(run: ScheduleRun, season: Season, rng: random.Random):
    ids = _seeded_team_ids(season, rng)
    cycles = 2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1
    fixtures, byes = [], []
    for rnd in scheduling.round_robin(ids, cycles=cycles):
        for pairing in rnd.pairings:
            fixtures.append((rnd.number, pairing.home, pairing.away, "", None))
        if rnd.bye is not None:
            byes.append((rnd.number, rnd.bye, "bye: odd number of teams"))
    return fixtures, byes


def _plan_weekly(run: ScheduleRun, season: Season, rng: random.Random):
    teams = list(Team.objects.filter(season_entries__season=season).order_by("id").values_list("id", "owner_id"))
    ids = [t for t, _ in teams]
    byes = Counter(Bye.objects.filter(season=season, stage=REGULAR_STAGE).values_list("team_id", flat=True))
    try:
        rnd = scheduling.random_weekly_round(
            ids, owners=dict(teams), history=_history(season), rng=rng, byes=byes, number=run.round_number
        )
    except ValueError as exc:
        raise ValidationError(str(exc)) from exc
    fixtures = [(rnd.number, p.home, p.away, "random draw", None) for p in rnd.pairings]
    bye = [(rnd.number, rnd.bye, "bye: fewest byes so far")] if rnd.bye is not None else []
    return fixtures, bye


def _plan_swiss(run: ScheduleRun, season: Season, rng: random.Random):
    table = selectors.league_table(season)
    standings = [scheduling.SwissEntry(team_id=r.team.pk, score=r.points, rank=r.position) for r in table]
    byes_had = set(Bye.objects.filter(season=season, stage=REGULAR_STAGE).values_list("team_id", flat=True))
    rnd = scheduling.swiss_round(standings, history=_history(season), byes_had=byes_had)
    fixtures = []
    for p in rnd.pairings:
        reason = p.reason + ("; rematch (unavoidable)" if p.rematch else "")
        fixtures.append((run.round_number, p.home, p.away, reason, None))
    byes = [(run.round_number, rnd.bye, rnd.bye_reason or "bye")] if rnd.bye is not None else []
    return fixtures, byes


def _plan_playoffs(run: ScheduleRun, season: Season, rng: random.Random):
    table = selectors.league_table(season)
    seeded = [row.team.pk for row in table[: season.playoff_teams]]
    fixtures, byes = [], []
    for bm in scheduling.playoff_bracket(seeded):
        slot = BracketSlot(
            season=season,
            round_number=1,
            slot=bm.slot,
            home_id=bm.home,
            away_id=bm.away,
            home_seed=bm.home_seed,
            away_seed=bm.away_seed,
            winner_id=bm.home if bm.is_bye else None,
        )
        if bm.is_bye:
            slot.save()
            byes.append((1, bm.home, f"bye: seed {bm.home_seed} goes through"))
        else:
            fixtures.append((1, bm.home, bm.away, f"seed {bm.home_seed} v seed {bm.away_seed}", slot))
    return fixtures, byes


PLANNERS = {
    ScheduleRun.Kind.ROUND_ROBIN: _plan_round_robin,
    ScheduleRun.Kind.RANDOM_WEEKLY: _plan_weekly,
    ScheduleRun.Kind.SWISS: _plan_swiss,
    ScheduleRun.Kind.PLAYOFF: _plan_playoffs,
}


def _write_plan(
    *,
    run: ScheduleRun,
    season: Season,
    fixtures: list[Planned],
    byes,
    rng: random.Random,
    progress: Progress | None = None,
) -> list[Match]:
    teams = Team.objects.in_bulk({t for f in fixtures for t in f[1:3]})
    challenges = {c.name: c for c in Challenge.objects.all()}
    total = len(fixtures)
    made = []
    for i, (round_number, home, away, reason, slot) in enumerate(fixtures, start=1):
        match = fixture_create(
            season=season,
            round_number=round_number,
            home=teams[home],
            away=teams[away],
            challenge=run.challenge,
            rng=rng,
            stage=run.stage,
            pairing_reason=reason,
            challenges=challenges,
        )
        if slot is not None:
            slot.match = match
            slot.save()
        made.append(match)
        if progress is not None:
            progress(i, total)
    Bye.objects.bulk_create(
        [Bye(season=season, stage=run.stage, round_number=r, team_id=t, reason=reason) for r, t, reason in byes]
    )
    if byes and run.stage == REGULAR_STAGE and readmodel.counts_bye_points(season):
        readmodel.standings_refresh(season=season, team_ids=[t for _r, t, _reason in byes])  # a bye scores
    return made


def schedule_generate(*, run_id: int, progress: Progress | None = None) -> ScheduleRun:
    """Generate the fixtures of one run (what the Celery task calls). Safe to run twice.

    The season row is locked for the whole generation; a run already done returns at once; a
    run whose round already has fixtures is only marked done. A schedule that cannot be made
    (e.g. only teams of the same player left) marks the run failed with the reason.
    """
    # A sign of life before the long transaction (during it, the run's row lock is one).
    jobs.heartbeat(ScheduleRun, run_id, force=True)
    try:
        with transaction.atomic():
            run = ScheduleRun.objects.only("season_id").get(pk=run_id)
            season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=run.season_id)
            run = ScheduleRun.objects.select_for_update(of=("self",)).select_related("challenge").get(pk=run_id)
            if run.status == ScheduleRun.Status.DONE:
                return run
            existing = season.matches.filter(stage=run.stage).exclude(status=Match.Status.VOIDED)
            if run.kind != ScheduleRun.Kind.ROUND_ROBIN:
                existing = existing.filter(round_number=run.round_number)
            if run.kind == ScheduleRun.Kind.PLAYOFF:
                if BracketSlot.objects.filter(season=season, round_number=run.round_number).exists():
                    return _run_done(run, existing.count())
            elif existing.exists():
                return _run_done(run, existing.count())
            rng = random.Random(run.seed)
            fixtures, byes = PLANNERS[run.kind](run, season, rng)
            run.total = len(fixtures)
            _write_plan(run=run, season=season, fixtures=fixtures, byes=byes, rng=rng, progress=progress)
            _write_round_dates(run, season, {f[0] for f in fixtures} | {b[0] for b in byes})
            _mark_running(season)
            return _run_done(run, len(fixtures))
    except ValidationError as exc:
        error = "; ".join(exc.messages)[:300]
        ScheduleRun.objects.filter(pk=run_id).update(status=ScheduleRun.Status.FAILED, error=error)
        return ScheduleRun.objects.get(pk=run_id)


def _run_done(run: ScheduleRun, count: int) -> ScheduleRun:
    run.status = ScheduleRun.Status.DONE
    run.total = run.done = count
    run.finished_at = timezone.now()
    run.error = ""
    run.save(update_fields=["status", "total", "done", "finished_at", "error"])
    return run


def schedule_run_failed(*, run_id: int, error: str) -> None:
    """Record that a run gave up (the task ran out of retries)."""
    ScheduleRun.objects.filter(pk=run_id).exclude(status=ScheduleRun.Status.DONE).update(
        status=ScheduleRun.Status.FAILED, error=error[:300]
    )


# --- playoffs ------------------------------------------------------------------------------------


def _slot_winner(slot: BracketSlot, sides: list[MatchTeam]) -> int | None:
    """The team going through from a decided slot, None while undecided.

    A drawn playoff game sends the better seed (home) through (docs/rulings.md, "Leagues").
    """
    if slot.is_bye:
        return slot.home_id
    match = slot.match
    if match is None or not match.is_decided:
        return None
    for side in sides:
        if side.outcome == MatchTeam.Outcome.WIN:
            return side.team_id
    return slot.home_id


def playoffs_advance(*, season: Season, rng: random.Random | None = None) -> list[Match]:
    """Decide finished playoff slots and create the next round once a round is complete.

    Safe to call at any time and any number of times: it creates nothing until every game of
    the latest round is confirmed, and the next round's run is unique. A voided playoff game is
    replaced by a new fixture between the same teams. Returns the fixtures it created.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=season.pk)
        slots = list(
            BracketSlot.objects.filter(season=season)
            .select_related("match")
            .prefetch_related("match__sides")
            .order_by("round_number", "slot")
        )
        if not slots or season.is_finished:
            return []
        last = max(s.round_number for s in slots)
        current = [s for s in slots if s.round_number == last]
        rng = rng or random.Random(secrets.randbits(63))
        made: list[Match] = []
        for slot in current:
            if slot.winner_id is None and slot.match is not None and slot.match.status == Match.Status.VOIDED:
                replay = fixture_create(
                    season=season,
                    round_number=last,
                    home=slot.home,
                    away=slot.away,
                    rng=rng,
                    stage=playoff_stage(last),
                    pairing_reason=f"replay: seed {slot.home_seed} v seed {slot.away_seed}",
                )
                replay.replay_of = slot.match
                replay.save(update_fields=["replay_of"])
                slot.match = replay
                slot.save(update_fields=["match"])
                made.append(replay)
                continue
            if slot.winner_id is None:
                winner = _slot_winner(slot, list(slot.match.sides.all()) if slot.match else [])
                if winner is not None:
                    slot.winner_id = winner
                    slot.save(update_fields=["winner"])
        if made or any(s.winner_id is None for s in current) or len(current) == 1:
            return made
        results = [
            (
                scheduling.BracketMatch(
                    round=s.round_number,
                    slot=s.slot,
                    home=s.home_id,
                    away=s.away_id,
                    home_seed=s.home_seed,
                    away_seed=s.away_seed,
                ),
                s.winner_id,
            )
            for s in current
        ]
        upcoming = scheduling.next_round(results)
        nxt = last + 1
        run, created = ScheduleRun.objects.get_or_create(
            season=season,
            kind=ScheduleRun.Kind.PLAYOFF,
            round_number=nxt,
            defaults={"task_id": str(uuid.uuid4()), "seed": secrets.randbits(63)},
        )
        if not created and run.status == ScheduleRun.Status.DONE:
            return []
        fixtures = []
        for bm in upcoming:
            slot = BracketSlot(
                season=season,
                round_number=nxt,
                slot=bm.slot,
                home_id=bm.home,
                away_id=bm.away,
                home_seed=bm.home_seed,
                away_seed=bm.away_seed,
            )
            fixtures.append((nxt, bm.home, bm.away, f"seed {bm.home_seed} v seed {bm.away_seed}", slot))
        run.total = len(fixtures)
        made = _write_plan(run=run, season=season, fixtures=fixtures, byes=[], rng=random.Random(run.seed))
        _run_done(run, len(made))
        return made


def on_match_confirmed(match: Match) -> list[Match]:
    """Hook for the post-game sequence: a confirmed playoff game may complete its round.

    A safe no-op for anything but a playoff match of a season.
    """
    if not match.season_id or not (match.stage or "").startswith("playoff-"):
        return []
    return playoffs_advance(season=match.season)


# --- the round life cycle: forfeits and replays (issue 13) ---------------------------------------


def forfeit_refusal(match: Match) -> str | None:
    """Why a forfeit cannot be recorded for this fixture (None when it can)."""
    if match.season_id is None:
        return "Only a league fixture can be forfeited."
    if match.season.is_finished:
        return "The season is over."
    if match.status == Match.Status.SUBMITTED:
        return "A result waits for confirmation: confirm, reject or void it first."
    if match.status != Match.Status.SCHEDULED:
        return f"This fixture is {match.get_status_display().lower()}: only a fixture not yet played can be forfeited."
    return None


def fixture_forfeit(*, match: Match, forfeiting: Collection[int], reason: str, actor=None) -> Match:
    """Record a forfeit: the sides in ``forfeiting`` (team ids) did not play.

    One side forfeiting is a walkover for the other: the winner gets the season's forfeit points
    and revenue (house rules: by default a win's points and the win revenue), the forfeiting side
    the forfeit-loss points and nothing else. Both forfeiting is a double forfeit: two losses, no
    koban. No post-game sequence runs for either side (no XP, upkeep, downtime or advancement
    rolls; absences still to serve are not shortened): the game was not played (docs/rulings.md,
    "Forfeits"). Who may do it (the master) is checked by the view.
    """
    reason = text.clean_single_line(reason, field="reason", max_length=200)
    if not reason:
        raise ValidationError({"reason": "Say why the fixture is forfeited."})
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = forfeit_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        sides = list(locked.sides.select_related("team").order_by("slot"))
        ids = {s.team_id for s in sides}
        forfeiting = set(forfeiting)
        if not forfeiting or not forfeiting <= ids:
            raise ValidationError({"forfeiting": "Choose a side of this fixture."})
        if len(forfeiting) == len(sides) and locked.stage.startswith("playoff-"):
            raise ValidationError({"forfeiting": "A playoff game needs a winner: one side forfeits."})
        season = locked.season
        winners = [s for s in sides if s.team_id not in forfeiting]
        revenue = season.forfeit_win_revenue if len(winners) == 1 else 0
        for side in sides:
            won = side in winners
            side.outcome = MatchTeam.Outcome.WIN if won else MatchTeam.Outcome.LOSS
            side.points = 0
            side.koban_earned = revenue if won else 0
        MatchTeam.objects.bulk_update(sides, ["outcome", "points", "koban_earned"])
        if revenue:
            losers = ", ".join(s.team.name for s in sides if s.team_id in forfeiting)
            treasury_post(
                team=winners[0].team,
                amount=revenue,
                reason=TreasuryEntry.Reason.REVENUE,
                match=locked,
                note=f"Walkover: {losers} forfeited"[:200],
                actor=actor,
            )
        locked.status = Match.Status.FORFEITED
        locked.forfeit_reason = reason
        locked.confirmed_by = actor if getattr(actor, "pk", None) else None
        locked.confirmed_at = timezone.now()
        locked.result_draft = None
        locked.save(update_fields=["status", "forfeit_reason", "confirmed_by", "confirmed_at", "result_draft"])
        readmodel.match_standings_refresh(locked)  # the table's rows, in this transaction
        transaction.on_commit(lambda: _after_forfeit(locked.pk))
    return locked


def _after_forfeit(match_id: int) -> None:
    """A forfeited playoff game may complete its round (as a confirmation does); a failure there
    never undoes the forfeit."""
    try:
        on_match_confirmed(Match.objects.select_related("season").get(pk=match_id))
    except Exception:
        logger.exception("after-forfeit hook failed for match %s", match_id)


def replay_refusal(match: Match) -> str | None:
    """Why this fixture cannot be replayed (None when it can)."""
    if match.season_id is None:
        return "Only a league fixture can be replayed."
    if match.status != Match.Status.VOIDED:
        return "Only a voided fixture can be replayed."
    if match.season.is_finished:
        return "The season is over."
    if Match.objects.filter(replay_of=match).exists():
        return "This fixture has been replayed already."
    return None


def fixture_replay(*, match: Match, actor=None) -> Match:
    """A new fixture between the same teams (same slots, round, stage and challenge) in place of a
    voided one. A playoff replay takes the voided game's place in the bracket. Once per voided
    fixture (``Match.replay_of`` is unique)."""
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=match.season_id) if match.season_id else None
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = replay_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        home, away = (s.team for s in locked.sides.select_related("team").order_by("slot"))
        replay = fixture_create(
            season=season,
            round_number=locked.round_number,
            home=home,
            away=away,
            challenge=locked.challenge,
            rng=random.Random(secrets.randbits(63)),
            stage=locked.stage,
            pairing_reason=f"replay of the voided fixture #{locked.pk}",
            date=None,
        )
        replay.replay_of = locked
        replay.deadline, replay.place = locked.deadline, locked.place
        replay.save(update_fields=["replay_of", "deadline", "place"])
        BracketSlot.objects.filter(match=locked).update(match=replay)
    return replay


# --- the round life cycle: dates, rescheduling, editing a pairing (issue 13) ---------------------


def _check_dates(starts_on, deadline) -> None:
    if starts_on and deadline and deadline < starts_on:
        raise ValidationError({"deadline": "The deadline cannot come before the start."})


def round_set_dates(*, season: Season, stage: str, round_number: int, starts_on=None, deadline=None) -> Round:
    """Set (or clear) a round's start and deadline; its fixtures inherit them unless they have
    their own. The round must exist (have a fixture or a bye)."""
    _check_dates(starts_on, deadline)
    if season.is_finished:
        raise ValidationError("The season is over.")
    exists = (
        season.matches.filter(stage=stage, round_number=round_number).exists()
        or season.byes.filter(stage=stage, round_number=round_number).exists()
    )
    if not exists:
        raise ValidationError(f"Round {round_number} has not been drawn.")
    with transaction.atomic():
        rnd, _ = Round.objects.update_or_create(
            season=season,
            stage=stage,
            round_number=round_number,
            defaults={"starts_on": starts_on, "deadline": deadline},
        )
    return rnd


def _write_round_dates(run: ScheduleRun, season: Season, round_numbers: Collection[int]) -> None:
    """The dates the master gave the schedule run, on each round it made: round robin rounds
    follow one another ``interval_days`` apart."""
    if run.starts_on is None and run.deadline is None:
        return
    first = min(round_numbers, default=0)
    rows = []
    for number in sorted(round_numbers):
        shift = dt.timedelta(days=run.interval_days * (number - first))
        rows.append(
            Round(
                season=season,
                stage=run.stage,
                round_number=number,
                starts_on=run.starts_on + shift if run.starts_on else None,
                deadline=run.deadline + shift if run.deadline else None,
            )
        )
    Round.objects.bulk_create(rows, ignore_conflicts=True)


def _open_fixture_refusal(match: Match, what: str) -> str | None:
    if match.season_id is None:
        return f"Only a league fixture can be {what}."
    if match.season.is_finished:
        return "The season is over."
    if match.status != Match.Status.SCHEDULED or match.kicked_off_at is not None:
        return f"Only a fixture not yet kicked off can be {what}."
    return None


def reschedule_refusal(match: Match) -> str | None:
    return _open_fixture_refusal(match, "rescheduled")


def fixture_reschedule(*, match: Match, date=None, deadline=None, place: str = "", actor=None) -> Match:
    """Give a fixture its own date, deadline and place (empty date or deadline: the round's).
    Marks it rescheduled. Who may do it (the master) is checked by the view."""
    place = text.clean_single_line(place or "", field="place", max_length=Match._meta.get_field("place").max_length)
    _check_dates(date, deadline)
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        refusal = reschedule_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        locked.date, locked.deadline, locked.place = date, deadline, place
        locked.rescheduled_at = timezone.now()
        locked.save(update_fields=["date", "deadline", "place", "rescheduled_at"])
    return locked


@dataclass
class PairingPlan:
    """What editing one fixture's pairing would change, and the schedule's rules it would break."""

    match: Match
    home: Team
    away: Team
    #: {fixture: (new home, new away)} for every fixture whose teams change (the edited one first)
    fixtures: dict[Match, tuple[Team, Team]] = field(default_factory=dict)
    #: {bye row: new team} for byes handed on
    byes: dict[Bye, Team] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)


VIOLATION_TEXT = {
    "plays_twice": "{0} plays twice in this round.",
    "same_owner": "{0} and {1} belong to the same player.",
    "rematch": "{0} and {1} meet more often than the format allows (a rematch).",
    "score_groups": "{0} and {1} have different scores (swiss pairs teams of the same score).",
    "unpaired": "{0} has neither a game nor a bye in this round.",
}


def _round_label(match: Match) -> str:
    if match.stage.startswith("playoff-"):
        return f"Playoffs, round {match.round_number}"
    return f"Round {match.round_number}" if match.round_number else "Arranged game"


def pairing_refusal(match: Match) -> str | None:
    refusal = _open_fixture_refusal(match, "re-paired")
    if refusal:
        return refusal
    if match.stage.startswith("playoff-"):
        return "Playoff pairings follow the bracket."
    return None


def pairing_plan(*, match: Match, home: Team, away: Team) -> PairingPlan:
    """What setting ``match`` to ``home`` v ``away`` changes, with the schedule's rules checked.

    A team taken from another fixture of the same round is swapped: the team it replaces takes its
    place there (or its bye). Refusals (a fixture played or kicked off, a team outside the season,
    a team against itself) raise ValidationError; broken rules of the schedule (same player, a
    rematch, swiss score groups, a team left without a game) are listed in ``violations`` for the
    master to accept or not.
    """
    refusal = pairing_refusal(match)
    if refusal:
        raise ValidationError(refusal)
    if home.pk == away.pk:
        raise ValidationError("Choose two different teams.")
    season = match.season
    entered = _season_entry_ids(season)
    missing = [t.name for t in (home, away) if t.pk not in entered]
    if missing:
        raise ValidationError(f"Not in this season: {', '.join(missing)}.")
    plan = PairingPlan(match=match, home=home, away=away)
    old_sides = [s.team for s in match.sides.select_related("team").order_by("slot")]
    new = [home, away]
    if [t.pk for t in old_sides] == [t.pk for t in new]:
        raise ValidationError("That is the pairing already.")
    plan.fixtures[match] = (home, away)
    in_round = round_number = match.round_number
    others: list[Match] = []
    if in_round is not None:
        others = list(
            season.matches.filter(stage=match.stage, round_number=round_number)
            .exclude(pk=match.pk)
            .exclude(status=Match.Status.VOIDED)
            .prefetch_related(selectors.sides_prefetch())
        )
    byes = list(Bye.objects.filter(season=season, stage=match.stage, round_number=round_number).select_related("team"))
    old_ids = [t.pk for t in old_sides]
    outgoing = [t for t in old_sides if t.pk not in {home.pk, away.pk}]
    incoming = [t for t in new if t.pk not in old_ids]
    for team, replacement in zip(incoming, outgoing, strict=False):
        holder = next((m for m in others if team.pk in {s.team_id for s in m.sides.all()}), None)
        if holder is not None:
            if holder.status != Match.Status.SCHEDULED or holder.kicked_off_at is not None:
                raise ValidationError(f"{team.name} has already played (or kicked off) its game of this round.")
            teams = list(plan.fixtures.get(holder, tuple(s.team for s in holder.sides.all())))
            teams = [replacement if t.pk == team.pk else t for t in teams]
            plan.fixtures[holder] = (teams[0], teams[1])
            continue
        bye = next((b for b in byes if b.team_id == team.pk), None)
        if bye is not None:
            plan.byes[bye] = replacement
    # the round as it would be
    games = {m.pk: tuple(s.team for s in m.sides.all()) for m in others}
    for fixture, teams in plan.fixtures.items():
        games[fixture.pk] = teams
    label = _round_label(match)
    for fixture, (h, a) in plan.fixtures.items():
        before = " v ".join(s.team.name for s in fixture.sides.all())
        plan.changes.append(f"{label}: {before} becomes {h.name} v {a.name}.")
    for bye, team in plan.byes.items():
        plan.changes.append(f"{label}: the bye passes from {bye.team.name} to {team.name}.")
    bye_ids = {plan.byes.get(b, b.team).pk for b in byes}
    names = {t.pk: t.name for pair in games.values() for t in pair} | {t.pk: t.name for t in old_sides}
    names |= {b.team_id: b.team.name for b in byes} | {t.pk: t.name for t in plan.byes.values()}
    owners = {t.pk: t.owner_id for pair in games.values() for t in pair}
    pairs = [(h.pk, a.pk) for h, a in games.values()]
    max_meetings, scores, everyone = None, None, ()
    if in_round is not None:
        everyone = list(names)
        meetings = Counter(
            pair for pair in _history_except(season, exclude_round=(match.stage, round_number)) if len(pair) == 2
        )
        max_meetings = 2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1
        if season.format == Season.Format.SWISS:
            scores = {row.team.pk: row.points for row in selectors.league_table(season)}
    else:
        meetings = Counter()
    for v in scheduling.pairing_violations(
        pairs,
        owners=owners,
        meetings=meetings,
        max_meetings=max_meetings,
        scores=scores,
        everyone=everyone,
        byes=bye_ids,
    ):
        plan.violations.append(VIOLATION_TEXT[v.rule].format(*(names.get(t, str(t)) for t in v.teams)))
    return plan


def _history_except(season: Season, *, exclude_round: tuple[str, int]) -> list[frozenset]:
    """Every regular-season meeting (not voided) outside one round, once per game."""
    stage, number = exclude_round
    sides: dict[int, list[int]] = {}
    for match_id, team_id in (
        MatchTeam.objects.filter(match__season=season, match__stage=REGULAR_STAGE)
        .exclude(match__status=Match.Status.VOIDED)
        .exclude(match__stage=stage, match__round_number=number)
        .values_list("match_id", "team_id")
    ):
        sides.setdefault(match_id, []).append(team_id)
    return [frozenset(t) for t in sides.values()]


def fixture_edit_pairing(
    *, match: Match, home: Team, away: Team, accept_violations: bool = False, actor=None
) -> PairingPlan:
    """Apply a pairing edit (see :func:`pairing_plan`), swapping teams within the round. The plan
    is made again under the season's lock; if it breaks a rule of the schedule the master must
    have accepted it (``accept_violations``)."""
    with transaction.atomic():
        Season.objects.select_for_update().get(pk=match.season_id)
        locked = Match.objects.select_for_update(of=("self",)).select_related("season").get(pk=match.pk)
        plan = pairing_plan(match=locked, home=home, away=away)
        if plan.violations and not accept_violations:
            raise ValidationError(plan.violations)
        fixtures = list(plan.fixtures)
        for fixture in Match.objects.select_for_update().filter(pk__in=[m.pk for m in fixtures]).order_by("pk"):
            if fixture.status != Match.Status.SCHEDULED or fixture.kicked_off_at is not None:
                raise ValidationError("A fixture of this change has kicked off meanwhile: look again.")
        MatchTeam.objects.filter(match__in=fixtures).delete()
        MatchTeam.objects.bulk_create(
            MatchTeam(match=fixture, team=team, slot=slot)
            for fixture, pair in plan.fixtures.items()
            for slot, team in enumerate(pair, start=1)
        )
        Match.objects.filter(pk__in=[m.pk for m in fixtures]).update(pairing_reason="pairing edited by the master")
        for bye, team in plan.byes.items():
            Bye.objects.filter(pk=bye.pk).update(team=team, reason="bye: handed on by the master's pairing edit")
        if plan.byes and match.stage == REGULAR_STAGE and readmodel.counts_bye_points(locked.season):
            moved = {b.team_id for b in plan.byes} | {t.pk for t in plan.byes.values()}
            readmodel.standings_refresh(season=locked.season, team_ids=moved)  # the bye's points move
    return plan
