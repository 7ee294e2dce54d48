"""A small seeded world for the trust tests, and a fingerprint of everything stored in it.

Two leagues:

    L "Lantern" (master: trust-master), a self-arranged season 1 with
        Tigers (team A, trust-player) and Squids (team B, trust-other), both legal and accepted;
        a confirmed match A v B, a submitted match A v B (entered by trust-player, waiting for
        trust-other or the master), an open match A v B (Brawl, "player 1 chooses" the challenge),
        a disputed match A v B (trust-player entered 1-0, trust-other 0-1: world.extra["disputed"]),
        a pending advancement roll for one of the Tigers (so the open match cannot kick off until
        it is chosen: ``choose_pending_rolls``), a schedule run, and two newsletters
        (one published, one draft); fixtures A v B forfeited, rescheduled and voided (a voided
        forfeit), in ``world.extra`` (issue 13).
        trust-player also owns "Free Agents", a team in no league (so they may apply to L).
    M "Mist" (master: trust-master-m), a round robin season with Foxes (trust-stranger) and
        Apes (trust-stranger-2).

Plus trust-staff, a site administrator who plays no part in either league.

Team states (issue 11, finding 1), each team owned by trust-other with one ninja, in
``world.extra["team_states"]`` (and its ninja in ``world.extra["state_ninjas"]``):

    pending    "Herons": applied to L, not yet answered
    refused    "Crows": applied to L, refused by its master
    withdrawn  "Moths": applied to L, then withdrawn by its player
    finished   "Owls": entered in season 1 of D "Dusk" (master: trust-master), which is finished
    entered    team B ("Squids"): entered in L's running season (team A is trust-player's)
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import uuid
from dataclasses import dataclass, field

from django.apps import apps
from django.db import connection, transaction
from django.utils import timezone

from league import services as league_services
from league.models import League, ScheduleRun, Season
from matches import services as match_services
from matches.models import Match
from rules.models import Challenge, Clan
from teams.models import AdvancementRoll, Ninja, Team
from tests.factories import LeagueFactory, UserFactory, make_legal_team, make_team, recruit
from tests.support import join, record_for

ROLES = ("anonymous", "player", "other_player", "master", "other_master", "staff")


@dataclass
class World:
    users: dict[str, object]
    league: League
    other_league: League
    season: Season
    other_season: Season
    team_a: Team
    team_b: Team
    team_c: Team
    free_team: Team
    ninja_a: Ninja
    ninja_b: Ninja
    confirmed: Match
    submitted: Match
    open_match: Match
    other_match: Match
    roll: AdvancementRoll
    run: ScheduleRun
    extra: dict = field(default_factory=dict)

    def user(self, role: str):
        return None if role == "anonymous" else self.users[role]


def seed_world() -> World:
    users = {
        "player": UserFactory(username="trust-player"),
        "other_player": UserFactory(username="trust-other"),
        "master": UserFactory(username="trust-master"),
        "other_master": UserFactory(username="trust-master-m"),
        "staff": UserFactory(username="trust-staff", is_staff=True, is_superuser=True),
    }
    stranger, stranger2 = UserFactory(username="trust-stranger"), UserFactory(username="trust-stranger-2")
    league = LeagueFactory(
        name="Lantern League",
        slug="lantern",
        master=users["master"],
        description="Lanterns over the river.",
        several_teams_per_owner=True,  # trust-other's teams in every state of an application
    )
    other_league = LeagueFactory(name="Mist League", slug="mist", master=users["other_master"])
    season = league_services.season_create(
        league=league, name="Lantern 1", format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
    )
    other_season = league_services.season_create(
        league=other_league, name="Mist 1", format=Season.Format.ROUND_ROBIN, swiss_rounds=None, playoff_teams=0
    )
    team_a = join(make_legal_team("tora", owner=users["player"], name="Tigers", league=league))
    team_b = join(make_legal_team("ika", owner=users["other_player"], name="Squids", league=league))
    team_c = join(make_legal_team("kitsune", owner=stranger, name="Foxes", league=other_league))
    join(make_team("ijin", owner=stranger2, name="Apes", league=other_league))
    free_team = make_team("yamazaru", owner=users["player"], name="Free Agents")
    brawl = Challenge.objects.get(slug="brawl")

    confirmed = match_services.match_create(teams=[team_a, team_b], challenge=brawl, season=season)
    match_services.match_kick_off(match=confirmed)
    match_services.match_submit_result(match=confirmed, record=record_for(confirmed, (3, 1)), actor=users["master"])

    submitted = match_services.match_create(teams=[team_a, team_b], challenge=brawl, season=season)
    match_services.match_kick_off(match=submitted)
    match_services.match_submit_result(match=submitted, record=record_for(submitted, (2, 2)), actor=users["player"])

    disputed = match_services.match_create(teams=[team_a, team_b], challenge=brawl, season=season)
    match_services.match_kick_off(match=disputed)
    match_services.match_submit_result(match=disputed, record=record_for(disputed, (1, 0)), actor=users["player"])
    match_services.match_submit_result(match=disputed, record=record_for(disputed, (0, 1)), actor=users["other_player"])

    open_match = match_services.match_create(teams=[team_a, team_b], challenge=brawl, season=season)
    Match.objects.filter(pk=open_match.pk).update(challenge_chooser=Match.ChallengeChooser.PLAYER1)

    team_d = Team.objects.get(name="Apes")
    other_match = match_services.match_create(teams=[team_c, team_d], challenge=brawl, season=other_season)

    ninja_a = team_a.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id").first()
    ninja_b = team_b.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id").first()
    roll = AdvancementRoll.objects.create(ninja=ninja_a, match=confirmed, level=2, faces=["Fire", "Water"])
    run = ScheduleRun.objects.create(
        season=other_season, kind=ScheduleRun.Kind.ROUND_ROBIN, round_number=0, task_id=str(uuid.uuid4()), seed=7
    )
    world = World(
        users=users,
        league=league,
        other_league=other_league,
        season=season,
        other_season=other_season,
        team_a=team_a,
        team_b=team_b,
        team_c=team_c,
        free_team=free_team,
        ninja_a=ninja_a,
        ninja_b=ninja_b,
        confirmed=confirmed,
        submitted=submitted,
        open_match=open_match,
        other_match=other_match,
        roll=roll,
        run=run,
    )
    world.extra["tokens"] = _api_tokens(users)
    world.extra["disputed"] = Match.objects.get(pk=disputed.pk)
    _seed_newsletters(world)
    _seed_notifications(world)
    _seed_simulation(world)
    _seed_balance_study(world)
    _seed_team_states(world)
    # an invitation link to L (issue 14, part 5)
    world.extra["invitation"] = league_services.invitation_create(
        league=league, actor=users["master"], days=30, max_uses=50
    )
    _seed_fixture_states(world)
    _seed_players_games(world)
    _seed_upkeep_wait(world)
    for obj in (confirmed, submitted, open_match, team_a, team_b):
        obj.refresh_from_db()
    return world


def _seed_upkeep_wait(world: World) -> None:
    """A league whose results need no confirmation (master trust-master), where trust-player's result
    against trust-other's Herons waits for the upkeep of the Herons' ronin (``upkeep_waits``): only
    trust-other, or the master, decides it (issue 27, finding 6)."""
    users = world.users
    hall = LeagueFactory(name="Ronin Hall", slug="ronin-hall", master=users["master"], results_need_confirmation=False)
    season = league_services.season_create(
        league=hall, name="Ronin 1", format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
    )
    home = join(make_legal_team("tora", owner=users["player"], name="Striped", league=hall))
    away = join(make_legal_team("tanchyo", owner=users["other_player"], name="Herons of the Hall", league=hall))
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), season=season
    )
    match_services.match_kick_off(match=match)
    match_services.match_submit_result(match=match, record=record_for(match, (1, 0)), actor=users["player"])
    world.extra["upkeep_waits"] = Match.objects.get(pk=match.pk)
    world.extra["upkeep_ronin"] = away.ninjas.get(profile__slug="tengu")


def _api_tokens(users: dict) -> dict[str, str]:
    """Every member's API token (the API's matrix and walk-throughs authenticate with them)."""
    from rest_framework.authtoken.models import Token

    return {role: Token.objects.create(user=user).key for role, user in users.items()}


def _seed_fixture_states(world: World) -> None:
    """Fixtures of L in the round life cycle's states (issue 13): ``forfeited`` (Squids did not
    come: a walkover for the Tigers), ``rescheduled`` (moved by the master, still to play) and
    ``voided`` (a forfeit voided by the master, not yet replayed)."""
    import datetime as dt

    master = world.users["master"]
    brawl = Challenge.objects.get(slug="brawl")

    def fixture() -> Match:
        return match_services.match_create(teams=[world.team_a, world.team_b], challenge=brawl, season=world.season)

    world.extra["forfeited"] = league_services.fixture_forfeit(
        match=fixture(), forfeiting=[world.team_b.pk], reason="No-show", actor=master
    )
    world.extra["rescheduled"] = league_services.fixture_reschedule(
        match=fixture(), date=dt.date(2026, 4, 1), deadline=dt.date(2026, 4, 5), place="The tea house", actor=master
    )
    voided = league_services.fixture_forfeit(
        match=fixture(), forfeiting=[world.team_a.pk], reason="Wrong", actor=master
    )
    world.extra["voided"] = match_services.match_void(match=voided, actor=master, reason="Recorded by mistake")


#: A Ninjutsu result as its form gives it (matches.game_results): slot 1 wins, its ninja attacked the Soke.
NINJUTSU_RECORD = {
    "game": "ninjutsu",
    "winner": 1,
    "starter": 2,
    "colours": ["Red", "Black"],
    "ending": "soke_attacked",
    "card": "jump",
    "ninjas_left": [4, 0],
    "shuriken": None,
    "cards": None,
}


def _seed_players_games(world: World) -> None:
    """A league of another game (issue 17): N "Dojo" (Ninjutsu, master: trust-master), a running
    round robin season with trust-player ("Hanzo") and trust-other ("Kotaro") as players, not
    teams; an open game between them (``ninjutsu_open``), one submitted by trust-player
    (``ninjutsu_submitted``) and one disputed (trust-other entered his own, different record:
    ``ninjutsu_disputed``); in ``world.extra``."""
    from games import registry as games

    master = world.users["master"]
    dojo = LeagueFactory(name="Dojo Nights", slug="dojo", master=master, game=games.NINJUTSU)
    season = league_services.season_create(league=dojo, name="Dojo 1", format=Season.Format.SELF_ARRANGED)
    hanzo = league_services.player_apply(user=world.users["player"], league=dojo, display_name="Hanzo")
    kotaro = league_services.player_apply(user=world.users["other_player"], league=dojo, display_name="Kotaro")
    for entry in (hanzo, kotaro):
        league_services.application_accept(team=entry)

    def game() -> Match:
        return match_services.match_create(teams=[hanzo, kotaro], season=season)

    world.extra["ninjutsu_league"], world.extra["ninjutsu_season"] = dojo, season
    world.extra["ninjutsu_open"] = game()
    submitted = game()
    match_services.match_submit_game_result(match=submitted, record=NINJUTSU_RECORD, actor=world.users["player"])
    disputed = game()
    match_services.match_submit_game_result(match=disputed, record=NINJUTSU_RECORD, actor=world.users["player"])
    match_services.match_submit_game_result(
        match=disputed,
        record={**NINJUTSU_RECORD, "winner": 2, "ninjas_left": [0, 3]},
        actor=world.users["other_player"],
    )
    world.extra["ninjutsu_submitted"] = Match.objects.get(pk=submitted.pk)
    world.extra["ninjutsu_disputed"] = Match.objects.get(pk=disputed.pk)
    _seed_kage_table(world)


#: A Kage Masters table's result (matches.game_results): slot 3 first with 15 treasure.
KAGE_RECORD = {
    "game": "kage_masters",
    "seats": [
        {"slot": 1, "kage_master": "Spy", "coins": 9, "rewards": 1, "seat": 1},
        {"slot": 2, "kage_master": "Assassin", "coins": 6, "rewards": 0, "seat": 2},
        {"slot": 3, "kage_master": "Firebrand", "coins": 12, "rewards": 3, "seat": 3},
    ],
}


def _seed_kage_table(world: World) -> None:
    """K "Kage Nights" (Kage Masters, master: trust-master), a self-arranged season with
    trust-player, trust-other and trust-stranger as players; an open table of the three
    (``kage_open``) and one whose result trust-player submitted (``kage_submitted``)."""
    from games import registry as games

    master = world.users["master"]
    kage = league_services.league_create(master=master, name="Kage Nights", game=games.KAGE_MASTERS)
    season = league_services.season_create(league=kage, name="Kage 1", format=Season.Format.SELF_ARRANGED)
    stranger = Team.objects.get(name="Foxes").owner
    players = [
        league_services.player_apply(user=user, league=kage, display_name=name)
        for user, name in (
            (world.users["player"], "Hanzo"),
            (world.users["other_player"], "Kotaro"),
            (stranger, "Goemon"),
        )
    ]
    for entry in players:
        league_services.application_accept(team=entry)
    world.extra["kage_league"] = kage
    world.extra["kage_open"] = match_services.match_create(teams=players, season=season)
    submitted = match_services.match_create(teams=players, season=season)
    match_services.match_submit_game_result(match=submitted, record=KAGE_RECORD, actor=world.users["player"])
    world.extra["kage_submitted"] = Match.objects.get(pk=submitted.pk)
    world.extra["kage_season"] = season
    world.extra["kage_players"] = players
    # A season of tables (issue 28, part 4): its first round drawn, one table of the three.
    rounds = league_services.league_create(master=master, name="Kage Rounds", game=games.KAGE_MASTERS)
    tables = league_services.season_create(league=rounds, name="Rounds 1", format=Season.Format.TABLES, swiss_rounds=2)
    for user, name in ((world.users["player"], "Hanzo"), (world.users["other_player"], "Kotaro"), (stranger, "Goemon")):
        league_services.application_accept(
            team=league_services.player_apply(user=user, league=rounds, display_name=name)
        )
    run = league_services.schedule_request(season=tables, kind="tables", actor=master, seed=1)
    league_services.schedule_generate(run_id=run.pk)
    world.extra["kage_tables_season"] = tables
    world.extra["kage_round_table"] = Match.objects.get(season=tables, round_number=1)


def choose_pending_rolls(world: World) -> None:
    """Team A's player chooses its pending advancement rolls (through the service), so its next
    match may kick off: a team cannot kick off with an unchosen roll (issue 13, part 3)."""
    for roll in AdvancementRoll.objects.filter(ninja__team=world.team_a, status=AdvancementRoll.Status.PENDING):
        if roll.faces:
            option = match_services.advancement_options_for(roll)[0]
            match_services.advancement_choose(roll=roll, choice=match_services.option_key(option))


def _seed_team_states(world: World) -> None:
    """Teams of trust-other in every state of an application, for the rights of L's master."""
    owner = world.users["other_player"]
    states: dict[str, Team] = {}
    states["pending"] = make_team("tanchyo", owner=owner, name="Herons", league=world.league)
    states["refused"] = league_services.application_refuse(
        team=make_team("tanchyo", owner=owner, name="Crows", league=world.league)
    )
    states["withdrawn"] = league_services.application_withdraw(
        team=make_team("yamazaru", owner=owner, name="Moths", league=world.league), league=world.league
    )
    dusk = LeagueFactory(name="Dusk League", slug="dusk", master=world.users["master"])
    dusk_season = league_services.season_create(league=dusk, name="Dusk 1", format=Season.Format.SELF_ARRANGED)
    states["finished"] = join(make_team("kitsune", owner=owner, name="Owls", league=dusk))
    league_services.season_finish(season=dusk_season)
    states["entered"] = world.team_b
    ninjas = {}
    for state, team in states.items():
        if state != "entered":
            recruit(team, f"{team.clan.slug}-kaiken", name=f"{team.name} cub")
        team.refresh_from_db()
        ninjas[state] = team.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id").first()
    world.extra["team_states"] = states
    world.extra["state_ninjas"] = ninjas


