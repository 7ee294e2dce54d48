"""Newsletters of the players' games (issue 17, part 5): game reports (a Ninjutsu game's winner,
how the Soke died and who started; a Kage Masters table's places, Kage Masters and treasures), the
league table, and facts from the game's statistics; none of the All-Stars-only sections (XP,
injuries, clans, treasuries, ronin, team ratings)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games import registry as games
from league.models import ScheduleRun
from league.services import simulations as simulation
from matches.models import Match, MatchTeam
from matches.services import match_create, match_submit_game_result
from newsletters import services
from newsletters.models import Newsletter
from newsletters.periods import Period
from tests.league.helpers import generate
from tests.simulation.players import players, players_season

pytestmark = pytest.mark.django_db

ALL_STARS_ONLY = (
    "top_xp",
    "level_ups",
    "advancements",
    "injuries",
    "casualties",
    "treasuries",
    "ronin",
    "clan_records",
)


def build(league, period: Period) -> Newsletter:
    newsletter = services.newsletter_request(league=league, period=period)
    services.newsletter_build(newsletter_id=newsletter.pk)  # the task's service (on_commit does not run here)
    newsletter.refresh_from_db()
    assert newsletter.build_status == Newsletter.BuildStatus.DONE, newsletter.build_error
    return newsletter


def ninjutsu(winner, starter, colours, ending, card="none"):
    return {
        "game": "ninjutsu",
        "winner": winner,
        "starter": starter,
        "colours": list(colours),
        "ending": ending,
        "card": card,
        "ninjas_left": None,
        "shuriken": None,
        "cards": None,
    }


def assert_no_all_stars(newsletter: Newsletter) -> None:
    stats = newsletter.sections["stats"]
    assert not set(ALL_STARS_ONLY) & set(stats)
    html, text = newsletter.content_html, newsletter.content_text
    assert "Game reports" in html and "Challenge reports" not in html and "GAME REPORTS" in text
    for word in ("XP", "koban", "Ronin", "ronin", "injur", "Clan", "clan", "Healing House", "TR:", ">TR<"):
        assert word not in html, word
    assert " TR " not in text and "XP" not in text and "koban" not in text


def test_a_ninjutsu_round_newsletter(django_assert_max_num_queries):
    season = players_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    master = season.league.master
    first, second = sorted(season.matches.filter(round_number=1), key=lambda m: m.pk)
    match_submit_game_result(match=first, record=ninjutsu(1, 2, ("Red", "Blue"), "soke_attacked", "jump"), actor=master)
    match_submit_game_result(match=second, record=ninjutsu(2, 2, ("Black", "White"), "conceded"), actor=master)
    names = {m.pk: [s.team.name for s in m.sides.select_related("team").order_by("slot")] for m in (first, second)}

    newsletter = services.newsletter_request(league=season.league, period=Period.round(season.number, 1))
    with django_assert_max_num_queries(30):
        sections = services.compose_sections(newsletter)
    assert sections["players"] is True and sections["game"] == "ninjutsu"
    newsletter = build(season.league, Period.round(season.number, 1))
    sections = newsletter.sections
    reports = {r["match_id"]: r for r in sections["reports"]}
    a, b = names[first.pk]
    assert reports[first.pk]["headline"] == f"{a} beat {b}"
    assert reports[first.pk]["text"] == (
        f"{a} (Red) beat {b} (Blue): {b}'s Soke was attacked and lost the battle, a Jump having opened the way. "
        f"{b} started."
    )
    assert reports[first.pk]["facts"]["starter"] == b and reports[first.pk]["facts"]["ending"] == "soke_attacked"
    c, d = names[second.pk]
    assert reports[second.pk]["text"] == f"{d} (White) beat {c} (Black): {c} conceded. {d} started and won."
    assert [r["played"] for r in sections["table"]["rows"]] == [1, 1, 1, 1]
    facts = {f["key"]: f["text"] for f in sections["stats"]["game"]["facts"]}
    assert facts["starter"] == "The starting player won 1 of 2 games (50%)."
    assert "Red 1 of 1 (100%)" in facts["colours"] and "Blue 0 of 1 (0%)" in facts["colours"]
    assert facts["cards"] == "The card that opened the way to the Soke: Jump 1."
    assert sections["stats"]["records"] == {"biggest_win": None, "biggest_upset": None}  # no margins recorded
    assert_no_all_stars(newsletter)
    # an apostrophe: the sections' sanitiser (newsletters.services.sanitize_sections) writes it plainly
    assert f"{b}'s Soke was attacked" in newsletter.content_html
    assert 'data-fact="game_starter"' in newsletter.content_html
    assert "The starting player won 1 of 2 games" in newsletter.content_text


def test_a_simulated_ninjutsu_season_has_its_newsletters():
    season = players_season(4)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=5)
    simulation.simulation_job_run(job_id=job.pk)
    newsletter = build(season.league, Period.round(season.number, 3))
    assert len(newsletter.sections["reports"]) == 2
    assert all(" beat " in r["headline"] and r["facts"]["starter"] for r in newsletter.sections["reports"])
    facts = {f["key"] for f in newsletter.sections["stats"]["game"]["facts"]}
    assert {"starter", "colours", "endings"} <= facts
    # the season's six games count in the facts, the round's two in the reports
    assert "of 6 games" in newsletter.sections["stats"]["game"]["facts"][0]["text"]
    assert_no_all_stars(newsletter)


def kage(*seats):
    return {
        "game": "kage_masters",
        "seats": [
            {"slot": i, "kage_master": m, "coins": c, "rewards": r, "seat": s}
            for i, (m, c, r, s) in enumerate(seats, start=1)
        ],
    }


def confirmed_table(season, teams, record, round_number=1):
    """A confirmed Kage Masters table straight into the database, each side's outcome, treasure
    and league points as the contract says (its confirmation is the Kage results' work)."""
    from games.kage_masters import engine

    match = match_create(teams=teams, season=season, round_number=round_number)
    seats = [
        engine.Seat(player=s["slot"], kage_master=s["kage_master"], coins=s["coins"], location_rewards=s["rewards"])
        for s in record["seats"]
    ]
    places, points = engine.placements(seats), engine.league_points(seats)
    for side in match.sides.all():
        i = side.slot - 1
        MatchTeam.objects.filter(pk=side.pk).update(
            outcome="win" if places[i] == 1 else "loss", points=seats[i].treasure, league_points=points[i]
        )
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.CONFIRMED, submitted_record=record, confirmed_at=timezone.now()
    )
    return match


