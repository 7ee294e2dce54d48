"""Eight threads submitting (and confirming) the same result at once: the sequence runs once."""

import threading

from django.core.exceptions import ValidationError
from django.db import connection

from matches import services
from matches.models import Match, MatchNinja
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.matches.conftest import simple_record


def test_eight_threads_submit_the_same_result(postgres_tx, catalog):
    league = LeagueFactory(master=UserFactory(username="master"), results_need_confirmation=False)
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    match = services.match_kick_off(
        match=services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    )
    record = simple_record(match, points=(4, 1))
    before = (home.treasury, away.treasury)
    barrier = threading.Barrier(8)
    outcomes: list[str] = []
    lock = threading.Lock()

    def submit(i: int):
        try:
            barrier.wait(timeout=10)
            actor = home.owner if i % 2 == 0 else away.owner
            services.match_submit_result(match=Match.objects.get(pk=match.pk), record=record, actor=actor)
            result = "applied"
        except ValidationError as exc:
            result = "refused: " + exc.messages[0]
        except Exception as exc:
            result = f"error: {exc!r}"
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(outcomes) == 8
    assert outcomes.count("applied") == 1, outcomes
    assert all(o.startswith("refused: This match is already") for o in outcomes if o != "applied"), outcomes
    home.refresh_from_db()
    away.refresh_from_db()
    assert home.treasury == before[0] + 10
    assert away.treasury == before[1] + 6 + match.sides.get(team=away).bonus_koban
    assert home.ledger.filter(match=match).count() == 1
    assert MatchNinja.objects.filter(side__match=match).count() == home.ninjas.count() + away.ninjas.count()


def test_eight_threads_confirm_the_same_result(postgres_tx, catalog):
    league = LeagueFactory(master=UserFactory(username="master2"))
    home = make_legal_team("tora", name="Tigers", league=league)
    away = make_legal_team("ika", name="Squids", league=league)
    match = services.match_kick_off(
        match=services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    )
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    barrier = threading.Barrier(8)
    errors: list[str] = []

    def confirm(i: int):
        try:
            barrier.wait(timeout=10)
            services.match_confirm(match=Match.objects.get(pk=match.pk), actor=away.owner if i % 2 else league.master)
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=confirm, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert home.ledger.filter(match=match).count() == 1
    assert away.ledger.filter(match=match).exclude(reason="underdog").count() == 1
