from __future__ import annotations

from django import forms

from notifications.models import Kind


class PreferencesForm(forms.Form):
    """Two checkboxes a kind: ``<kind>_email`` and ``<kind>_site``."""

    def __init__(self, *args, initial_choices: dict[str, tuple[bool, bool]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for kind in Kind.values:
            email, site = initial_choices.get(kind, (True, True))
            self.fields[f"{kind}_email"] = forms.BooleanField(required=False, initial=email, label="Email")
            self.fields[f"{kind}_site"] = forms.BooleanField(required=False, initial=site, label="On the site")

    def rows(self):
        """(label, email field, site field) per kind, for the table."""
        return [(label, self[f"{kind}_email"], self[f"{kind}_site"]) for kind, label in Kind.choices]

    def choices(self) -> dict[str, tuple[bool, bool]]:
        data = self.cleaned_data
        return {kind: (data[f"{kind}_email"], data[f"{kind}_site"]) for kind in Kind.values}
