"""Kage tables as a club runs them (issue 28, part 4): a player who drops out before or during a
table (last place or a forfeit loss, by house rule; a table left below 3 replayed or dissolved, as
the master chooses), the master moving players between a round's tables before it starts (the
repeat meetings it adds, the sizes it keeps), and self-arranged tables of 3 to 5."""

from __future__ import annotations

import random
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games.kage_masters import engine as kage
from games.players import simulation as game_simulation
from league import selectors, services
from league.models import ScheduleRun, Season
from matches import services as match_services
from matches.models import Match, MatchTeam
from stats.ratings import ratings_recompute
from tests.league.helpers import generate
from tests.league.test_kage_tables_schedule import kage_season

pytestmark = pytest.mark.usefixtures("catalog")

MASTERS = kage.KAGE_MASTERS


def record(match: Match, treasure: dict[str, int]) -> dict:
    """A table's record for the players present, by name: {name: coins}."""
    sides = [s for s in match.sides.order_by("slot") if not s.dropped_out]
    return {
        "game": "kage_masters",
        "seats": [
            {"slot": s.slot, "kage_master": MASTERS[i], "coins": treasure[s.team.name], "rewards": 0, "seat": None}
            for i, s in enumerate(sides)
        ],
    }


def table_of(season: Season, size: int) -> Match:
    return next(m for m in Match.objects.filter(season=season, round_number=1) if m.sides.count() == size)


def side(match: Match, name: str) -> MatchTeam:
    return MatchTeam.objects.select_related("team").get(match=match, team__name=name)


def names(match: Match) -> list[str]:
    return [s.team.name for s in match.sides.order_by("slot").select_related("team")]


def enter(match: Match, treasure: dict[str, int]) -> Match:
    """The master enters the table's result (confirmed at once)."""
    match = Match.objects.select_related("league", "season").get(pk=match.pk)
    match_services.match_submit_game_result(match=match, record=record(match, treasure), actor=match.league.master)
    return Match.objects.get(pk=match.pk)


def dropout(match: Match, name: str, when: str = "before", **kw):
    match = (
        Match.objects.select_related("league", "season", "season__league").prefetch_related("sides").get(pk=match.pk)
    )
    return services.table_dropout(match=match, team=side(match, name).team, when=when, actor=match.league.master, **kw)


@pytest.fixture
def four():
    """A season of 4 players (one table of 4 in round 1)."""
    season = kage_season(4, rounds=3)
    generate(season, ScheduleRun.Kind.TABLES)
    return season


# --- drop-outs: the scoring ---------------------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "during"])
def test_a_player_who_drops_out_takes_last_place_and_the_others_score_their_places(four, when):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    plan = dropout(match, b, when)
    assert not plan.below_minimum and [t.name for t in plan.present] == [a, c, d]
    assert side(match, b).dropped_out == when
    match = enter(match, {a: 10, c: 14, d: 6})
    assert match.status == Match.Status.CONFIRMED
    # opponents beaten (the default): each present player has beaten the absent one too
    got = {n: (side(match, n).outcome, side(match, n).points, side(match, n).league_points) for n in (a, b, c, d)}
    assert got == {c: ("win", 14, 3), a: ("loss", 10, 2), d: ("loss", 6, 1), b: ("loss", None, 0)}
    rows = {r.team.name: r for r in selectors.league_table(four)}
    assert rows[b].played == 1 and rows[b].points == 0 and rows[c].points == 3
    # the league table's places: the absent player is 4th of 4
    assert rows[b].places == (("4th", 1),) and rows[c].places == (("1st", 1),)


def test_under_the_fixed_scheme_the_absent_player_scores_the_last_places_points():
    season = kage_season(4, rounds=3, kage_points="fixed", kage_fixed_points="5,3,2,1,0")
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season, 4)
    a, b, c, d = names(match)
    dropout(match, a, "during")
    match = enter(match, {b: 3, c: 3, d: 9})
    assert [side(match, n).league_points for n in (d, b, c, a)] == [5, 3, 3, 1]  # =2nd shared, 4th: 1