def _seed_newsletters(world: World) -> None:
    """A published newsletter and a draft in L (stored rows; building them is the newsletters
    app's business). Skipped while the app is not installed."""
    if not apps.is_installed("newsletters"):
        return
    from newsletters.models import Newsletter

    now = timezone.now()
    common = {
        "league": world.league,
        "season": world.season,
        "kind": Newsletter.Kind.WEEK,
        "build_status": Newsletter.BuildStatus.DONE,
        "content_html": "<p>Results.</p>",
    }
    world.extra["published"] = Newsletter.objects.create(
        period_key="2025-w06",
        iso_year=2025,
        iso_week=6,
        sort_key=202506,
        title="Week 6 at the Lantern",
        status=Newsletter.Status.PUBLISHED,
        published_at=now,
        published_by=world.league.master,
        **common,
    )
    world.extra["draft"] = Newsletter.objects.create(
        period_key="2025-w07",
        iso_year=2025,
        iso_week=7,
        sort_key=202507,
        title="Week 7 at the Lantern",
        build_task_id=uuid.uuid4().hex,
        **common,
    )


def _seed_notifications(world: World) -> None:
    """One notification of the player's (only he may mark it read)."""
    if not apps.is_installed("notifications"):
        return
    from notifications.models import Kind, Notification

    world.extra["notification"] = Notification.objects.create(
        user=world.users["player"], kind=Kind.FIXTURE, text="Fixture, round 1: Tigers v Squids", url="/"
    )


