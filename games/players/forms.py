"""Result forms of the games whose entrants are players (issue 17): one short form a game, laid
out for a phone. Each form checks the result with its game's pure rules (games/*/engine) and gives
the record the match stores (:mod:`matches.game_results`)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Fieldset, Layout
from django import forms

from common.text import SingleLineFormField
from games.kage_masters.engine import KAGE_MASTERS, MAX_PLAYERS
from games.ninjutsu.engine import MAX_SHURIKEN, Card, Ending
from games.ninjutsu.engine.results import ACTION_CARDS
from games.players import results as game_results

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


class KageMastersResultForm(forms.Form):
    """A Kage Masters table: for each player (one block a side of the match, in slot order), his
    Kage Master, the coins he ended with and the rewards of the Location Cards he beat (treasure =
    both, KM l.46), and optionally his seat in the first round's turn order (all or none). Places
    and league points follow from the treasure (games.kage_masters.engine)."""

    intro = (
        "Enter each player's Kage Master and treasure: the coins he ended with and the coin rewards of "
        "the Location Cards he beat. Seats (the first round's turn order) are optional: give all or none."
    )

    def __init__(self, *args, names: tuple[str, ...], slots: tuple[int, ...] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.names = tuple(names)
        # The slots of the players present (a player who dropped out has no block): 1..n by default.
        self.slots = tuple(slots) if slots is not None else tuple(range(1, len(self.names) + 1))
        self.name_of = dict(zip(self.slots, self.names, strict=True))
        masters = [("", "—"), *((m, m) for m in KAGE_MASTERS)]
        blocks = []
        for slot, name in zip(self.slots, self.names, strict=True):
            self.fields[f"kage_master_{slot}"] = forms.ChoiceField(label=f"{name}: Kage Master", choices=masters)
            self.fields[f"coins_{slot}"] = _bounded(f"{name}: coins", game_results.MAX_KAGE_COINS, required=True)
            self.fields[f"rewards_{slot}"] = _bounded(
                f"{name}: Location rewards", game_results.MAX_KAGE_COINS, help_text="0 when he beat none."
            )
            self.fields[f"seat_{slot}"] = _bounded(f"{name}: first-round seat", MAX_PLAYERS, least=1)
            blocks.append(
                Fieldset(
                    name,
                    f"kage_master_{slot}",
                    Div(
                        Div(f"coins_{slot}", css_class="col-6"),
                        Div(f"rewards_{slot}", css_class="col-6"),
                        css_class="row g-2",
                    ),
                    f"seat_{slot}",
                    css_class="border rounded p-2 mb-3",
                    data_testid=f"kage-seat-{slot}",
                )
            )
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.layout = Layout(*blocks)

    def clean(self):
        data = super().clean()
        slots = self.slots
        masters = [data.get(f"kage_master_{slot}") for slot in slots]
        seen: dict[str, int] = {}
        for slot, master in zip(slots, masters, strict=True):
            if master and master in seen:
                self.add_error(
                    f"kage_master_{slot}",
                    f"{self.name_of[seen[master]]} already plays the {master}: each player takes a different Kage Master.",
                )
            elif master:
                seen[master] = slot
        seats = [data.get(f"seat_{slot}") for slot in slots]
        given = [s for s in seats if s is not None]
        if any(f"seat_{slot}" in self.errors for slot in slots):
            pass  # the seat's own error says what is wrong
        elif given and len(given) != len(seats):
            raise forms.ValidationError("Give every player's first-round seat, or none.")
        if given and sorted(given) != list(range(1, len(slots) + 1)):
            raise forms.ValidationError(f"Seats are numbered 1 to {len(seats)}, each once.")
        if self.errors:
            return data
        record = {
            "game": game_results.KAGE_MASTERS,
            "seats": [
                {
                    "slot": slot,
                    "kage_master": data[f"kage_master_{slot}"],
                    "coins": data[f"coins_{slot}"],
                    "rewards": data.get(f"rewards_{slot}") or 0,
                    "seat": data.get(f"seat_{slot}"),
                }
                for slot in slots
            ],
        }
        problems = game_results.problems(record, slots=list(slots))
        if problems:
            raise forms.ValidationError(problems)
        self.record = record
        return data

    @staticmethod
    def initial_from(record: dict) -> dict:
        """The form's fields from a stored record (another player's own record starts from it)."""
        initial = {}
        for seat in record.get("seats") or []:
            slot = seat.get("slot")
            for key in ("kage_master", "coins", "rewards", "seat"):
                if seat.get(key) is not None:
                    initial[f"{key}_{slot}"] = seat[key]
        return initial


def _bounded(
    label: str, most: int, *, least: int = 0, required: bool = False, help_text: str = ""
) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=required,
        min_value=least,
        max_value=most,
        help_text=help_text,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


#: Each players' game's result form, by game key.
FORMS: dict[str, type[forms.Form]] = {
    game_results.NINJUTSU: NinjutsuResultForm,
    game_results.KAGE_MASTERS: KageMastersResultForm,
}


def result_form_for(match, data=None, *, time_limit: bool = False) -> forms.Form:
    """The result form of a players' game's match (its league loaded, its sides prefetched with
    their entrants): one name a side, in slot order; ``time_limit``: the season's (Ninjutsu)."""
    form_class = FORMS[match.league.game]
    if form_class is NinjutsuResultForm:
        names = tuple(side.name_at_match for side in match.sides.all())
        return NinjutsuResultForm(data, names=names, time_limit=time_limit)
    # A table: a block for each player present (one who dropped out has none).
    present = [side for side in match.sides.all() if not side.dropped_out]
    return form_class(data, names=tuple(s.name_at_match for s in present), slots=tuple(s.slot for s in present))