def test_under_the_forfeit_loss_rule_the_absent_player_scores_a_forfeit_and_the_others_a_table_of_their_own(client):
    season = kage_season(4, rounds=3, kage_dropout="forfeit_loss", points_forfeit_loss=0)
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season, 4)
    a, b, c, d = names(match)
    plan = dropout(match, d)
    assert any("forfeit loss" in f for f in plan.facts)
    match = enter(match, {a: 10, b: 14, c: 6})
    # a table of three: 2, 1, 0 opponents beaten; the absent player a forfeit's loss
    assert [side(match, n).league_points for n in (b, a, c, d)] == [2, 1, 0, 0]
    assert side(match, d).outcome == "loss" and side(match, d).points is None
    rows = {r.team.name: r for r in selectors.league_table(season)}
    assert rows[d].places == () and rows[d].played == 1 and rows[d].lost == 1
    assert rows[b].places == (("1st", 1),) and rows[c].places == (("3rd", 1),)
    # the match page reads the season's rule, in the game's words
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(match.get_absolute_url()).content.decode()))
    assert f"{d} dropped out: a forfeit loss" in page and "post-game sequence" not in page.lower()


def test_a_forfeit_loss_scores_the_seasons_forfeit_points():
    season = kage_season(4, rounds=3, kage_dropout="forfeit_loss", points_loss=0, points_forfeit_loss=2)
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season, 4)
    a, b, c, d = names(match)
    dropout(match, d)
    match = enter(match, {a: 1, b: 2, c: 3})
    assert side(match, d).league_points == 2


def test_the_result_form_and_check_take_the_players_present_only(four, client):
    match = table_of(four, 4)
    b = names(match)[1]
    dropout(match, b)
    full = {
        "game": "kage_masters",
        "seats": [
            {"slot": i, "kage_master": MASTERS[i - 1], "coins": 3, "rewards": 0, "seat": None} for i in range(1, 5)
        ],
    }
    locked = Match.objects.select_related("league", "season").get(pk=match.pk)
    with pytest.raises(ValidationError, match="one line for each player of this table"):
        match_services.match_submit_game_result(match=locked, record=full, actor=four.league.master)
    client.force_login(four.league.master)
    html = client.get(reverse("matches:result", kwargs={"pk": match.pk})).content.decode()
    assert html.count('data-testid="kage-seat-') == 3 and f"{b}: coins" not in html


def test_a_simulated_table_plays_on_without_the_player_who_dropped_out(four):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    dropout(match, c)
    game_simulation.simulate_match(match=match, seed=5, actor=four.league.master)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert [s["slot"] for s in match.submitted_record["seats"]] == [side(match, n).slot for n in (a, b, d)]
    assert side(match, c).league_points == 0 and side(match, c).points is None


def test_the_ratings_rate_the_table_among_the_players_present(four):
    from teams.models import StrengthRating

    match = table_of(four, 4)
    a, b, c, d = names(match)
    dropout(match, a)
    enter(match, {b: 9, c: 5, d: 1})
    ratings_recompute()
    rated = dict(
        StrengthRating.objects.filter(team__isnull=False, system="plackett_luce").values_list("team__name", "games")
    )
    assert rated.get(b) == rated.get(c) == rated.get(d) == 1
    assert rated.get(a, 0) == 0  # he did not play it out: no table rated for him


def test_the_fixture_list_reads_the_drop_out(four, client):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    dropout(match, b)
    url = reverse("league:season_fixtures", kwargs={"slug": four.league.slug, "number": four.number})
    html = client.get(url).content.decode()
    assert f"{b} dropped out: last place" in html
    enter(match, {a: 1, c: 2, d: 3})
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(url).content.decode()))
    assert f"{b} dropped out: last place" in text and f"{d} 1st (3 treasure)" in text
    assert f"{b} 4th" not in text  # his line says what he scored, not a place by treasure
    page = client.get(match.get_absolute_url()).content.decode()
    assert f"{b} dropped out: last place" in page


# --- drop-outs: what may and may not be done ----------------------------------------------------


def test_a_drop_out_is_refused_once_a_result_is_entered_and_for_a_player_not_at_the_table(four):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    dropout(match, a)
    with pytest.raises(ValidationError, match="dropped out already"):
        dropout(match, a)
    enter(match, {b: 1, c: 2, d: 3})
    with pytest.raises(ValidationError, match="confirmed"):
        dropout(match, b)


