"""Match.objects' named filters (MatchQuerySet) and the playoff stage's round, which replace the
hand-written filters and the parsing of "playoff-N" strings."""

from __future__ import annotations

import pytest

from matches.models import REGULAR_STAGE, Match, MatchTeam, counted_q, playoff_round, playoff_stage
from tests.factories import LeagueFactory


@pytest.mark.parametrize(
    ("stage", "expected"),
    [("", None), (None, None), ("playoff-1", 1), ("playoff-12", 12), ("playoff-", None), ("final", None)],
)
def test_playoff_round_reads_what_playoff_stage_writes(stage, expected):
    assert playoff_round(stage) == expected
    if expected is not None:
        assert playoff_stage(expected) == stage


@pytest.mark.django_db
def test_the_named_filters():
    from league.models import Season

    league = LeagueFactory()
    season = Season.objects.create(league=league, number=3, name="S3", format=Season.Format.SELF_ARRANGED)
    other = Season.objects.create(
        league=league, number=2, name="S2", format=Season.Format.SELF_ARRANGED, status=Season.Status.FINISHED
    )

    def make(status, stage=REGULAR_STAGE, friendly=False, in_season=season, round_number=1):
        return Match.objects.create(
            league=league, season=in_season, status=status, stage=stage, friendly=friendly, round_number=round_number
        )

    confirmed = make(Match.Status.CONFIRMED)
    friendly = make(Match.Status.CONFIRMED, friendly=True)
    voided = make(Match.Status.VOIDED)
    submitted = make(Match.Status.SUBMITTED)
    late = make(Match.Status.SCHEDULED, round_number=2)
    early = make(Match.Status.SCHEDULED, round_number=1)
    playoff = make(Match.Status.SCHEDULED, stage=playoff_stage(1))
    elsewhere = make(Match.Status.CONFIRMED, in_season=other)

    def ids(qs):
        return {m.pk for m in qs}

    assert ids(season.matches.regular()) == {confirmed.pk, friendly.pk, submitted.pk, late.pk, early.pk}
    assert ids(Match.objects.playoffs()) == {playoff.pk}
    assert ids(Match.objects.counted(season)) == {confirmed.pk}
    assert ids(Match.objects.counted(other)) == {elsewhere.pk}
    assert list(season.matches.scheduled()) == [early, late, playoff]  # stage, round, creation
    assert ids(season.matches.open()) == {submitted.pk, late.pk, early.pk, playoff.pk}
    assert playoff.playoff_round == 1 and confirmed.playoff_round is None
    assert not voided.playoff_round
    # the same condition through a relation
    assert list(MatchTeam.objects.filter(counted_q(season, "match__"))) == []
