"""Seed benchmark leagues. Called by benchmarks/pages.py after django.setup().

Everything a page reads is made by the project's own code, except where noted:

* users, the league, the season, teams, recruitment, applications and the round robin schedule go
  through the services (league.services, teams.services), exactly as the site does;
* the last ``services_matches`` results (the latest rounds) go through the whole result path: challenge set,
  kick-off (ratings, underdog bonuses, roster snapshots), result submitted by the master, and the
  post-game sequence (revenue, upkeep, downtime, XP, advancement rolls, every die recorded);
* the earlier results are bulk-inserted to keep seeding fast: the match row (confirmed, with a
  challenge and a seed), both sides with the kick-off rating and roster snapshot computed by the
  real code (matches.services.live_sides / roster_snapshot), points and outcome, revenue in the
  koban ledger (a TreasuryEntry per side, balances kept in step) and one MatchNinja line per model
  (injuries, All-Star). They do not run downtime, XP or advancement rolls.

The stored read model (each season entry's standing, each team's rating) is kept in step by the
services for everything they write; after the bulk insert the season's standings are rebuilt by
``league.readmodel.standings_refresh``, as ``manage.py rebuild_read_model`` does. With
``advancements`` set, that share of the advancement rolls earned is taken through
``matches.services.advancement_choose`` (the first option), so rosters carry advancements.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from rules.starting_rosters import STARTING_ROSTERS

ROSTERS = STARTING_ROSTERS
CLANS = list(ROSTERS)


@dataclass
class Seeded:
    league: object
    season: object
    teams: list
    played_services: int = 0
    played_bulk: int = 0
    unplayed: int = 0
    seconds: dict = field(default_factory=dict)
    newsletter: object | None = None


def _user(username: str):
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def seed_league(
    *, name: str, teams: int, played: int, services_matches: int, seed: int, advancements: float = 0.0
) -> Seeded:
    """A round robin league of ``teams`` teams with ``played`` results in round order (the last
    ``services_matches`` of them through the full result path, the earlier ones in bulk)."""
    from league import services as league_services
    from league.models import ScheduleRun, Season
    from matches import hooks
    from matches.models import Match
    from rules.models import Challenge, Clan, Profile
    from teams import services as team_services

    rng = random.Random(seed)
    t0 = time.perf_counter()
    master = _user(f"{name.lower().replace(' ', '-')}-master")
    league = league_services.league_create(master=master, name=name, description=f"Benchmark league of {teams} teams.")
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    clans = {c.slug: c for c in Clan.objects.all()}
    profiles = {p.slug: p for p in Profile.objects.prefetch_related("abilities")}
    made = []
    for i in range(teams):
        clan = CLANS[i % len(CLANS)]
        owner = _user(f"{league.slug}-player-{i + 1}")
        with transaction.atomic():
            team = team_services.team_create(
                owner=owner, name=f"{clans[clan].name} {i + 1:02d}", clan=clans[clan], league=league
            )
            for slug, count in ROSTERS[clan]:
                profile = profiles[slug]
                chosen = list(profile.abilities.all()[: profile.choose_abilities])
                for _ in range(count):
                    team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen, actor=owner)
            team_services.team_mark_ready(team=team)
            league_services.application_accept(team=team)
        made.append(team)
    run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=seed)
    league_services.schedule_generate(run_id=run.pk)
    t1 = time.perf_counter()

    fixtures = list(Match.objects.filter(season=season).order_by("round_number", "id"))
    if played > len(fixtures):
        raise SystemExit(f"{name}: {teams} teams have only {len(fixtures)} fixtures; cannot play {played}.")
    challenges = list(Challenge.objects.all())
    # The early rounds in bulk, the latest through the services: the newsletter's round and the
    # match pages measured are then made by the real result path, on top of the bulk history.
    services_matches = min(services_matches, played)
    in_bulk = fixtures[: played - services_matches]
    by_services = fixtures[played - services_matches : played]
    _play_in_bulk(in_bulk, master=master, rng=rng, challenges=challenges)
    t2 = time.perf_counter()
    # The strength ratings' recomputation (stats, after each result's commit) reads the whole
    # history: run once after these results, as a simulation job does, not once per result.
    with hooks.results_changed_once():
        for match in by_services:
            _play_with_services(match, master=master, rng=rng, challenges=challenges)
    if advancements:
        _choose_advancements(season, share=advancements, rng=rng)
    t3 = time.perf_counter()
    return Seeded(
        league=league,
        season=season,
        teams=made,
        played_services=len(by_services),
        played_bulk=len(in_bulk),
        unplayed=len(fixtures) - played,
        seconds={"teams and schedule": t1 - t0, "results (bulk)": t2 - t1, "results (services)": t3 - t2},
    )


def _record(match, rng: random.Random):
    from rules.engine.records import MatchRecord, NinjaRecord, TeamRecord

    teams = []
    for side in match.sides.order_by("slot"):
        rows = [row for row in side.roster_snapshot if row["available"]]
        stars = set(rng.sample([row["id"] for row in rows], min(len(rows), 1 + side.extra_all_stars)))
        ninjas = tuple(
            NinjaRecord(
                ninja_id=row["id"],
                injuries=rng.choice([0, 0, 0, 1, 1, 2]),
                reveals=rng.choice([0, 0, 0, 1]),
                in_healing_house=rng.random() < 0.2,
                all_star_awards=1 if row["id"] in stars else 0,
            )
            for row in rows
        )
        teams.append(TeamRecord(team_id=side.team_id, points=rng.randint(0, 6), ninjas=ninjas))
    return MatchRecord(teams=tuple(teams))


def _play_with_services(match, *, master, rng: random.Random, challenges) -> None:
    from league import services as league_services
    from matches import services as match_services
    from matches.models import Match

    if match.challenge_id is None:
        league_services.fixture_set_challenge(match=match, challenge=rng.choice(challenges))
    Match.objects.filter(pk=match.pk, seed__isnull=True).update(seed=rng.getrandbits(62))  # replayable dice
    _choose_pending_rolls(match)
    match = match_services.match_kick_off(match=match)
    match_services.match_submit_result(match=match, record=_record(match, rng), actor=master)
    # Ronin upkeep may release models; advancement rolls stay pending until the team's next game.


def _choose_pending_rolls(match) -> None:
    """A team cannot kick off with an unchosen advancement roll (issue 13): its player takes the
    first option of each, through the service, before the next game."""
    from matches import services as match_services
    from teams.models import AdvancementRoll

    team_ids = list(match.sides.values_list("team_id", flat=True))
    for roll in AdvancementRoll.objects.filter(
        ninja__team_id__in=team_ids, ninja__status="active", status=AdvancementRoll.Status.PENDING
    ).order_by("id"):
        if roll.faces:
            option = match_services.advancement_options_for(roll)[0]
            match_services.advancement_choose(roll=roll, choice=match_services.option_key(option))


def _choose_advancements(season, *, share: float, rng: random.Random) -> int:
    """Take ``share`` of the season's pending advancement rolls through the service."""
    from matches import services as match_services
    from teams.models import AdvancementRoll

    rolls = list(
        AdvancementRoll.objects.filter(match__season=season, status=AdvancementRoll.Status.PENDING)
        .exclude(faces=[])
        .order_by("id")
    )
    taken = 0
    for roll in rng.sample(rolls, round(len(rolls) * share)):
        options = match_services.advancement_options_for(roll)
        if options:
            match_services.advancement_choose(roll=roll, choice=match_services.option_key(options[0]))
            taken += 1
    return taken


