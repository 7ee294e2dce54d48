"""Building a newsletter from a seeded league: each section holds the right facts."""

from __future__ import annotations

import pytest

from newsletters import services
from newsletters.models import Newsletter
from newsletters.periods import Period
from tests.newsletters.helpers import play_second_round, seed_league


def build(league, period: Period) -> Newsletter:
    """Request a build (the task runs eagerly after commit) and return the fresh row."""
    newsletter = services.newsletter_request(league=league, period=period)
    newsletter.refresh_from_db()
    assert newsletter.build_status == Newsletter.BuildStatus.DONE, newsletter.build_error
    return newsletter


@pytest.mark.django_db(transaction=True)
def test_round_newsletter_reports_the_upset_the_top_xp_earner_and_table_movement(catalog):
    s = seed_league(play_round_2=False)
    first = build(s.league, Period.round(1, 1))
    play_second_round(s)
    second = build(s.league, Period.round(1, 2))
    sections = second.sections

    # Challenge reports: one per confirmed match of the round, as prose.
    reports = {r["match_id"]: r for r in sections["reports"]}
    assert set(reports) == {s.matches["r2a"].pk, s.matches["r2b"].pk}
    upset = reports[s.matches["r2b"].pk]
    gap = s.ratings["Squids"] - s.ratings["Apes"]
    assert gap == 5
    assert upset["headline"] == "Upset! Apes beat Squids 3–1"
    assert [n["kind"] for n in upset["notables"]] == ["upset"]
    assert upset["notables"][0]["gap"] == gap
    assert f"Apes went in rated {gap} below Squids ({s.ratings['Apes']} against {s.ratings['Squids']})" in upset["text"]
    assert "Big Monkey (Apes)" in upset["text"]  # a Ninja All-Star
    assert "Apes inflicted five injuries, all by Big Monkey" in upset["text"]
    brawl = reports[s.matches["r2a"].pk]
    assert brawl["headline"] == "Foxes beat Tigers 9–1"
    assert {n["kind"] for n in brawl["notables"]} == {"brawl_nine"}
    assert "reached nine points and won the Brawl outright" in brawl["text"]

    # Round 1's Brawl was a shutout.
    r1 = {r["match_id"]: r for r in first.sections["reports"]}
    assert [n["kind"] for n in r1[s.matches["r1a"].pk]["notables"]] == ["shutout"]
    assert "A shutout: Squids did not score." in r1[s.matches["r1a"].pk]["text"]

    # The table at the end of each round, and the movement between the two newsletters.
    assert [r["team"] for r in first.sections["table"]["rows"]] == ["Tigers", "Foxes", "Apes", "Squids"]
    assert all(r["movement"] is None for r in first.sections["table"]["rows"])
    rows = {r["team"]: r for r in sections["table"]["rows"]}
    assert [r["team"] for r in sections["table"]["rows"]] == ["Foxes", "Apes", "Tigers", "Squids"]
    assert (rows["Foxes"]["movement"], rows["Foxes"]["arrow"]) == (1, "▲")
    assert (rows["Apes"]["movement"], rows["Apes"]["arrow"]) == (1, "▲")
    assert (rows["Tigers"]["movement"], rows["Tigers"]["arrow"], rows["Tigers"]["badge"]) == (-2, "▼", "▼2")
    assert (rows["Squids"]["movement"], rows["Squids"]["arrow"]) == (0, "=")
    assert rows["Foxes"]["points"] == 6 and rows["Foxes"]["played"] == 2
    assert sections["table"]["compared_with"] == first.title
    assert sections["previous"]["id"] == first.pk

    # Facts and stats.
    stats = sections["stats"]
    assert stats["top_xp"]["rows"][0] == {
        "ninja_id": s.big_monkey_id,
        "ninja": "Big Monkey",
        "team_id": s.apes.pk,
        "team": "Apes",
        "xp": 8,
    }
    assert stats["top_xp"]["text"] == "Top XP earner: Big Monkey (Apes) with 8 XP."
    assert {
        "ninja": "Big Monkey",
        "team": "Apes",
        "level": "Experienced",
        "text": "Big Monkey (Apes) reached Experienced",
    } in stats["level_ups"]
    assert stats["injuries"]["ninjas"][0] == {"ninja": "Big Monkey", "team": "Apes", "injuries": 5}
    assert stats["records"]["biggest_upset"]["gap"] == gap
    assert stats["records"]["biggest_upset"]["winner"] == "Apes"
    assert stats["records"]["biggest_win"]["margin"] == 8  # Foxes 9–1 Tigers
    clans = {(c["clan"], c["opponent"]): (c["won"], c["drawn"], c["lost"]) for c in stats["clan_records"]}
    assert clans[("Ika", "Yamazaru")] == (0, 0, 1)
    assert clans[("Kitsune", "Tora")] == (1, 0, 0)
    assert stats["treasuries"]["rows"][0]["koban"] >= stats["treasuries"]["rows"][-1]["koban"]

    # Charts: league points over the rounds, ratings at kick-off; inline SVG.
    titles = [c["title"] for c in sections["charts"]]
    assert titles == ["League points over the season", "Team rating at kick-off"]
    points = {line["name"]: line["points"] for line in sections["charts"][0]["series"]}
    assert points["Foxes"] == [[1, 3], [2, 6]]
    assert sections["charts"][0]["svg"].startswith("<svg")

    # Rendered once, stored: the HTML and the text carry the same facts.
    assert "Upset! Apes beat Squids 3–1" in second.content_html
    assert 'data-movement="-2"' in second.content_html
    assert "<svg" in second.content_html
    assert "Big Monkey (Apes) with 8 XP" in second.content_text


