"""Forms for simulating fixtures (kept apart from the result-entry forms in matches/forms.py).
They validate input only; the views hand cleaned data to league.services.simulations."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from common.ui import StyledSubmit
from matches.models import SimulationJob


class SimulateForm(forms.Form):
    """The master's simulate button, with the post-game choice policy (and, for the rest of a
    random weekly season, how many rounds the season has). A players' game has no post-game
    choices (``scrolls=False``): the form asks none, and a request without one takes the policy's
    default, which nothing of such a game reads."""

    policy = forms.ChoiceField(
        choices=SimulationJob.Policy.choices,
        initial=SimulationJob.Policy.AUTO,
        widget=forms.RadioSelect,
        label="Advancement rolls",
        required=False,
    )
    max_rounds = forms.IntegerField(
        min_value=1,
        max_value=200,
        required=False,
        label="Rounds in the season",
        help_text="Random weekly matchups: rounds are drawn and played until this round.",
    )

    def __init__(
        self,
        *args,
        label: str,
        action: str,
        weekly_rounds: int | None = None,
        css: str = "btn-outline-primary",
        prefix_id: str = "sim",
        scrolls: bool = True,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        if scrolls:
            self.fields["policy"].required = True
        else:
            del self.fields["policy"]
        if weekly_rounds is None:
            del self.fields["max_rounds"]
        else:
            self.fields["max_rounds"].initial = weekly_rounds
        self.auto_id = f"{prefix_id}_%s"
        self.submit_label = label
        self.helper = FormHelper()
        self.helper.form_action = action
        self.helper.form_class = "mb-2"
        self.helper.add_input(StyledSubmit("submit", label, style=f"{css} btn-sm"))

    def clean(self):
        data = super().clean()
        if not data.get("policy"):
            data["policy"] = SimulationJob.Policy.AUTO
        return data