def _seed_simulation(world: World) -> None:
    """A finished simulation of Mist's season (its progress page is public)."""
    try:
        job_model = apps.get_model("matches", "SimulationJob")
    except LookupError:
        return
    world.extra["simulation"] = job_model.objects.create(
        league=world.other_league,
        season=world.other_season,
        scope="season",
        seed=1,
        task_id=str(uuid.uuid4()),
        status="done",
        requested_by=world.other_league.master,
    )


def _seed_balance_study(world: World) -> None:
    """A finished balance study (its page and progress JSON are public)."""
    try:
        study_model = apps.get_model("matches", "BalanceStudy")
    except LookupError:
        return
    world.extra["balance_study"] = study_model.objects.create(
        games=1, challenges=["brawl"], gaps=[0], levels=["cautious"], total=5, done=5, status="done"
    )


# --- the fingerprint ---------------------------------------------------------------------------------

#: Tables whose changes are not writes by the request under test (the session and log-in
#: bookkeeping of the test client itself).
IGNORED_TABLES = {"django_session"}
IGNORED_COLUMNS = {("auth_user", "last_login")}


def fingerprint() -> dict[str, str]:
    """One digest per table of every row it holds (ordered by primary key), plus every team's
    treasury, so a denied request that changed, added or removed anything is caught."""
    out: dict[str, str] = {}
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            table = model._meta.db_table
            if table in IGNORED_TABLES or model._meta.proxy or not model._meta.managed:
                continue
            columns = [f.column for f in model._meta.concrete_fields if (table, f.column) not in IGNORED_COLUMNS]
            pk = model._meta.pk.column
            cols = ", ".join(connection.ops.quote_name(c) for c in columns)
            cursor.execute(
                f"SELECT {cols} FROM {connection.ops.quote_name(table)} ORDER BY {connection.ops.quote_name(pk)}"
            )
            rows = cursor.fetchall()
            out[table] = f"{len(rows)}:" + hashlib.sha1(repr(rows).encode()).hexdigest()
    out["treasuries"] = repr(sorted(Team.objects.values_list("pk", "treasury")))
    return out