def test_a_drop_out_recorded_by_mistake_is_undone_and_the_player_scores_his_place(four, client):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    dropout(match, b)
    # the master reads what undoing it does, and nothing is written until he confirms
    client.force_login(four.league.master)
    url = reverse("league:table_dropout_undo", kwargs={"pk": match.pk})
    preview = client.post(url, {"player": side(match, b).team_id})
    assert preview.status_code == 200 and f"{b} is back at the table" in preview.content.decode()
    assert side(match, b).dropped_out == "before"
    confirmed = client.post(url, {"player": side(match, b).team_id, "confirm": "True"})
    assert confirmed.status_code == 302 and side(match, b).dropped_out == ""
    match = enter(match, {a: 10, b: 12, c: 14, d: 6})
    assert (side(match, b).outcome, side(match, b).points) == ("loss", 12)
    assert {r.team.name: r for r in selectors.league_table(four)}[b].places == (("2nd", 1),)


def test_a_drop_out_is_undone_only_at_a_table_without_a_result_and_for_a_player_who_dropped_out(four):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    fresh = Match.objects.select_related("league", "season", "season__league").prefetch_related("sides")
    assert services.dropout_undo_refusal(fresh.get(pk=match.pk)) == "Nobody has dropped out of this table."
    dropout(match, a)
    with pytest.raises(ValidationError, match="has not dropped out"):
        services.table_dropout_undo(match=fresh.get(pk=match.pk), team=side(match, b).team)
    enter(match, {b: 1, c: 2, d: 3})
    with pytest.raises(ValidationError, match="confirmed"):
        services.table_dropout_undo(match=fresh.get(pk=match.pk), team=side(match, a).team)
    assert side(match, a).dropped_out == "before"


@pytest.mark.parametrize("choice", ["replay", "dissolve"])
def test_a_table_left_below_three_is_replayed_or_dissolved_as_the_master_chooses(choice):
    season = kage_season(3, rounds=2)
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season, 3)
    a, b, c = names(match)
    with pytest.raises(ValidationError, match="choose to replay the table or to dissolve it"):
        dropout(match, b)
    assert side(match, b).dropped_out == ""  # nothing saved
    plan = dropout(match, b, below_minimum=choice)
    assert plan.below_minimum
    match.refresh_from_db()
    assert match.status == Match.Status.VOIDED and "dropped out" in match.void_reason
    replays = list(Match.objects.filter(replay_of=match))
    if choice == "replay":
        assert len(replays) == 1 and names(replays[0]) == [a, b, c] and replays[0].round_number == 1
        assert replays[0].status == Match.Status.SCHEDULED
    else:
        assert replays == []
        # nobody scores for a dissolved table; the next round may be drawn
        assert all(r.played == 0 for r in selectors.league_table(season))
        _, problems = services.schedule_next(season, ScheduleRun.Kind.TABLES)
        assert not problems


def test_a_drop_out_of_a_two_sided_game_is_refused():
    from tests.factories import LeagueFactory

    league = LeagueFactory(game="ninjutsu")
    season = services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    match = Match.objects.create(league=league, season=season)
    assert "not played at tables" in services.dropout_refusal(match)


# --- seating moves -------------------------------------------------------------------------------


@pytest.fixture
def seven():
    """7 players, 2 rounds: round 1 a table of 4 and one of 3, played; round 2 drawn."""
    season = kage_season(7, rounds=3)
    generate(season, ScheduleRun.Kind.TABLES)
    for seed, m in enumerate(Match.objects.filter(season=season, round_number=1)):
        game_simulation.simulate_match(match=m, seed=seed, actor=season.league.master)
    generate(season, ScheduleRun.Kind.TABLES, seed=3)
    return season


def seating_now(season: Season, round_number: int) -> dict[int, int]:
    return {s.team_id: m.pk for m in services.round_tables(season, round_number) for s in m.sides.all()}


