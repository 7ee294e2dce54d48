"""Writes for leagues: leagues and their house rules, seasons and rollovers, applications,
fixtures (generated or self-arranged), schedule runs and the playoff bracket.

Check, then do: every service validates first and writes inside one ``transaction.atomic`` block.
Schedule generation is idempotent: a :class:`ScheduleRun` is unique per (season, kind, round), the
season row is locked while fixtures are written, and a run that is done is never run again.
Randomness is passed in or seeded from a stored seed, so every draw can be replayed.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections import Counter
from collections.abc import Callable, Mapping

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from common import text
from league import scheduling, selectors
from league.models import (
    REGULAR_STAGE,
    TIE_BREAKER_CHOICES,
    BracketSlot,
    Bye,
    HouseRules,
    League,
    ScheduleRun,
    Season,
    SeasonEntry,
    playoff_stage,
)
from matches.models import AWAITING_STATUSES, DiceRoll, Match, MatchTeam
from outbox import jobs
from rules.engine import league as rules_league
from rules.models import Challenge
from teams.models import Team

Progress = Callable[[int, int], None]

#: Fixtures that still count as "to be played" (a submitted result waits for confirmation, a
#: disputed one for the master).
OPEN_STATUSES = (Match.Status.SCHEDULED, Match.Status.SUBMITTED, Match.Status.DISPUTED)
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


def _clean_house_rules(rules: Mapping) -> dict:
    unknown = set(rules) - set(HouseRules.HOUSE_RULE_FIELDS)
    if unknown:
        raise ValidationError(f"Not a house rule: {', '.join(sorted(unknown))}.")
    cleaned = dict(rules)
    if "tie_breakers" in cleaned:
        cleaned["tie_breakers"] = validate_tie_breakers(cleaned["tie_breakers"])
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
        if season.matches.filter(status__in=AWAITING_STATUSES).exists():
            raise ValidationError(
                "A result is waiting for confirmation or settlement: deal with it before ending the season."
            )
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
) -> ScheduleRun:
    """Record a request to generate fixtures; the caller dispatches the task after commit.

    Idempotent: asking again for a round that already has a run returns that run (a failed run
    is reset to be tried again). ``round_number`` is the round the page offered (so a double
    submission asks for the same round); ``None`` means the next one.
    """
    if kind not in ScheduleRun.Kind.values:
        raise ValidationError(f"Unknown schedule kind {kind!r}.")
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
    if match is None or match.status != Match.Status.CONFIRMED:
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
