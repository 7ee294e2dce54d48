"""Kage Masters' result form (issue 17; moved from games/players/forms.py): one short form, laid out
for a phone. It checks the result with the game's pure rules (games.kage_masters.engine) and gives
the record the match stores (:mod:`games.kage_masters.results`)."""

from __future__ import annotations

from typing import Any

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Fieldset, Layout
from django import forms

from games.kage_masters import results as game_results
from games.kage_masters.engine import KAGE_MASTERS, MAX_PLAYERS


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


def bind_result_form(match: Any, data: Any = None, *, rules: Any = None) -> KageMastersResultForm:
    """The match's result form (its sides prefetched): a block for each player present (one who
    dropped out has none), in slot order."""
    present = [side for side in match.sides.all() if not side.dropped_out]
    return KageMastersResultForm(
        data, names=tuple(s.name_at_match for s in present), slots=tuple(s.slot for s in present)
    )
