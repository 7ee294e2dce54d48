"""A game's own house rules in the protocol (games.protocol.HouseRule, Game.house_rules): each
declares its kind by its default, its range or its choices, and the sentence the league page reads;
the core keeps only their values (``game_rules``) and asks the game what they mean."""

from __future__ import annotations

import pytest

from games.base import GameInfo
from games.protocol import MAX_GAME_RULES, Game, HouseRule

INFO = GameInfo(
    key="dice_duel",
    name="Dice Duel",
    min_players=2,
    max_players=2,
    has_team_scrolls=False,
    has_challenges=False,
    entrant="player",
    entrants="players",
)

ROUNDS = HouseRule("rounds", "Rounds a game", 3, low=1, high=9, sentence="{value} rounds a game")
ORDER = HouseRule("order", "Who starts", "youngest", choices=(("youngest", "The youngest"), ("dice", "A roll")))
OPEN = HouseRule("open_hands", "Open hands", False)
GAME = Game(info=INFO, house_rules=(ROUNDS, ORDER, OPEN))


def test_a_rule_is_a_number_a_choice_or_a_flag_by_its_default():
    assert (ROUNDS.kind, ORDER.kind, OPEN.kind) == ("number", "choice", "flag")


@pytest.mark.parametrize(
    "bad",
    [
        {"key": "Rounds", "label": "x", "default": 3, "low": 1, "high": 9},  # not an identifier
        {"key": "rounds", "label": "x", "default": 3},  # a number without a range
        {"key": "rounds", "label": "x", "default": 12, "low": 1, "high": 9},  # default out of it
        {"key": "order", "label": "x", "default": "coin", "choices": (("dice", "A roll"),)},
        {"key": "order", "label": "x", "default": "a", "choices": (("a", "A"), ("a", "Again"))},
        {"key": "order", "label": "x", "default": "a" * 41, "choices": (("a" * 41, "Long"),)},
    ],
)
def test_a_declaration_that_cannot_hold_is_refused_when_the_game_is_built(bad):
    with pytest.raises(ValueError):
        HouseRule(**bad)


def test_a_game_declares_each_key_once_and_a_bounded_number_of_rules():
    with pytest.raises(ValueError, match="each key once"):
        Game(info=INFO, house_rules=(ROUNDS, ROUNDS))
    many = tuple(HouseRule(f"r{i}", "x", 1, low=0, high=2) for i in range(MAX_GAME_RULES + 1))
    with pytest.raises(ValueError, match=f"at most {MAX_GAME_RULES}"):
        Game(info=INFO, house_rules=many)


def test_values_are_checked_against_the_declaration():
    assert GAME.rule_problems({"rounds": 9, "order": "dice", "open_hands": True}) == {}
    problems = GAME.rule_problems({"rounds": 10, "order": "coin", "open_hands": "yes", "lives": 1})
    assert problems == {
        "lives": "Dice Duel has no house rule 'lives'.",
        "rounds": "Rounds a game: A whole number between 1 and 9.",
        "order": "Who starts: One of: youngest, dice.",
        "open_hands": "Open hands: Yes or no.",
    }
    assert GAME.rule_problems({"rounds": True}) == {"rounds": "Rounds a game: A whole number between 1 and 9."}
    assert GAME.rule_problems(["rounds"]) == {"game_rules": "The game's house rules are a mapping of rule to value."}


def test_a_stored_value_is_read_or_its_default_when_unset_or_no_longer_valid():
    assert GAME.rule({"rounds": 5}, "rounds") == 5
    assert GAME.rule({}, "rounds") == 3
    assert GAME.rule({"rounds": 99}, "rounds") == 3  # a game that narrowed its range since
    assert GAME.rule_values({"order": "dice", "gone": 1}) == {"rounds": 3, "order": "dice", "open_hands": False}

    class Rules:
        game_rules = {"open_hands": True}

    assert GAME.rule(Rules(), "open_hands") is True
    with pytest.raises(KeyError):
        GAME.rule({}, "lives")


def test_the_league_page_reads_each_rule_by_its_sentence_or_its_label():
    assert GAME.rule_lines({"rounds": 4, "order": "dice"}) == [
        ("Rounds a game", "4 rounds a game"),
        ("Who starts", "Who starts: A roll"),
        ("Open hands", "Open hands: no"),
    ]
    assert Game(info=INFO).rule_lines({"anything": 1}) == []