def test_a_seating_move_previews_the_repeat_meetings_it_adds_and_writes_nothing(seven):
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    mover = big.sides.all()[0].team
    seating = seating_now(seven, 2) | {mover.pk: small.pk}
    plan = services.seating_plan(season=seven, round_number=2, seating=seating)
    assert plan.changes == [
        f"{mover.name} moves from table {tables.index(big) + 1} to table {tables.index(small) + 1}."
    ]
    # the repeats added are exactly the pairs of the new table that met in round 1 and not at his old one
    met = {frozenset(s.team_id for s in m.sides.all()) for m in Match.objects.filter(season=seven, round_number=1)}
    expected = [other.team.name for other in small.sides.all() if any({mover.pk, other.team_id} <= t for t in met)]
    assert len(plan.added_repeats) == len(expected)
    assert all(any(name in line for line in plan.added_repeats) for name in expected)
    assert seating_now(seven, 2) != seating  # nothing written
    services.tables_reseat(season=seven, round_number=2, seating=seating, actor=seven.league.master)
    assert seating_now(seven, 2) == seating
    moved = Match.objects.get(pk=small.pk)
    assert names(moved)[-1] == mover.name and moved.pairing_reason == "seated by the master"


def test_a_seating_move_keeps_tables_of_three_to_five_and_every_player_once(seven):
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    now = seating_now(seven, 2)
    # the table of 3 would keep 2
    leaver = small.sides.all()[0].team
    with pytest.raises(ValidationError, match="would seat 2 players: a table seats 3 to 5"):
        services.seating_plan(season=seven, round_number=2, seating=now | {leaver.pk: big.pk})
    missing = dict(now)
    missing.pop(leaver.pk)
    with pytest.raises(ValidationError, match="Seat every player of the round, once"):
        services.seating_plan(season=seven, round_number=2, seating=missing)
    with pytest.raises(ValidationError, match="the round's own tables"):
        services.seating_plan(season=seven, round_number=2, seating=now | {leaver.pk: 10**9})
    with pytest.raises(ValidationError, match="seating already"):
        services.seating_plan(season=seven, round_number=2, seating=now)


def test_a_round_with_a_table_played_or_a_result_entered_is_not_reseated(seven):
    tables = services.round_tables(seven, 2)
    assert services.seating_refusal(seven, 1) and "final" in services.seating_refusal(seven, 1)
    first = tables[0]
    locked = Match.objects.select_related("league", "season").get(pk=first.pk)
    match_services.match_submit_game_result(
        match=locked,
        record=record(locked, {n: i for i, n in enumerate(names(locked))}),
        actor=first.sides.all()[0].team.owner,
    )
    assert "has a result entered" in services.seating_refusal(seven, 2)
    with pytest.raises(ValidationError, match="has a result entered"):
        services.seating_plan(season=seven, round_number=2, seating=seating_now(seven, 2))


# --- a self-arranged table of 3 to 5 -------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 5])
def test_a_self_arranged_kage_game_seats_three_to_five(size):
    season = kage_season(6, format=Season.Format.SELF_ARRANGED)
    entries = [e.team for e in season.entries.order_by("team_id")]
    match = services.fixture_arrange(season=season, sides=entries[:size], rng=random.Random(1))
    assert names(match) == [t.name for t in entries[:size]] and match.round_number is None


@pytest.mark.parametrize("size", [2, 6])
def test_a_self_arranged_kage_game_of_two_or_six_is_refused(size):
    season = kage_season(6, format=Season.Format.SELF_ARRANGED)
    entries = [e.team for e in season.entries.order_by("team_id")]
    with pytest.raises(ValidationError, match="3 to 5 players"):
        services.fixture_arrange(season=season, sides=entries[:size], rng=random.Random(1))


# --- the pages -----------------------------------------------------------------------------------


def test_the_master_records_a_drop_out_in_two_steps_and_a_player_may_not(four, client, django_assert_max_num_queries):
    match = table_of(four, 4)
    a, b, c, d = names(match)
    url = reverse("league:table_dropout", kwargs={"pk": match.pk})
    client.force_login(side(match, a).team.owner)
    assert client.get(url).status_code == 403
    assert client.post(url, {"player": side(match, a).team_id, "when": "before", "confirm": "True"}).status_code == 403
    assert side(match, a).dropped_out == ""
    client.force_login(four.league.master)
    with django_assert_max_num_queries(12):
        page = client.get(url).content.decode()
    assert "Who dropped out" in page and "takes last place at the table" in page
    with django_assert_max_num_queries(12):
        preview = client.post(url, {"player": side(match, b).team_id, "when": "during"})
    text = preview.content.decode()
    assert "Confirm the drop-out" in text and f"the table plays on with {a}, {c} and {d}" in text
    assert f"{b} takes the last place at the table (4th)" in text
    assert side(match, b).dropped_out == ""  # the preview writes nothing
    done = client.post(url, {"player": side(match, b).team_id, "when": "during", "confirm": "True"})
    assert done.status_code == 302 and side(match, b).dropped_out == "during"
    fixtures = client.get(done.url).content.decode()
    assert f"{b} dropped out during the game: last place" in fixtures


