"""The post-game sequence through the services, checked against the database afterwards."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from matches import services
from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, UpkeepDecision
from rules.models import Challenge
from teams import selectors
from teams.models import Advancement, AdvancementRoll, Ninja, XpEvent
from tests.factories import UserFactory, recruit
from tests.matches.conftest import choose_pending_rolls, simple_record


def ledger_ok(team):
    team.refresh_from_db()
    entries = list(team.ledger.order_by("id"))
    running = 0
    for e in entries:
        running += e.amount
        assert e.balance_after == running
    assert running == team.treasury
    return team.treasury


def test_kick_off_snapshots_ratings_bonuses_and_rosters(brawl_match, two_teams):
    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    sides = list(match.sides.order_by("slot"))
    assert [s.rating for s in sides] == [11, 10]
    assert (sides[1].reroll_tokens, sides[1].bonus_koban, sides[1].moon_power_tokens, sides[1].extra_all_stars) == (
        1,
        1,
        0,
        0,
    )
    assert (sides[0].reroll_tokens, sides[0].bonus_koban) == (0, 0)
    names = [r["name"] for r in sides[0].roster_snapshot]
    assert "Byakko" in names and len(names) == 8
    # Later roster changes never alter the snapshot or the stored rating.
    recruit(home, "tora-oni") if home.treasury >= 18 else None
    first = home.ninjas.first()
    first.name = "Renamed"
    first.save()
    match = services.match_kick_off(match=match)  # idempotent
    side = match.sides.get(slot=1)
    assert side.rating == 11 and "Renamed" not in [r["name"] for r in side.roster_snapshot]


def test_full_match_from_kick_off_to_chosen_advancements(brawl_match, two_teams, league):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    alice, bob = home.owner, away.owner
    tora = {n.profile.slug: n for n in home.ninjas.select_related("profile")}
    kaiken = home.ninjas.filter(profile__slug="tora-kaiken").order_by("id")[0]
    yajiri = tora["tora-yajiri"]
    chunin_ika = away.ninjas.get(profile__slug="ika-chunin")
    ika_kaiken = away.ninjas.filter(profile__slug="ika-kaiken").order_by("id")[0]
    record = simple_record(
        match,
        points=(6, 2),
        feats={
            kaiken.pk: {"injuries": 19, "chunin_stuns": 0},  # 19 + 3 All-Star = 22 XP: two levels
            yajiri.pk: {"injuries": 2, "chunin_stuns": 1, "reveals": 1},  # 4 XP
            chunin_ika.pk: {"injuries": 2},
        },
        healing={ika_kaiken.pk, chunin_ika.pk},
        all_stars={home.pk: [kaiken.pk], away.pk: [ika_kaiken.pk]},
    )
    home_before, away_before = home.treasury, away.treasury
    # Every advancement earned counts toward the rating, chosen or not ("+1 for each advancement
    # earned", issue 12): the two levels below raise it by two from before the match.
    rating_before = selectors.team_rating(home)
    services.match_submit_result(match=match, record=record, actor=alice)
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED  # confirmation is on by default
    with pytest.raises(PermissionDenied):
        services.match_confirm(match=match, actor=alice)  # the submitter cannot confirm
    services.match_confirm(match=match, actor=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.sequence_applied_at

    # Revenue: 10 for the winner; 6 + 1 underdog koban for the loser.
    assert ledger_ok(home) == home_before + 10
    assert ledger_ok(away) == away_before + 7
    side_home, side_away = match.sides.order_by("slot")
    assert (side_home.outcome, side_home.koban_earned, side_away.outcome, side_away.koban_earned) == (
        "win",
        10,
        "loss",
        7,
    )

    # XP: 22 for the kaiken (two levels, two rolls), 4 for the yajiri; ledger of XP events.
    kaiken.refresh_from_db()
    yajiri.refresh_from_db()
    assert kaiken.xp == 22 and yajiri.xp == 4
    assert sum(XpEvent.objects.filter(ninja=kaiken).values_list("amount", flat=True)) == 22
    rolls = list(AdvancementRoll.objects.filter(ninja=kaiken).order_by("level"))
    assert [r.level for r in rolls] == [1, 2]
    assert all(len(r.faces) == 2 for r in rolls)
    assert DiceRoll.objects.filter(match=match, purpose="advancement").count() == 2
    # Chunin earns nothing for stunning... (not entered); the Ika chunin's 2 injuries give 2 XP.
    chunin_ika.refresh_from_db()
    water = DowntimeResult.objects.filter(match=match, ninja=chunin_ika, face="Water").exists()
    assert chunin_ika.xp == 2 + (1 if water else 0)

    # Downtime: one roll for each Healing House model, faces recorded.
    results = DowntimeResult.objects.filter(match=match)
    assert results.count() == 2
    assert DiceRoll.objects.filter(match=match, purpose="downtime").count() == 2

    # Choose both advancements: the rating is up by one for each (earned with the roll).
    for roll in rolls:
        options = services.advancement_options_for(roll)
        keyword = next(o for o in options if o.kind == "keyword")
        services.advancement_choose(roll=roll, choice=services.option_key(keyword))
    assert Advancement.objects.filter(ninja=kaiken).count() == 2
    assert selectors.team_rating(home) == rating_before + 2
    with pytest.raises(ValidationError):
        services.advancement_choose(roll=rolls[0], choice=services.option_key(keyword))

    # Replaying the seed gives the same downtime faces.
    import random

    from rules.engine.league import roll_downtime

    rng = random.Random(f"{match.seed}:downtime")
    expected = [roll_downtime(rng=rng).face.value for _ in range(2)]
    assert list(
        DiceRoll.objects.filter(match=match, purpose="downtime").order_by("id").values_list("faces", flat=True)
    ) == [[f] for f in expected]


def test_two_levels_in_one_game_give_two_rolls_even_for_one_model(brawl_match, two_teams):
    home, _ = two_teams
    match = services.match_kick_off(match=brawl_match)
    ninja = home.ninjas.filter(profile__slug="tora-kunoichi").first()
    record = simple_record(match, feats={ninja.pk: {"injuries": 40}})
    services.match_submit_result(match=match, record=record, actor=match.league.master)
    ninja.refresh_from_db()
    assert ninja.xp == 40  # not the All-Star: first model is
    assert list(AdvancementRoll.objects.filter(ninja=ninja).values_list("level", flat=True)) == [1, 2]


def test_master_submission_applies_at_once_and_draw_revenue_is_a_setting(brawl_match, two_teams, league):
    _home, _away = two_teams
    league.revenue_draw = 7
    league.save()
    match = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=match, record=simple_record(match, points=(2, 2)), actor=league.master)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert [s.outcome for s in match.sides.order_by("slot")] == ["draw", "draw"]
    assert [s.koban_earned for s in match.sides.order_by("slot")] == [7, 8]  # underdog +1


def test_no_confirmation_setting(brawl_match, league, two_teams):
    league.results_need_confirmation = False
    league.save()
    match = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=match, record=simple_record(match), actor=two_teams[0].owner)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED


def test_sequence_runs_exactly_once(brawl_match, two_teams):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    services.match_confirm(match=match, actor=away.owner)
    services.match_confirm(match=match, actor=away.owner)  # a second confirm is harmless
    with pytest.raises(ValidationError):
        services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    assert home.ledger.filter(match=match).count() == 1
    assert MatchNinja.objects.filter(side__match=match).count() == home.ninjas.count() + away.ninjas.count() == 18


@pytest.mark.parametrize(
    "problem, expected",
    [
        ("two_all_stars", "pick 1 Ninja All-Star"),
        ("none_all_star", "pick 1 Ninja All-Star"),
        ("chunin_stun", "only a non-chunin earns XP for stunning a chunin"),
        ("unplayed_feats", "was never on the board"),
        ("bad_feat", "is not an XP award of this challenge"),
        ("negative", "counts must be between 0 and 50"),
    ],
)
def test_invalid_records_write_nothing(brawl_match, two_teams, problem, expected):
    from dataclasses import replace

    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    record = simple_record(match)
    t0 = record.teams[0]
    ninjas = list(t0.ninjas)
    chunin = next(i for i, n in enumerate(ninjas) if Ninja.objects.get(pk=n.ninja_id).profile.kind == "chunin")
    if problem == "two_all_stars":
        ninjas[1] = replace(ninjas[1], all_star_awards=1)
    elif problem == "none_all_star":
        ninjas[0] = replace(ninjas[0], all_star_awards=0)
    elif problem == "chunin_stun":
        ninjas[chunin] = replace(ninjas[chunin], chunin_stuns=1)
    elif problem == "unplayed_feats":
        ninjas[2] = replace(ninjas[2], played=False, injuries=1)
    elif problem == "bad_feat":
        ninjas[2] = replace(ninjas[2], challenge_feats={"capture_enemy_medal": 1})
    elif problem == "negative":
        ninjas[2] = replace(ninjas[2], injuries=-1)
    record = replace(record, teams=(replace(t0, ninjas=tuple(ninjas)), record.teams[1]))
    with pytest.raises(ValidationError) as exc:
        services.match_submit_result(match=match, record=record, actor=home.owner)
    assert any(expected in m for m in exc.value.messages), exc.value.messages
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.submitted_record is None
    assert not MatchNinja.objects.exists() and not home.ledger.filter(match=match).exists()


def test_outsider_cannot_submit(brawl_match, two_teams):
    match = services.match_kick_off(match=brawl_match)
    with pytest.raises(PermissionDenied):
        services.match_submit_result(match=match, record=simple_record(match), actor=UserFactory())


def test_ronin_upkeep_pay_release_and_forced_release(league, catalog):
    from teams import services as team_services
    from tests.factories import make_team

    home = make_team("tora", name="Ronin Lovers", league=league)
    for slug, n in [("tora-chunin", 1), ("tora-kaiken", 2), ("shojo", 1), ("tengu", 1), ("benkei", 1)]:
        recruit(home, slug, n)
    away = make_team("ika", name="Plain", league=league)
    for slug, n in [("ika-chunin", 1), ("ika-kaiken", 2)]:
        recruit(away, slug, n)
    home.refresh_from_db()
    # leave the treasury so that after a 6-koban loss only one 6-fee ronin can be paid
    team_services.treasury_post(team=home, amount=-home.treasury, reason="correction", note="spent")
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    match = services.match_kick_off(match=match)
    shojo = home.ninjas.get(profile__slug="shojo")
    tengu = home.ninjas.get(profile__slug="tengu")
    benkei = home.ninjas.get(profile__slug="benkei")
    record = simple_record(match, points=(0, 3), healing={shojo.pk})
    services.match_submit_result(
        match=match,
        record=record,
        actor=league.master,
        upkeep={shojo.pk: "pay", tengu.pk: "release", benkei.pk: "pay"},
    )
    side = match.sides.get(team=home)
    # Revenue 6 (loss) + 2 (Shojo in the Healing House) + underdog koban
    expected = 6 + 2 + side.bonus_koban
    assert side.koban_earned == expected
    decisions = {d.ninja_id: d for d in UpkeepDecision.objects.filter(match=match)}
    assert decisions[tengu.pk].paid is False and not decisions[tengu.pk].forced_release
    paid = [d for d in decisions.values() if d.paid]
    forced = [d for d in decisions.values() if d.forced_release]
    assert sum(d.fee for d in paid) <= expected
    assert len(paid) + len(forced) == 2  # Shojo (6) and Benkei (5) asked to be paid
    home.refresh_from_db()
    assert home.treasury == expected - sum(d.fee for d in paid) >= 0
    tengu.refresh_from_db()
    assert tengu.status == Ninja.Status.RELEASED
    for d in forced:
        assert Ninja.objects.get(pk=d.ninja_id).status == Ninja.Status.RELEASED
    # a released ronin rolls no downtime
    for d in forced:
        assert not DowntimeResult.objects.filter(match=match, ninja_id=d.ninja_id).exists()
    ledger_ok(home)


def test_availability_carries_forward(brawl_match, two_teams, league):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    k = away.ninjas.filter(profile__slug="ika-kaiken").first()
    services.match_submit_result(
        match=match, record=simple_record(match, healing={k.pk}), actor=league.master, downtime_faces=None
    )
    result = DowntimeResult.objects.get(match=match, ninja=k)
    k.refresh_from_db()
    assert k.misses_games == result.misses_games
    assert k.starts_in_healing_house == result.starts_in_healing_house
    # Force a two-game absence and play on: the model is left out, and the count goes down per game.
    k.misses_games, k.starts_in_healing_house = 2, False
    k.save()
    for expected_left in (1, 0):
        m = services.match_create(teams=[home, away], challenge=brawl_match.challenge, league=league)
        choose_pending_rolls(home, away)  # the All-Stars' levels: chosen before the next kick-off
        m = services.match_kick_off(match=m)
        row = next(r for r in m.sides.get(team=away).roster_snapshot if r["id"] == k.pk)
        assert row["available"] is False
        services.match_submit_result(match=m, record=simple_record(m), actor=league.master)
        k.refresh_from_db()
        assert k.misses_games == expected_left
    choose_pending_rolls(home, away)
    m = services.match_kick_off(
        match=services.match_create(teams=[home, away], challenge=brawl_match.challenge, league=league)
    )
    assert next(r for r in m.sides.get(team=away).roster_snapshot if r["id"] == k.pk)["available"] is True


def test_healing_house_start_is_used_up(brawl_match, two_teams, league):
    home, _away = two_teams
    k = home.ninjas.filter(profile__slug="tora-kaiken").first()
    k.starts_in_healing_house = True
    k.save()
    match = services.match_kick_off(match=brawl_match)
    row = next(r for r in match.sides.get(team=home).roster_snapshot if r["id"] == k.pk)
    assert row["available"] and row["starts_in_healing_house"]
    services.match_submit_result(match=match, record=simple_record(match), actor=league.master)
    k.refresh_from_db()
    assert k.starts_in_healing_house is False


def test_entered_dice_mode(brawl_match, two_teams, league):
    league.dice_mode = "entered"
    league.save()
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    k = away.ninjas.filter(profile__slug="ika-kaiken").first()
    star = home.ninjas.filter(profile__slug="tora-kaiken").first()
    record = simple_record(
        match, healing={k.pk}, feats={star.pk: {"injuries": 5}}, all_stars={home.pk: [star.pk], away.pk: [k.pk]}
    )
    with pytest.raises(ValidationError):
        services.match_submit_result(match=match, record=record, actor=league.master, downtime_faces={})
    services.match_submit_result(match=match, record=record, actor=league.master, downtime_faces={k.pk: "Void"})
    k.refresh_from_db()
    assert k.misses_games == 2
    assert DiceRoll.objects.get(match=match, purpose="downtime").entered_by_player
    roll = AdvancementRoll.objects.get(ninja=star)
    assert roll.faces == []
    services.advancement_enter_faces(roll=roll, faces=["Fire", "Fire"], actor=home.owner)
    roll.refresh_from_db()
    options = {services.option_key(o) for o in services.advancement_options_for(roll)}
    assert "attribute:attack" in options  # Fire doubles: +1 Attack
    services.advancement_choose(roll=roll, choice="attribute:attack")
    line = selectors.ninja_line(
        selectors.team_for_scroll(home.pk).roster[
            [n.pk for n in selectors.team_for_scroll(home.pk).roster].index(star.pk)
        ]
    )
    assert line.attack == star.profile.attack + 1


def test_spirit_spares_the_worst_other_outcome():
    # The rule moved from matches.services._spirit_spares to the rules engine (issue 12).
    from rules.engine.league import downtime_effect
    from rules.engine.postgame import spirit_spares

    outcomes = {
        1: downtime_effect("Spirit"),
        2: downtime_effect("Fire"),
        3: downtime_effect("Void"),
        4: downtime_effect("Water"),
    }
    assert spirit_spares(outcomes) == {3: 1}
    assert spirit_spares({1: downtime_effect("Spirit"), 2: downtime_effect("Water")}) == {}


def test_void_most_recent_result_reverses_everything(brawl_match, two_teams, league):
    home, away = two_teams
    match = services.match_kick_off(match=brawl_match)
    star = home.ninjas.filter(profile__slug="tora-kaiken").first()
    k = away.ninjas.filter(profile__slug="ika-kaiken").first()
    before = {t.pk: (t.treasury, selectors.team_rating(t)) for t in (home, away)}
    record = simple_record(
        match, feats={star.pk: {"injuries": 9}}, healing={k.pk}, all_stars={home.pk: [star.pk], away.pk: [k.pk]}
    )
    services.match_submit_result(match=match, record=record, actor=league.master)
    roll = AdvancementRoll.objects.get(ninja=star)
    services.advancement_choose(roll=roll, choice=services.option_key(services.advancement_options_for(roll)[0]))
    with pytest.raises(PermissionDenied):
        services.match_void(match=match, actor=home.owner, reason="oops")
    services.match_void(match=match, actor=league.master, reason="Wrong teams")
    for t in (home, away):
        t.refresh_from_db()
        assert (t.treasury, selectors.team_rating(t)) == before[t.pk]
        ledger_ok(t)
    star.refresh_from_db()
    k.refresh_from_db()
    assert star.xp == 0 and k.xp == 0 and k.misses_games == 0 and not k.starts_in_healing_house
    assert not Advancement.objects.filter(ninja=star).exists()
    assert AdvancementRoll.objects.get(pk=roll.pk).status == AdvancementRoll.Status.VOIDED


def test_void_older_result_is_refused(brawl_match, two_teams, league):
    home, away = two_teams
    first = services.match_kick_off(match=brawl_match)
    services.match_submit_result(match=first, record=simple_record(first), actor=league.master)
    second = services.match_kick_off(
        match=services.match_create(teams=[home, away], challenge=brawl_match.challenge, league=league)
    )
    services.match_submit_result(match=second, record=simple_record(second), actor=league.master)
    first.refresh_from_db()
    with pytest.raises(ValidationError) as exc:
        services.match_void(match=first, actor=league.master, reason="late")
    assert "most recent result" in exc.value.messages[0]


def test_three_team_game_compares_to_highest(league, catalog):
    from tests.factories import make_legal_team

    teams = [make_legal_team(c, league=league, name=c) for c in ("tora", "ika", "yamazaru")]
    match = services.match_kick_off(
        match=services.match_create(teams=teams, challenge=Challenge.objects.get(slug="brawl"), league=league)
    )
    ratings = [s.rating for s in match.sides.order_by("slot")]
    top = max(ratings)
    assert [s.bonus_koban for s in match.sides.order_by("slot")] == [min(top - r, 6) for r in ratings]
    services.match_submit_result(match=match, record=simple_record(match, points=(3, 3, 1)), actor=league.master)
    assert [s.outcome for s in match.sides.order_by("slot")] == ["draw", "draw", "loss"]


def test_model_starting_in_healing_house_may_end_there_without_playing(brawl_match, two_teams, league):
    from dataclasses import replace

    home, away = two_teams
    k = away.ninjas.filter(profile__slug="ika-kaiken").first()
    k.starts_in_healing_house = True
    k.save()
    other = away.ninjas.filter(profile__slug="ika-kaiken").exclude(pk=k.pk).first()
    match = services.match_kick_off(match=brawl_match)
    record = simple_record(
        match, all_stars={home.pk: [home.ninjas.first().pk], away.pk: [away.ninjas.get(profile__slug="ika-chunin").pk]}
    )
    away_record = record.teams[1]
    ninjas = [
        replace(n, played=False, in_healing_house=True) if n.ninja_id in (k.pk, other.pk) else n
        for n in away_record.ninjas
    ]
    bad = replace(record, teams=(record.teams[0], replace(away_record, ninjas=tuple(ninjas))))
    with pytest.raises(ValidationError) as exc:  # `other` did not start there
        services.match_submit_result(match=match, record=bad, actor=league.master)
    assert any("only a model that started in the Healing House" in m for m in exc.value.messages)
    ninjas = [replace(n, played=False, in_healing_house=True) if n.ninja_id == k.pk else n for n in away_record.ninjas]
    good = replace(record, teams=(record.teams[0], replace(away_record, ninjas=tuple(ninjas))))
    services.match_submit_result(match=match, record=good, actor=league.master)
    assert DowntimeResult.objects.filter(match=match, ninja=k).count() == 1


def test_underdog_bonuses_follow_the_house_rules(brawl_match, two_teams, league):
    league.underdog_bonuses = False
    league.save()
    match = services.match_kick_off(match=brawl_match)
    away = match.sides.get(slot=2)
    assert away.rating < match.sides.get(slot=1).rating
    assert (away.reroll_tokens, away.bonus_koban, away.extra_all_stars) == (0, 0, 0)
    services.match_submit_result(match=match, record=simple_record(match, points=(1, 3)), actor=league.master)
    assert match.sides.get(slot=2).koban_earned == 10  # the win, no underdog koban


def test_max_bonus_koban_is_a_house_rule(brawl_match, two_teams, league):
    league.max_bonus_koban = 0
    league.save()
    match = services.match_kick_off(match=brawl_match)
    away = match.sides.get(slot=2)
    assert away.reroll_tokens == 1 and away.bonus_koban == 0


def test_the_ledger_names_a_ronins_upkeep_once(client, brawl_match, two_teams, league):
    """Issue 27, finding 10: the ledger read "Ronin upkeep: Ronin upkeep: Benkei 5" (the row's
    reason, then a note that named it again)."""
    from matches import simulation
    from teams import services as team_services
    from teams.models import TreasuryEntry

    home, _away = two_teams
    team_services.treasury_correct(team=home, amount=30, note="Prize money", actor=league.master)
    benkei = recruit(home, "benkei")
    simulation.simulate_match(match=brawl_match, seed=5, actor=league.master, policy="auto")
    row = TreasuryEntry.objects.get(team=home, reason=TreasuryEntry.Reason.UPKEEP)
    assert row.note == f"{benkei.name} {benkei.profile.upkeep}"
    page = client.get(reverse("teams:ledger", args=[home.pk])).content.decode()
    assert f"Ronin upkeep: {benkei.name} {benkei.profile.upkeep}" in page
    assert "Ronin upkeep: Ronin upkeep" not in page
