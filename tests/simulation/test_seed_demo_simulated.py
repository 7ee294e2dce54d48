"""seed_demo plays its rounds with the match simulator: computed results, the same every time."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import transaction

from matches.models import Match, SimulationRun
from teams.models import Ninja, XpEvent

pytestmark = pytest.mark.usefixtures("catalog")


class Rollback(Exception):
    pass


def _seed_and_read() -> list:
    try:
        with transaction.atomic():
            call_command("seed_demo", rounds=2)
            # the All-Stars demo (the Ninjutsu and Kage Masters demos have their own test)
            played = Match.objects.filter(status="confirmed", league__slug="moonlight-demo").order_by(
                "round_number", "id"
            )
            assert played.count() == 6 and all(m.simulated for m in played)
            assert SimulationRun.objects.filter(match__in=played).count() == 6
            for ninja in Ninja.objects.all():
                assert ninja.xp == sum(XpEvent.objects.filter(ninja=ninja).values_list("amount", flat=True))
            result = [
                (
                    m.round_number,
                    m.challenge.slug,
                    m.seed,
                    tuple((s.team.name, s.points, s.outcome) for s in m.sides.order_by("slot").select_related("team")),
                )
                for m in played
            ]
            raise Rollback
    except Rollback:
        return result


@pytest.mark.slow(reason="seeds and simulates the demo leagues twice")
def test_seed_demo_simulates_its_rounds_deterministically(db):
    assert _seed_and_read() == _seed_and_read()