@pytest.mark.django_db(transaction=True)
def test_building_twice_leaves_one_newsletter_and_updates_the_draft(seeded):
    period = Period.round(1, 2)
    first = services.newsletter_request(league=seeded.league, period=period)
    second = services.newsletter_request(league=seeded.league, period=period)
    assert first.pk == second.pk
    assert Newsletter.objects.filter(league=seeded.league).count() == 1
    newsletter = Newsletter.objects.get()
    assert newsletter.builds == 2
    assert newsletter.status == Newsletter.Status.DRAFT
    assert newsletter.build_status == Newsletter.BuildStatus.DONE


@pytest.mark.django_db
def test_the_task_itself_is_safe_to_run_twice(seeded):
    from newsletters.tasks import newsletter_build_task

    newsletter = services.newsletter_request(league=seeded.league, period=Period.round(1, 1))
    assert newsletter_build_task.apply(args=[newsletter.pk]).successful()
    assert newsletter_build_task.apply(args=[newsletter.pk]).successful()
    assert Newsletter.objects.count() == 1
    newsletter.refresh_from_db()
    assert len(newsletter.sections["reports"]) == 2


@pytest.mark.django_db
def test_week_newsletter_reports_the_matches_confirmed_that_week(seeded, django_capture_on_commit_callbacks):
    from django.utils import timezone

    week = Period.week_of(timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        newsletter = services.newsletter_request(league=seeded.league, period=week)
    newsletter.refresh_from_db()
    assert newsletter.kind == "week"
    assert len(newsletter.sections["reports"]) == 4
    assert [r["team"] for r in newsletter.sections["table"]["rows"]] == ["Foxes", "Apes", "Tigers", "Squids"]
    # The season has rounds, so its points chart is by round even in a week's newsletter.
    assert newsletter.sections["charts"][0]["x_label"] == "Round"


@pytest.mark.django_db(transaction=True)
def test_facts_cover_the_healing_house_ronin_hired_and_lost_level_ups_and_advancements(catalog):
    from league import services as league_services
    from matches import services as match_services
    from matches.models import Match
    from rules.models import Challenge
    from teams.models import AdvancementRoll
    from tests.factories import LeagueFactory, UserFactory, make_legal_team, make_team, recruit
    from tests.newsletters.helpers import join, record_for

    # No loss revenue and dice entered at the table: the Raiders cannot pay their ronin's upkeep,
    # and the downtime faces are known.
    league = LeagueFactory(
        name="Hard League", slug="hard", master=UserFactory(username="hard-master"), revenue_loss=0, dice_mode="entered"
    )
    season = league_services.season_create(league=league, format="round_robin")
    tigers = join(league, make_legal_team("tora", owner=UserFactory(username="t-owner"), name="Tigers", league=league))
    raiders = make_team("yamazaru", owner=UserFactory(username="r-owner"), name="Raiders", league=league)
    recruit(raiders, "yamazaru-chunin")
    kappa = recruit(raiders, "kappa", name="Kappa")
    recruit(raiders, "yamazaru-kaiken", 4)
    recruit(raiders, "yamazaru-yajiri", 2)
    raiders = join(league, raiders)
    assert raiders.treasury == 0

    match = match_services.match_create(
        teams=[tigers, raiders], challenge=Challenge.objects.get(slug="champion"), season=season, round_number=1
    )
    match_services.match_kick_off(match=match)
    match.refresh_from_db()
    t_side, r_side = match.sides.order_by("slot")
    t_rows = {r["profile_slug"]: r for r in t_side.roster_snapshot}
    r_rows = [r for r in r_side.roster_snapshot if r["profile_slug"] == "yamazaru-kaiken"]
    hero = t_rows["tora-chunin"]["id"]
    kunoichi = next(r["id"] for r in t_side.roster_snapshot if r["profile_slug"] == "tora-kunoichi")
    hurt = r_rows[0]["id"]
    record = record_for(
        match,
        {tigers.pk: 4, raiders.pk: 2},
        feats={hero: {"injuries": 8}},
        stars={tigers.pk: [hero]},
        healing=(kunoichi, hurt),
    )
    match_services.match_submit_result(
        match=match, record=record, actor=league.master, downtime_faces={kunoichi: "Air", hurt: "Void"}
    )
    assert Match.objects.get(pk=match.pk).status == Match.Status.CONFIRMED

    # The chunin reached Experienced: the master enters the dice and picks an advancement.
    roll = AdvancementRoll.objects.get(ninja_id=hero)
    match_services.advancement_enter_faces(roll=roll, faces=["Fire", "Earth"], actor=league.master)
    roll.refresh_from_db()
    option = match_services.advancement_options_for(roll)[0]
    advancement = match_services.advancement_choose(roll=roll, choice=match_services.option_key(option))

    newsletter = build(league, Period.round(1, 1))
    (report,) = newsletter.sections["reports"]
    stats = newsletter.sections["stats"]
    names = {r["id"]: r["name"] for r in t_side.roster_snapshot + r_side.roster_snapshot}

    assert f"{names[hurt]} (Raiders) misses the next two games" in report["text"]
    assert f"{names[kunoichi]} (Tigers) starts the next game in the Healing House" in report["text"]
    assert "Raiders could not cover the 5-koban upkeep of Kappa, and the ronin was released." in report["text"]
    assert [n["kind"] for n in report["notables"]] == ["ronin_released"]
    assert report["notables"][0]["forced"] is True

    assert stats["casualties"]["healing_house"] == 2
    assert [c["text"] for c in stats["casualties"]["rows"]] == [
        f"{names[kunoichi]} (Tigers) starts the next game in the Healing House",
        f"{names[hurt]} (Raiders) misses the next two games",
    ]
    assert stats["ronin"]["hired"] == [
        {
            "ninja": "Kappa",
            "profile": "Kappa",
            "team": "Raiders",
            "team_id": raiders.pk,
            "koban": 20,
            "upkeep": 5,
            "text": "Raiders hired Kappa for 20 koban (5 upkeep a game)",
        }
    ]
    assert [r["text"] for r in stats["ronin"]["lost"]] == ["Kappa left Raiders (could not pay the upkeep)"]
    assert stats["top_xp"]["rows"][0]["ninja"] == names[hero]
    assert stats["top_xp"]["rows"][0]["xp"] == 11
    assert [u["text"] for u in stats["level_ups"]] == [f"{names[hero]} (Tigers) reached Experienced"]
    assert [a["text"] for a in stats["advancements"]] == [f"{names[hero]} (Tigers) took {advancement}"]
    assert stats["treasuries"]["rows"][0]["team"] == "Tigers"
    assert stats["injuries"]["text"].startswith(f"Most injuries inflicted: {names[hero]} (Tigers) with 8.")
    assert kappa.pk not in {n["ninja_id"] for n in stats["top_xp"]["rows"]}
