"""Recruitment rules (rules.engine.recruitment), no database. Rulebook, "Building Teams":
"The higher number is the maximum number of models of that type that may be on the team."; Hero:
"Duplicates of the same Hero may not be recruited to the same team."; Ronin "follow all of the rules
for models with Hero"."""

from __future__ import annotations

import pytest

from rules.engine.recruitment import (
    ChosenAbility,
    RecruitProfile,
    RecruitTeam,
    allowance_text,
    recruit_check,
    roster_problems,
)

KAIKEN = RecruitProfile(
    "kaiken", "Kaiken", "kaiken", 10, clan_key="tora", label="Tora Kaiken", allowance_min=2, allowance_max=4
)
CHUNIN = RecruitProfile(
    "chunin", "Chunin", "chunin", 20, clan_key="tora", allowance_min=1, allowance_max=1, choose_abilities=1
)
BYAKKO = RecruitProfile("byakko", "Byakko", "hero", 24, clan_key="tora")
TENGU = RecruitProfile("tengu", "Tengu", "ronin", 16)
IKA_KAIKEN = RecruitProfile(
    "ika-kaiken", "Kaiken", "kaiken", 12, clan_key="ika", label="Ika Kaiken", allowance_min=2, allowance_max=4
)


def team(treasury=100, **counts):
    return RecruitTeam(clan_key="tora", clan_name="Tora", treasury=treasury, counts=counts)


@pytest.mark.parametrize(
    "profile, counts, treasury, full, affordable, problems",
    [
        (KAIKEN, {"kaiken": 3}, 100, False, True, []),
        (KAIKEN, {"kaiken": 4}, 100, True, True, ["The allowance for Kaiken is 2-4: the team already has 4."]),
        (BYAKKO, {}, 100, False, True, []),
        (
            BYAKKO,
            {"byakko": 1},
            100,
            True,
            True,
            ["Byakko is already on the team; a hero or ronin can be recruited only once."],
        ),
        (
            TENGU,
            {"tengu": 1},
            100,
            True,
            True,
            ["Tengu is already on the team; a hero or ronin can be recruited only once."],
        ),
        (TENGU, {}, 10, False, False, ["Not enough koban: the Tengu costs 16 and the treasury holds 10."]),
        (
            IKA_KAIKEN,
            {},
            100,
            False,
            True,
            ["Ika Kaiken is not of clan Tora; a team recruits only its own clan's ninja, plus ronin."],
        ),
    ],
)
def test_recruit_check(profile, counts, treasury, full, affordable, problems):
    check = recruit_check(team(treasury, **counts), profile)
    assert (check.full, check.affordable, list(check.problems)) == (full, affordable, problems)
    assert check.allowed is (not problems)


@pytest.mark.parametrize(
    "chosen, problem",
    [
        ([ChosenAbility("Pounce", "chunin")], None),
        ([], "Choose 1 special ability for the Chunin."),
        (
            [ChosenAbility("Pounce", "chunin"), ChosenAbility("Tiger Strike", "chunin")],
            "Choose 1 special ability for the Chunin.",
        ),
        ([ChosenAbility("Net", "ika-chunin")], "Choose 1 special ability for the Chunin."),  # another profile's
    ],
)
def test_abilities_are_chosen_at_recruitment(chosen, problem):
    """ "If the entry specifies that the model chooses a specific number of the special abilities
    listed, the player must choose the abilities when the model is recruited." """
    check = recruit_check(team(), CHUNIN, chosen_abilities=chosen)
    assert list(check.problems) == ([problem] if problem else [])
    assert recruit_check(team(), CHUNIN).problems == ()  # not chosen yet: not checked
    assert recruit_check(team(), KAIKEN, chosen_abilities=[ChosenAbility("Pounce", "kaiken")]).problems == (
        "The Kaiken has all its abilities; nothing to choose.",
    )


def test_roster_problems_check_minimums_and_maximums():
    assert roster_problems(team(kaiken=1), [CHUNIN, KAIKEN, BYAKKO]) == [
        "Chunin: the team needs exactly 1 and has 0.",
        "Kaiken: the team needs at least 2 and has 1.",
    ]
    assert roster_problems(team(chunin=1, kaiken=5), [CHUNIN, KAIKEN]) == [
        "Kaiken: the team may have at most 4 and has 5."
    ]
    assert roster_problems(team(chunin=1, kaiken=2), [CHUNIN, KAIKEN, BYAKKO]) == []


def test_allowance_text():
    assert [allowance_text(2, 4), allowance_text(1, 1), allowance_text(None, None)] == ["2-4", "1", "unique"]
