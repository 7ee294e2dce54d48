"""Ninjutsu's result form (issue 17; moved from games/players/forms.py): one short form, laid out for
a phone. It checks the result with the game's pure rules (games.ninjutsu.engine) and gives the record
the match stores (:mod:`games.ninjutsu.results`)."""

from __future__ import annotations

from typing import Any

from crispy_forms.helper import FormHelper
from django import forms

from common.text import SingleLineFormField
from games.ninjutsu import house_rules as own_rules
from games.ninjutsu import results as game_results
from games.ninjutsu.engine import MAX_SHURIKEN, Card, Ending
from games.ninjutsu.engine.results import ACTION_CARDS

CARD_LABELS = {
    Card.NONE: "None",
    Card.JUMP: "Jump",
    Card.SMOKE: "Smoke",
    Card.JOKER: "Joker (played as a Jump or a Smoke)",
}


def _count(label: str, most: int | None) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=0,
        max_value=most if most is not None else 99,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


class NinjutsuResultForm(forms.Form):
    """A Ninjutsu game: the winner, how the game ended, colours and the starting player; the
    details (ninjas left, shuriken and action cards used) are optional, both players' or neither."""

    intro = "Enter how the game ended. The details at the end are optional: give both players' or leave them blank."

    def __init__(self, *args, names: tuple[str, str], time_limit: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.names = names
        self.time_limit = time_limit
        players = [("1", names[0]), ("2", names[1])]
        winners = [
            *players,
            *([("draw", "Nobody (stopped by the time limit, as many ninjas left)")] if time_limit else []),
        ]
        self.fields["winner"] = forms.ChoiceField(label="Winner", choices=winners, widget=forms.RadioSelect)
        self.fields["ending"] = forms.ChoiceField(
            label="How the game ended",
            choices=[(e.value, e.label) for e in Ending if time_limit or e is not Ending.TIME_LIMIT],
        )
        self.fields["card"] = forms.ChoiceField(
            label="The action card that opened the way to the Soke",
            choices=[(c.value, CARD_LABELS[c]) for c in Card],
            initial=Card.NONE.value,
            help_text="Only when the winner's ninja reached the Soke.",
        )
        self.fields["starter"] = forms.ChoiceField(label="Who started (won the d6 toss)", choices=players)
        for slot, name in ((1, names[0]), (2, names[1])):
            self.fields[f"colour_{slot}"] = SingleLineFormField(label=f"{name}'s colour", max_length=20)
        for slot, name in ((1, names[0]), (2, names[1])):
            self.fields[f"ninjas_left_{slot}"] = _count(f"{name}: ninjas left", None)
            self.fields[f"shuriken_{slot}"] = _count(f"{name}: shuriken used", MAX_SHURIKEN)
            self.fields[f"cards_{slot}"] = _count(f"{name}: action cards used", ACTION_CARDS)
        self.helper = FormHelper()
        self.helper.form_tag = False

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        record = {
            "game": game_results.NINJUTSU,
            "winner": None if data["winner"] == "draw" else int(data["winner"]),
            "starter": int(data["starter"]),
            "colours": [data["colour_1"], data["colour_2"]],
            "ending": data["ending"],
            "card": data["card"],
        }
        for key, label in (
            ("ninjas_left", "ninjas left"),
            ("shuriken", "shuriken used"),
            ("cards", "action cards used"),
        ):
            pair = [data.get(f"{key}_1"), data.get(f"{key}_2")]
            if (pair[0] is None) != (pair[1] is None):
                raise forms.ValidationError(f"Give both players' {label}, or neither.")
            record[key] = pair if pair[0] is not None else None
        problems = game_results.problems(record, time_limit=self.time_limit)
        if problems:
            raise forms.ValidationError(problems)
        self.record = record
        return data

    @staticmethod
    def initial_from(record: dict) -> dict:
        """The form's fields from a stored record (a counter-submission starts from the first)."""
        initial = {
            "winner": "draw" if record.get("winner") is None else str(record["winner"]),
            "starter": str(record.get("starter", "")),
            "ending": record.get("ending", ""),
            "card": record.get("card", Card.NONE.value),
        }
        for slot, colour in enumerate(record.get("colours") or [], start=1):
            initial[f"colour_{slot}"] = colour
        for key in ("ninjas_left", "shuriken", "cards"):
            for slot, value in enumerate(record.get(key) or [], start=1):
                initial[f"{key}_{slot}"] = value
        return initial


def bind_result_form(match: Any, data: Any = None, *, rules: Any = None) -> NinjutsuResultForm:
    """The match's result form (its sides prefetched): one name a side, in slot order;
    ``rules``: the season's (its time limit)."""
    time_limit = rules is not None and own_rules.time_limited(rules)
    names = tuple(side.name_at_match for side in match.sides.all())
    return NinjutsuResultForm(data, names=names, time_limit=time_limit)