def _play_in_bulk(matches, *, master, rng: random.Random, challenges) -> None:
    from common.bulk import update_rows
    from matches import services as match_services
    from matches.models import Match, MatchNinja, MatchTeam
    from rules.engine import league as rules_league
    from teams.models import Team, TreasuryEntry

    if not matches:
        return
    season = matches[0].season
    now = timezone.now()
    sides_by_match = defaultdict(list)
    for side in MatchTeam.objects.filter(match__in=matches).select_related("team").order_by("slot"):
        sides_by_match[side.match_id].append(side)
    # Kick-off data from the real code, once per team (ratings do not move: bulk games give no XP).
    by_id = {m.pk: m for m in matches}
    sample = {}
    for match_id, sides in sides_by_match.items():
        for side in sides:
            sample.setdefault(side.team_id, by_id[match_id])
    rating, snapshot = {}, {}
    for team_id, match in sample.items():
        if team_id in rating:
            continue
        for side, team, r in match_services.live_sides(match):
            rating[side.team_id], snapshot[side.team_id] = r, match_services.roster_snapshot(team)
    balance = dict(Team.objects.filter(pk__in=sample).values_list("pk", "treasury"))
    revenue = {"win": season.revenue_win, "draw": season.revenue_draw, "loss": season.revenue_loss}
    label = {"win": "Win", "draw": "Draw", "loss": "Loss"}

    with transaction.atomic():
        sides_out, ninjas_out, ledger_out = [], [], []
        for match in matches:
            match.challenge = match.challenge or rng.choice(challenges)
            match.seed = rng.getrandbits(62)
            match.kicked_off_at = match.submitted_at = match.confirmed_at = match.sequence_applied_at = now
            match.submitted_by = match.confirmed_by = master
            match.status = Match.Status.CONFIRMED
            sides = sides_by_match[match.pk]
            bonuses = rules_league.underdog_bonuses([rating[s.team_id] for s in sides])
            points = [rng.randint(0, 6) for _ in sides]
            for side, pts, bonus in zip(sides, points, bonuses, strict=True):
                others = max(p for s, p in zip(sides, points, strict=True) if s is not side)
                outcome = "win" if pts > others else "loss" if pts < others else "draw"
                side.rating = rating[side.team_id]
                side.reroll_tokens, side.moon_power_tokens = bonus.reroll_tokens, bonus.moon_power_tokens
                side.extra_all_stars, side.bonus_koban = bonus.extra_all_star_awards, bonus.bonus_koban
                side.roster_snapshot = snapshot[side.team_id]
                side.team_name = side.team.name
                side.points, side.outcome = pts, outcome
                side.koban_earned = revenue[outcome] + bonus.bonus_koban
                for amount, reason, note in (
                    (revenue[outcome], TreasuryEntry.Reason.REVENUE, f"{label[outcome]} the game"),
                    (
                        bonus.bonus_koban,
                        TreasuryEntry.Reason.UNDERDOG,
                        f"Rating {side.rating} against a higher-rated team",
                    ),
                ):
                    if amount:
                        balance[side.team_id] += amount
                        ledger_out.append(
                            TreasuryEntry(
                                team_id=side.team_id,
                                amount=amount,
                                reason=reason,
                                note=note,
                                match=match,
                                balance_after=balance[side.team_id],
                                created_by=master,
                            )
                        )
                rows = [row for row in side.roster_snapshot if row["available"]]
                stars = set(rng.sample([row["id"] for row in rows], min(len(rows), 1 + side.extra_all_stars)))
                for row in rows:
                    injuries = rng.choice([0, 0, 0, 1, 1, 2])
                    star = 1 if row["id"] in stars else 0
                    ninjas_out.append(
                        MatchNinja(
                            side=side,
                            ninja_id=row["id"],
                            name=row["name"],
                            injuries=injuries,
                            all_star_awards=star,
                            xp_gained=0 if row["is_hero"] else injuries + 3 * star,
                        )
                    )
                sides_out.append(side)
        # common.bulk.update_rows (UPDATE ... FROM VALUES) in chunks: bulk_update's CASE per column
        # grows with the batch, and a 256-team league writes 16,000 matches and 32,000 sides here.
        for start in range(0, len(matches), 1000):
            update_rows(
                Match,
                matches[start : start + 1000],
                [
                    "challenge",
                    "seed",
                    "kicked_off_at",
                    "submitted_at",
                    "confirmed_at",
                    "sequence_applied_at",
                    "submitted_by",
                    "confirmed_by",
                    "status",
                ],
            )
        for start in range(0, len(sides_out), 1000):
            update_rows(
                MatchTeam,
                sides_out[start : start + 1000],
                [*MatchTeam.KICK_OFF_FIELDS, "points", "outcome", "koban_earned"],
            )
        MatchNinja.objects.bulk_create(ninjas_out, batch_size=2000)
        TreasuryEntry.objects.bulk_create(ledger_out, batch_size=2000)
        for team_id, value in balance.items():
            Team.objects.filter(pk=team_id).update(treasury=value)
        # Written around the services: bring the stored standings in step, as the rebuild does.
        from league.readmodel import standings_refresh

        standings_refresh(season=season)


def settle_database() -> None:
    """What autovacuum keeps on a live database, done now for the seeded one: fresh planner
    statistics and, on PostgreSQL, the visibility map (an index-only scan reads no table row for
    a page all visible: ``match_round_progress_idx``, the desk's counts by round)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


def seed_newsletter(league, season) -> object | None:
    """Build and publish (no email) the newsletter of the season's last completed round through the
    newsletters services; None when the app is not installed."""
    try:
        from newsletters import services as news_services
        from newsletters.periods import Period
        from newsletters.selectors import latest_completed_round
    except ImportError:
        return None
    rnd = latest_completed_round(season)
    if rnd is None:
        return None
    newsletter = news_services.newsletter_request(league=league, period=Period.round(season.number, rnd))
    newsletter.refresh_from_db()
    if not newsletter.is_built:  # eager mode already built it after commit; a broker would not have
        news_services.newsletter_build(newsletter_id=newsletter.pk)
        newsletter.refresh_from_db()
    return news_services.newsletter_publish(newsletter=newsletter, actor=league.master, send_email=False)
