"""Forms for newsletters. They validate input only; the views hand cleaned data to the services."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms
from django.core.exceptions import ValidationError

from common.text import NameFormField
from common.ui import StyledSubmit
from newsletters.models import Newsletter
from newsletters.periods import Period


class BuildForm(forms.Form):
    """The master asks for the newsletter of a period (a round with results, or a recent week)."""

    period = forms.ChoiceField(label="Period", help_text="A round of a season, or a week.")

    def __init__(self, *args, choices: list[tuple[str, str]], action: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["period"].choices = choices
        self.helper = FormHelper()
        self.helper.form_action = action
        self.helper.add_input(StyledSubmit("submit", "Draft the newsletter", style="btn-primary"))

    def clean_period(self) -> Period:
        try:
            return Period.from_key(self.cleaned_data["period"])
        except ValidationError as exc:
            raise forms.ValidationError(exc.messages) from exc


class EditorialForm(forms.ModelForm):
    """The master's title and editorial (Markdown). "Preview" shows it without saving."""

    # The title is the emails' subject: one line, normalised like every name (common/text.py).
    title = NameFormField(max_length=150)

    class Meta:
        model = Newsletter
        fields = ["title", "editorial"]
        widgets = {"editorial": forms.Textarea(attrs={"rows": 12})}
        help_texts = {
            "editorial": "Markdown: **bold**, *italic*, [links](https://…), lists, > quotes. "
            "HTML is cleaned; scripts are removed.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(StyledSubmit("preview", "Preview", style="btn-outline-secondary"))
        self.helper.add_input(StyledSubmit("save", "Save the draft", style="btn-primary"))


class PublishForm(forms.Form):
    send_email = forms.BooleanField(required=False, initial=True, label="Email it to every player of the league")

    def __init__(self, *args, recipients: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["send_email"].help_text = f"{recipients} player{'s' if recipients != 1 else ''}, one email each."
        self.helper = FormHelper()
        self.helper.add_input(StyledSubmit("submit", "Publish", style="btn-success"))


class ActionForm(forms.Form):
    """A single button (rebuild), still a crispy form with its CSRF token."""

    def __init__(self, *args, label: str, action: str, css_class: str = "btn-outline-secondary btn-sm", **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = action
        self.helper.form_class = "d-inline"
        self.helper.add_input(StyledSubmit("submit", label, style=css_class))
