"""The form behind the public combat odds page (/rules/odds/)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Layout, Row, Submit
from django import forms

from games.ninjutsu.engine import MAX_SHURIKEN


class GetForm(forms.Form):
    """A GET form whose page shows something before it is submitted: :meth:`values`."""

    def values(self) -> dict | None:
        """The chosen values: the cleaned data of a valid submitted form, the initial values
        of an unsubmitted one, ``None`` when the submitted form has errors."""
        if not self.is_bound:
            return {name: field.initial or 0 for name, field in self.fields.items()}
        return self.cleaned_data if self.is_valid() else None


class OddsForm(GetForm):
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


class NinjutsuOddsForm(GetForm):
    """The shuriken each side brings to a Ninjutsu battle (0 to 10: "a maximum of 10 shurikens can
    be used", NJ l.94). A GET form, like the combat odds'."""

    attacker_shuriken = forms.IntegerField(
        min_value=0, max_value=MAX_SHURIKEN, initial=0, required=False, label="Attacker's shuriken"
    )
    defender_shuriken = forms.IntegerField(
        min_value=0, max_value=MAX_SHURIKEN, initial=0, required=False, label="Defender's shuriken"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.layout = Layout(
            Row(
                Column("attacker_shuriken", css_class="col-6 col-md-3"),
                Column("defender_shuriken", css_class="col-6 col-md-3"),
            ),
            Submit("show", "Show the odds"),
        )

    def clean_attacker_shuriken(self) -> int:
        return self.cleaned_data.get("attacker_shuriken") or 0

    def clean_defender_shuriken(self) -> int:
        return self.cleaned_data.get("defender_shuriken") or 0
