"""The forms of the API's pages on the site: importing a league's backup."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.conf import settings

from common.text import NameFormField


def _kb(size: int) -> str:
    return f"{size // 1024:,} KB"


class LeagueUploadForm(forms.Form):
    """The first step: the file, and the new league's name and address if not the backup's."""

    document = forms.FileField(
        label="The league's backup",
        help_text="The file the league's page gives its ninja master (Export the league), at most "
        + _kb(settings.LEAGUE_IMPORT_MAX_BYTES)
        + ".",
        widget=forms.ClearableFileInput(attrs={"accept": "application/json,.json"}),
    )
    name = NameFormField(
        label="Name of the new league", max_length=100, required=False, help_text="Empty: the name in the backup."
    )
    slug = forms.SlugField(
        label="Its address",
        max_length=100,
        required=False,
        help_text="Letters, digits and hyphens, as in /leagues/my-league/. Empty: the address in the backup.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_enctype = "multipart/form-data"
        self.helper.add_input(Submit("upload", "Check the backup", css_class="btn-primary"))

    def clean_document(self):
        upload = self.cleaned_data["document"]
        if upload.size > settings.LEAGUE_IMPORT_MAX_BYTES:  # before anything reads it
            raise forms.ValidationError(
                f"This file is {_kb(upload.size)}; a league's backup may be at most "
                f"{_kb(settings.LEAGUE_IMPORT_MAX_BYTES)}."
            )
        return upload


class LeagueConfirmForm(forms.Form):
    """The second step: the name and address the new league takes, then create it."""

    name = NameFormField(label="Name of the new league", max_length=100)
    slug = forms.SlugField(label="Its address", max_length=100, help_text="Letters, digits and hyphens.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("confirm", "Create the league", css_class="btn-primary"))
