"""Two concurrent spends of the last koban: exactly one wins (PostgreSQL row locks)."""

import threading

from django.core.exceptions import ValidationError
from django.db import connection

from rules.models import Profile
from teams import services
from teams.models import Team
from tests.factories import make_team


def test_two_threads_spending_the_last_koban(postgres_tx, catalog):
    team = make_team("tora")
    services.treasury_post(team=team, amount=-82, reason="correction", note="leave 18")
    team.refresh_from_db()
    assert team.treasury == 18
    oni = Profile.objects.get(slug="tora-oni")  # 18 koban: affordable exactly once
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def spend():
        try:
            barrier.wait(timeout=10)
            services.team_recruit(team=Team.objects.get(pk=team.pk), profile=oni)
            outcomes.append("ok")
        except ValidationError as exc:
            outcomes.append("refused: " + " ".join(exc.messages))
        finally:
            connection.close()

    threads = [threading.Thread(target=spend) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(o.split(":")[0] for o in outcomes) == ["ok", "refused"], outcomes
    team.refresh_from_db()
    assert team.treasury == 0
    assert sum(team.ledger.values_list("amount", flat=True)) == team.treasury
    assert team.ninjas.count() == 1
