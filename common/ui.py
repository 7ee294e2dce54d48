"""Small shared pieces of the user interface (forms' buttons, a service's errors on a form), beneath
every app like the rest of common/."""

from __future__ import annotations

from crispy_forms.layout import Submit
from django.core.exceptions import ValidationError


class StyledSubmit(Submit):
    """A submit button with exactly the Bootstrap style given. (crispy's Submit always keeps
    `btn-primary` and adds the extra class, so an outline button came out as text on blue.)"""

    def __init__(self, name: str, value: str, *, style: str = "btn-primary", **kwargs):
        self.field_classes = f"btn {style}"
        super().__init__(name, value, **kwargs)


def add_service_errors(form, exc: ValidationError) -> None:
    """Show a service's ValidationError on the form: on its field when it names one, else above it."""
    if hasattr(exc, "error_dict"):
        for field, errors in exc.error_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        for message in exc.messages:
            form.add_error(None, message)
