"""The forms behind the public odds pages (/rules/odds/, /rules/ninjutsu/odds/)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Layout, Row, Submit
from django import forms


class GetForm(forms.Form):
    """A GET form (the page is bookmarkable and safe to reload) whose page shows something before it
    is submitted (:meth:`values`). ``rows``: the layout, each row's fields with their column
    classes. An optional number left blank counts as 0."""

    rows: tuple[tuple[tuple[str, str], ...], ...] = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.layout = Layout(
            *(Row(*(Column(name, css_class=css) for name, css in row)) for row in self.rows),
            Submit("show", "Show the odds"),
        )

    def clean(self) -> dict:
        data = super().clean()
        for name, field in self.fields.items():
            if isinstance(field, forms.IntegerField) and not field.required and name in data and data[name] is None:
                data[name] = 0
        return data

    def values(self) -> dict | None:
        """The chosen values: the cleaned data of a valid submitted form, the initial values
        of an unsubmitted one, ``None`` when the submitted form has errors."""
        if not self.is_bound:
            return {name: field.initial or 0 for name, field in self.fields.items()}
        return self.cleaned_data if self.is_valid() else None


class OddsForm(GetForm):
    """Attack and Defense 1-10 plus the usual bonuses (rulebook "Assists", "Back Strike",
    "Stealth Combat")."""

    attack = forms.IntegerField(min_value=1, max_value=10, initial=4, label="Attack")
    defense = forms.IntegerField(min_value=1, max_value=10, initial=3, label="Defense")
    assists_attacker = forms.IntegerField(
        min_value=0, max_value=3, initial=0, required=False, label="Assists (attacker)", help_text="+1 Attack each"
    )
    assists_defender = forms.IntegerField(
        min_value=0, max_value=3, initial=0, required=False, label="Assists (defender)", help_text="+1 Defense each"
    )
    back_strike = forms.BooleanField(required=False, label="Back strike (+1 Attack)")
    stealth = forms.BooleanField(required=False, label="Attacking from Stealth (+1 Attack)")

    rows = (
        (
            ("attack", "col-6 col-md-3"),
            ("defense", "col-6 col-md-3"),
            ("assists_attacker", "col-6 col-md-3"),
            ("assists_defender", "col-6 col-md-3"),
        ),
        (("back_strike", "col-md-4"), ("stealth", "col-md-4")),
    )