def test_a_kage_masters_round_newsletter():
    season = players_season(5, game=games.KAGE_MASTERS)
    p = players(season)
    names = [t.name for t in p]
    big = confirmed_table(season, p[:3], kage(("Spy", 9, 3, 2), ("Firebrand", 8, 2, 1), ("Assassin", 12, 0, 3)))
    small = confirmed_table(season, p[3:], kage(("Trickster", 4, 0, 1), ("Chain Specialist", 5, 1, 2)))
    newsletter = build(season.league, Period.round(season.number, 1))
    reports = {r["match_id"]: r for r in newsletter.sections["reports"]}
    assert reports[big.pk]["headline"] == f"{names[0]} and {names[2]} share first at a table of 3"
    assert reports[big.pk]["text"] == (
        f"Places: 1st {names[0]} (Spy, 12 treasure), 1st {names[2]} (Assassin, 12 treasure) "
        f"and 3rd {names[1]} (Firebrand, 10 treasure)."
    )
    assert reports[big.pk]["facts"]["places"][0] == {
        "place": 1,
        "team": names[0],
        "kage_master": "Spy",
        "treasure": 12,
        "coins": 9,
        "rewards": 3,
        "seat": 2,
    }
    assert reports[small.pk]["headline"] == f"{names[4]} win a table of 2"
    table = {r["team"]: r for r in newsletter.sections["table"]["rows"]}
    assert table[names[0]]["points"] == 1 and table[names[1]]["points"] == 0 and table[names[4]]["points"] == 1
    facts = {f["key"]: f["text"] for f in newsletter.sections["stats"]["game"]["facts"]}
    assert "Spy 1 of 1 (100%)" in facts["kage_masters"] and "Firebrand 0 of 1 (0%)" in facts["kage_masters"]
    assert (
        facts["seats_3"] == "Mean treasure by first-round seat at tables of 3: seat 1 10.0, seat 2 12.0, seat 3 12.0."
    )
    assert facts["seats_2"].endswith("seat 1 4.0, seat 2 6.0.")
    assert newsletter.sections["stats"]["records"]["biggest_win"]["margin"] == 2  # treasure over the runner-up
    assert_no_all_stars(newsletter)
    assert "(Spy, 12 treasure)" in newsletter.content_text


def test_an_empty_players_newsletter():
    season = players_season(2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    newsletter = build(season.league, Period.week(*timezone.localdate().isocalendar()[:2]))
    assert newsletter.sections["reports"] == [] and newsletter.sections["stats"]["game"]["facts"] == []
    assert "No result was confirmed in this period." in newsletter.content_html
    assert "No game played yet this season." in newsletter.content_html
