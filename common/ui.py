"""Small shared pieces of the user interface (forms' buttons, a service's errors on a form), beneath
every app like the rest of common/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from crispy_forms.layout import Submit
from django import forms
from django.contrib import messages
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


class Submitted(NamedTuple):
    """A form's action done: what it returned (a one-item tuple, so it is true even for None)."""

    result: Any


def submit_form(
    request,
    form,
    action: Callable[[dict], Any],
    success: str | Callable[[Any], str],
    *,
    allowed: bool = True,
) -> Submitted | None:
    """The POST half of a form page: for a valid posted form (and ``allowed``), run
    ``action(form.cleaned_data)`` (a service call), flash ``success`` (a message, or a function of
    the action's result) and return :class:`Submitted`; a service's ValidationError is shown on
    the form (:func:`add_service_errors`) and nothing is returned, nor on a GET or an invalid form."""
    if request.method != "POST" or not allowed or not form.is_valid():
        return None
    try:
        result = action(form.cleaned_data)
    except ValidationError as exc:
        add_service_errors(form, exc)
        return None
    messages.success(request, success(result) if callable(success) else success)
    return Submitted(result)


#: The largest id a database's integer key holds (a 64-bit signed integer).
LARGEST_ID = 2**63 - 1


class BoundedModelMultipleChoiceField(forms.ModelMultipleChoiceField):
    """A multiple choice of rows whose ids are checked as numbers before the query: an id beyond
    the database's integer (a hostile ``others=99999999999999999999``) is "not a choice" rather
    than SQLite's OverflowError, a 500 (Django checks the range of an ``exact`` lookup, not of the
    ``in`` lookup this field runs)."""

    def _check_values(self, value):
        for pk in value if isinstance(value, list | tuple) else ():
            try:
                number = int(str(pk))
            except (TypeError, ValueError):
                continue  # Django's own check says it is not an id
            if not 0 <= number <= LARGEST_ID:
                raise ValidationError(
                    self.error_messages["invalid_choice"], code="invalid_choice", params={"value": str(pk)[:20]}
                )
        return super()._check_values(value)