def test_the_drop_out_page_asks_replay_or_dissolve_when_the_table_would_be_too_small(client):
    season = kage_season(3, rounds=2)
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season, 3)
    a = names(match)[0]
    client.force_login(season.league.master)
    url = reverse("league:table_dropout", kwargs={"pk": match.pk})
    text = client.post(url, {"player": side(match, a).team_id, "when": "before"}).content.decode()
    assert "choose to replay the table or to dissolve it" in text
    text = client.post(
        url, {"player": side(match, a).team_id, "when": "before", "below_minimum": "dissolve"}
    ).content.decode()
    assert "The table is dissolved" in text and Match.objects.get(pk=match.pk).status == Match.Status.SCHEDULED


def test_the_master_moves_players_between_tables_with_a_preview(seven, client, django_assert_max_num_queries):
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    mover = big.sides.all()[0].team
    url = reverse("league:round_seating", kwargs={"slug": seven.league.slug, "number": seven.number, "round_number": 2})
    client.force_login(mover.owner)
    assert client.get(url).status_code == 403
    client.force_login(seven.league.master)
    with django_assert_max_num_queries(12):
        page = client.get(url).content.decode()
    assert page.count('name="seat_') == 7
    data = {f"seat_{pk}": table for pk, table in seating_now(seven, 2).items()} | {f"seat_{mover.pk}": small.pk}
    with django_assert_max_num_queries(14):
        preview = client.post(url, data).content.decode()
    assert "Confirm the new seating" in preview and f"{mover.name} moves from table" in preview
    assert 'data-testid="repeats-added"' in preview
    assert seating_now(seven, 2)[mover.pk] == big.pk  # nothing written yet
    done = client.post(url, data | {"confirm": "True"})
    assert done.status_code == 302 and seating_now(seven, 2)[mover.pk] == small.pk
    # a round played is final: the page says so, and offers no form
    page = client.get(url.replace("/rounds/2/", "/rounds/1/")).content.decode()
    assert "its seating is final" in page and 'name="seat_' not in page


def test_a_player_arranges_a_table_of_three_to_five_on_a_phone_form(client):
    season = kage_season(6, format=Season.Format.SELF_ARRANGED)
    entries = [e.team for e in season.entries.order_by("team_id")]
    me = entries[0]
    client.force_login(me.owner)
    url = reverse("league:fixture_create", kwargs={"slug": season.league.slug, "number": season.number})
    page = client.get(url).content.decode()
    assert 'type="checkbox"' in page and "challenge" not in page.lower().split("<main", 1)[1]
    refused = client.post(url, {"home": me.pk, "others": [entries[1].pk]}).content.decode()
    assert "A table seats 3 to 5 players: you and 1 others make 2" in refused
    done = client.post(url, {"home": me.pk, "others": [t.pk for t in entries[1:4]]})
    assert done.status_code == 302
    match = Match.objects.get(season=season)
    assert names(match) == [t.name for t in entries[:4]]


def test_the_house_rules_form_and_the_league_page_show_the_drop_out_rule(client):
    season = kage_season(3, rounds=1, kage_dropout="forfeit_loss")
    league = season.league
    client.force_login(league.master)
    form = client.get(reverse("league:edit", kwargs={"slug": league.slug})).content.decode()
    assert 'name="rule_kage_dropout"' in form
    page = client.get(league.get_absolute_url()).content.decode()
    assert "A forfeit loss (the forfeit&#x27;s points); the table plays on" in page
    assert season.own_rules["kage_dropout"] == "forfeit_loss"  # frozen into the season
    from tests.factories import LeagueFactory

    other = LeagueFactory(game="ninjutsu")
    client.force_login(other.master)
    assert (
        'name="rule_kage_dropout"'
        not in client.get(reverse("league:edit", kwargs={"slug": other.slug})).content.decode()
    )
