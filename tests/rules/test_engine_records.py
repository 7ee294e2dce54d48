"""Result validation as a pure function (rules.engine.records.record_problems), no database."""

from __future__ import annotations

import pytest

from rules.engine.challenges import CHAMPION_AWARD
from rules.engine.records import MatchRecord, NinjaRecord, RosterEntry, SideSnapshot, TeamRecord, record_problems


def sides(extra_all_stars: int = 0, roster_size: int = 8, chunin: int = 1) -> list[SideSnapshot]:
    home = tuple(RosterEntry(i, f"Home {i}", is_chunin=i == chunin) for i in range(1, roster_size + 1))
    away = tuple(RosterEntry(100 + i, f"Away {i}") for i in range(1, 3))
    return [
        SideSnapshot(1, "Home", home, rating=10, extra_all_stars=extra_all_stars),
        SideSnapshot(2, "Away", away, rating=20),
    ]


def record(home_ninjas, away_stars=(101,)) -> MatchRecord:
    away = tuple(NinjaRecord(101 + i, all_star_awards=1 if 101 + i in away_stars else 0) for i in range(2))
    return MatchRecord(teams=(TeamRecord(1, 3, tuple(home_ninjas)), TeamRecord(2, 1, away)))


def home(played: int, stars: int, size: int = 8) -> list[NinjaRecord]:
    return [NinjaRecord(i, played=i <= played, all_star_awards=1 if i <= stars else 0) for i in range(1, size + 1)]


@pytest.mark.parametrize(
    "extra, played, stars, ok",
    [
        (0, 8, 1, True),
        (0, 8, 0, False),  # one Ninja All-Star is not optional
        (0, 8, 2, False),
        (2, 8, 3, True),  # every extra award given
        (2, 8, 2, True),  # one of two extra awards given
        (2, 8, 1, True),  # none of them: "may award" (correction, issue 12)
        (2, 8, 4, False),  # no more than offered
        (2, 2, 2, True),  # no more than the models that were on the board
        (0, 0, 0, True),  # nobody on the board: nobody to pick
    ],
)
def test_extra_underdog_all_stars_are_optional(extra, played, stars, ok):
    """Rulebook, "Team Rating": "Bonus XP: For every 5 points that the higher rated team is above
    the lower rated team, the lower rated team *may* award one additional All-Star Award at the end
    of the game." The one All-Star per team is required ("each player selects one friendly model as
    the game's Ninja All-Star"); the underdog's extra awards may be given or not."""
    problems = record_problems(record(home(played, stars)), sides=sides(extra))
    assert (problems == []) is ok, problems


@pytest.mark.parametrize(
    "extra, played, stars, message",
    [
        (0, 8, 2, "Home: pick 1 Ninja All-Star (one per team) from models that were on the board; 2 picked."),
        (
            2,
            8,
            0,
            "Home: pick 1 to 3 Ninja All-Stars (one per team plus up to 2 underdog awards) from models that "
            "were on the board; 0 picked.",
        ),
        (
            1,
            8,
            3,
            "Home: pick 1 to 2 Ninja All-Stars (one per team plus up to 1 underdog award) from models that "
            "were on the board; 3 picked.",
        ),
    ],
)
def test_all_star_messages_say_how_many_may_be_picked(extra, played, stars, message):
    assert record_problems(record(home(played, stars)), sides=sides(extra)) == [message]


def test_a_champion_must_be_a_non_chunin_model():
    """Rulebook, "Champion": "each player selects one non-chunin model on their team as their
    Champion"; its XP award: "Whenever a model is chosen as a Champion, it gets 2 XP." A record that
    gives a chunin that award is refused."""
    ninjas = home(8, 1)
    ninjas[0] = NinjaRecord(1, all_star_awards=1, challenge_feats={CHAMPION_AWARD: 1})  # model 1 is the chunin
    problems = record_problems(record(ninjas), sides=sides(), award_keys={CHAMPION_AWARD})
    assert problems == ["Home 1 is a chunin: a Champion must be a non-chunin model."]
    ninjas[0] = NinjaRecord(1, all_star_awards=1)
    ninjas[1] = NinjaRecord(2, challenge_feats={CHAMPION_AWARD: 2})  # a kaiken chosen twice is fine
    assert record_problems(record(ninjas), sides=sides(), award_keys={CHAMPION_AWARD}) == []


def test_the_record_covers_exactly_the_teams_of_the_match():
    rec = record(home(8, 1))
    twice = MatchRecord(teams=(rec.teams[0], rec.teams[0], rec.teams[1]))
    assert record_problems(twice, sides=sides()) == ["The result must cover exactly the teams in the match."]
    alone = MatchRecord(teams=(rec.teams[0],))
    assert record_problems(alone, sides=sides()) == ["The result must cover exactly the teams in the match."]


def test_upkeep_and_entered_downtime_dice():
    roster = (RosterEntry(1, "Tengu", is_hero=True, is_ronin=True, upkeep=5), RosterEntry(2, "Kaiken"))
    snapshot = [SideSnapshot(1, "Home", roster), SideSnapshot(2, "Away", (RosterEntry(101, "A"),))]
    rec = MatchRecord(
        teams=(
            TeamRecord(1, 3, (NinjaRecord(1, all_star_awards=1), NinjaRecord(2, in_healing_house=True))),
            TeamRecord(2, 1, (NinjaRecord(101, all_star_awards=1),)),
        )
    )
    assert record_problems(rec, sides=snapshot, upkeep={1: "keep"}, downtime_faces={2: "Moon"}) == [
        "Tengu: pay or release.",
        "Kaiken: enter the downtime die as rolled.",
    ]
    assert record_problems(rec, sides=snapshot, upkeep={1: "release"}, downtime_faces={2: "Void"}) == []