def fingerprint_diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return [
        f"{table}: {before.get(table)} -> {after.get(table)}"
        for table in sorted(set(before) | set(after))
        if before.get(table) != after.get(table)
    ]


#: Statements that change no row: reads and transaction control. Anything else may write.
_READS = re.compile(r"\s*(SELECT|SAVEPOINT|RELEASE|ROLLBACK|BEGIN|COMMIT|SET|SHOW|EXPLAIN)\b", re.IGNORECASE)
_TARGET = re.compile(r'\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


def writes_rows(sql: str) -> bool:
    """Whether a statement may change a row the fingerprint covers (conservatively: anything but a
    read or transaction control, and writes to IGNORED_TABLES excepted)."""
    if _READS.match(sql):
        return False
    target = _TARGET.match(sql)
    return not (target and target.group(1) in IGNORED_TABLES)


@dataclass
class Written:
    """What a watched block wrote: ``statement`` is the first write statement it ran (None if it ran
    none), ``changed`` the fingerprint's difference (``fingerprint_diff``), empty if nothing changed."""

    statement: str | None = None
    changed: list[str] = field(default_factory=list)


@contextlib.contextmanager
def watch_writes():
    """Run a block (requests, inside a transaction the caller rolls back) and say what it wrote.

    The fingerprint of every table costs milliseconds a table, so it is taken only when the block
    ran a statement that may write (the queries it ran say so): then the fingerprint after the block
    is compared with the one before it, read after rolling back to a savepoint taken before the
    block. A block that ran only reads changed nothing and costs no fingerprint. Either way the
    block's writes are rolled back before the caller sees the database again.
    """
    written = Written()

    def note(execute, sql, params, many, context):
        if written.statement is None and writes_rows(sql):
            written.statement = sql
        return execute(sql, params, many, context)

    before = transaction.savepoint()
    try:
        with connection.execute_wrapper(note):
            yield written
    except BaseException:
        transaction.savepoint_rollback(before)
        raise
    if written.statement is None:
        transaction.savepoint_commit(before)
        return
    after = fingerprint()
    transaction.savepoint_rollback(before)
    written.changed = fingerprint_diff(fingerprint(), after)


def clan(slug: str) -> Clan:
    return Clan.objects.get(slug=slug)
