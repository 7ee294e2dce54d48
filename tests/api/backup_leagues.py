"""A league of each game that used every feature a backup must carry, built with the site's own
services (as its pages call them): a schedule with byes, a result entered and confirmed, one
disputed and settled by the master, a forfeit, a forfeit voided and replayed, round dates, a
deadline reminder, an invitation link, the rest of the season simulated (with its playoffs where
the game has them), a newsletter built, edited and published, and the strength ratings computed."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from games import registry as games
from league import services
from league.models import League, ScheduleRun, Season
from league.services import simulations
from matches import services as match_services
from matches.models import Match
from newsletters import services as newsletters
from newsletters.periods import Period
from notifications.services import deadline_reminders_send
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import add_team, generate
from tests.support import record_for
from tests.trust.world import NINJUTSU_RECORD


def _owners(match: Match):
    return [side.team.owner for side in match.sides.select_related("team__owner").order_by("slot")]


def _all_stars_result(match: Match, points: tuple[int, int], actor) -> None:
    if match.challenge_id is None:
        services.fixture_set_challenge(match=match, challenge=Challenge.objects.get(slug="brawl"))
    match_services.match_kick_off(match=match)
    match_services.match_submit_result(match=match, record=record_for(match, points), actor=actor)


def _players_record(match: Match, game: str, variant: int = 0) -> dict:
    if game == games.NINJUTSU:
        if variant:
            return {**NINJUTSU_RECORD, "winner": 2, "ninjas_left": [0, 3]}
        return dict(NINJUTSU_RECORD)
    slots = list(match.sides.order_by("slot").values_list("slot", flat=True))
    masters = ["Spy", "Assassin", "Firebrand", "Trickster", "Chain Specialist"]
    coins = [9, 6, 12, 3, 7]
    if variant:
        coins = list(reversed(coins))
    seats = [
        {"slot": slot, "kage_master": masters[i], "coins": coins[i], "rewards": i % 2, "seat": i + 1}
        for i, slot in enumerate(slots)
    ]
    return {"game": games.KAGE_MASTERS, "seats": seats}


def _enter(match: Match, game: str, *, variant: int = 0, actor=None) -> None:
    owners = _owners(match)
    if game == games.ALLSTARS:
        _all_stars_result(match, (1, 0) if not variant else (0, 1), actor or owners[0])
    else:
        record = _players_record(match, game, variant)
        match_services.match_submit_game_result(match=match, record=record, actor=actor or owners[0])


def _play_the_features(season: Season, master, game: str) -> None:
    """Round 1: a result confirmed, one disputed and settled; round 2: a forfeit, and a forfeit
    voided then replayed (at Kage tables: a drop-out, and a table left too small replayed); dates
    and a reminder for round 3."""
    first, second = list(season.matches.filter(round_number=1).order_by("pk"))[:2]
    _enter(first, game)
    match_services.match_confirm(match=first, actor=_owners(first)[1])
    _enter(second, game)
    _enter(second, game, variant=1, actor=_owners(second)[1])
    second.refresh_from_db()
    assert second.status == Match.Status.DISPUTED
    match_services.match_settle(match=second, actor=master, pick="first")

    if game == games.KAGE_MASTERS:
        run = services.schedule_request(season=season, kind=ScheduleRun.Kind.TABLES, seed=2, actor=master)
        services.schedule_generate(run_id=run.pk)
    if game == games.KAGE_MASTERS:
        # a table has no forfeit (issue 28, part 4): a drop-out the table plays on without, and a
        # table of three left too small by one, replayed
        four, three = sorted(season.matches.filter(round_number=2), key=lambda m: -m.sides.count())
        for table, choice in ((four, ""), (three, "replay")):
            table = Match.objects.select_related("league", "season", "season__league").get(pk=table.pk)
            services.table_dropout(
                match=table,
                team=table.sides.get(slot=2).team,
                when="before",
                below_minimum=choice,
                actor=master,
            )
    else:
        forfeited, voided = list(season.matches.filter(round_number=2).order_by("pk"))[:2]
        services.fixture_forfeit(match=forfeited, forfeiting=[_side_team(forfeited, 2)], reason="No-show", actor=master)
        services.fixture_forfeit(match=voided, forfeiting=[_side_team(voided, 1)], reason="Wrong side", actor=master)
        voided = match_services.match_void(match=voided, actor=master, reason="Recorded by mistake")
        services.fixture_replay(match=voided, actor=master)

    # a round still to play (a table's round 2 waits for its replay) gets dates, and a reminder
    today = timezone.localdate()
    services.round_set_dates(
        season=season,
        stage="",
        round_number=2 if game == games.KAGE_MASTERS else 3,
        starts_on=today - dt.timedelta(days=3),
        deadline=today,
    )
    assert deadline_reminders_send(today=today) >= 1
    services.invitation_create(league=season.league, actor=master, days=30, max_uses=10)


def _side_team(match: Match, slot: int) -> int:
    return match.sides.get(slot=slot).team_id


def _finish(season: Season, master) -> None:
    """The rest of the season simulated (its playoffs too), a newsletter of round 1 published, the
    season finished, the ratings computed."""
    from stats.ratings import ratings_recompute

    job, _ = simulations.simulation_request(actor=master, scope="season", season=season, seed=5)
    job = simulations.simulation_job_run(job_id=job.pk)
    assert job.status == "done", job.error
    newsletter = newsletters.newsletter_request(
        league=season.league, period=Period.round(season.number, 1), actor=master
    )
    newsletters.newsletter_build(newsletter_id=newsletter.pk)
    newsletter.refresh_from_db()
    newsletters.newsletter_update(
        newsletter=newsletter, title="Round 1", editorial="**Well played**, all of you.", actor=master
    )
    newsletters.newsletter_publish(newsletter=newsletter, actor=master, send_email=False)
    services.season_finish(season=season)  # its final table archived (JSON naming its teams)
    ratings_recompute(force=True)


def all_stars_league() -> League:
    master = UserFactory(username="backup-master")
    league = LeagueFactory(name="Backup Lanterns", slug="backup-lanterns", master=master)
    for i in range(5):
        add_team(league, owner=UserFactory(username=f"backup-player-{i}"), legal=True)
    season = services.season_create(league=league, format=Season.Format.ROUND_ROBIN, name="Full", playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN, seed=1)
    _play_the_features(season, master, games.ALLSTARS)
    _finish(season, master)
    return league


#: Each players' game's own house rules, away from their defaults (a backup keeps them: game_rules).
OWN_RULES = {
    games.NINJUTSU: {"time_limit_minutes": 90, "points_time_win": 2},
    games.KAGE_MASTERS: {"kage_fixed_points": "4,2,1,0,0", "kage_dropout": "last_place"},
}


def _players_league(game: str, n: int, **season_kw) -> tuple[League, Season]:
    master = UserFactory(username="backup-master")
    league = services.league_create(
        master=master, name=f"Backup {games.get(game).name}", game=game, game_rules=OWN_RULES[game]
    )
    season = services.season_create(league=league, name="Full", **season_kw)
    for i in range(n):
        services.application_accept(
            team=services.player_apply(
                user=UserFactory(username=f"backup-player-{i}"), league=league, display_name=f"Player {i + 1}"
            )
        )
    return league, season


def ninjutsu_league() -> League:
    league, season = _players_league(games.NINJUTSU, 5, format=Season.Format.ROUND_ROBIN, playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN, seed=1)
    _play_the_features(season, league.master, games.NINJUTSU)
    _finish(season, league.master)
    return league


def kage_league() -> League:
    league, season = _players_league(games.KAGE_MASTERS, 7, format=Season.Format.TABLES, swiss_rounds=4)
    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.TABLES, seed=1, actor=league.master)
    services.schedule_generate(run_id=run.pk)
    _play_the_features(season, league.master, games.KAGE_MASTERS)
    _finish(season, league.master)
    return league


BUILDERS = {"all_stars": all_stars_league, "ninjutsu": ninjutsu_league, "kage_masters": kage_league}
