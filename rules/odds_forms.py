"""The form behind the public combat odds page (/rules/odds/)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Layout, Row, Submit
from django import forms


class OddsForm(forms.Form):
    """Attack and Defense 1-10 plus the usual bonuses (rulebook "Assists", "Back Strike",
    "Stealth Combat").  A GET form: the page is bookmarkable and safe to reload."""

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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.layout = Layout(
            Row(
                Column("attack", css_class="col-6 col-md-3"),
                Column("defense", css_class="col-6 col-md-3"),
                Column("assists_attacker", css_class="col-6 col-md-3"),
                Column("assists_defender", css_class="col-6 col-md-3"),
            ),
            Row(
                Column("back_strike", css_class="col-md-4"),
                Column("stealth", css_class="col-md-4"),
            ),
            Submit("show", "Show the odds"),
        )

    def clean_assists_attacker(self) -> int:
        return self.cleaned_data.get("assists_attacker") or 0

    def clean_assists_defender(self) -> int:
        return self.cleaned_data.get("assists_defender") or 0

    def values(self) -> dict | None:
        """The chosen values: the cleaned data of a valid submitted form, the initial values
        of an unsubmitted one, ``None`` when the submitted form has errors."""
        if not self.is_bound:
            return {name: field.initial or 0 for name, field in self.fields.items()}
        return self.cleaned_data if self.is_valid() else None
