"""Query parameters declared once: a Django form field validates a parameter and gives its schema
(issue 27, "The API keeps its own contract"). The filters (api/filters.py), the pages
(api/pagination.py) and the team scroll's ``games`` all declare their parameters as form fields;
``field_schema`` turns each into the JSON schema the OpenAPI document states, so what the document
says and what the code refuses cannot drift apart.

The rules every query parameter of the API shares, written here once:

* a parameter is given once (``?season=1&season=2`` is a 400: no parameter of the API is a list);
* a parameter that is given has a value (``?status=`` is a 400; leave it out for "any");
* a value fits its field (type, range, length, choices), else a 400 naming the parameter.
"""

from __future__ import annotations

import re

from django import forms
from rest_framework.exceptions import ValidationError

ONCE = "Give this parameter once."
NOT_EMPTY = "This parameter has no value: leave it out to mean any."


class WholeNumberField(forms.IntegerField):
    """An integer written as one: ASCII digits with an optional minus. Django's own reads ``1.0``,
    `` 1``, ``1_000`` and other scripts' digits as numbers, which no integer schema allows."""

    digits = re.compile(r"-?[0-9]{1,19}")

    def to_python(self, value):
        if value not in self.empty_values and not self.digits.fullmatch(str(value)):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


def field_schema(field: forms.Field) -> dict:
    """The JSON schema (OpenAPI 3.1) of a value this form field accepts."""
    if isinstance(field, forms.TypedChoiceField | forms.ChoiceField):
        values = [str(value) for value, _label in field.choices if value not in ("", None)]
        return {"type": "string", "enum": values}
    if isinstance(field, forms.IntegerField):
        schema: dict = {"type": "integer"}
        if field.min_value is not None:
            schema["minimum"] = field.min_value
        if field.max_value is not None:
            schema["maximum"] = field.max_value
        if (field.max_value or 0) >= 2**31:
            schema["format"] = "int64"
        return schema
    if isinstance(field, forms.CharField):
        schema = {"type": "string", "minLength": max(field.min_length or 0, 1)}
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
        return schema
    raise TypeError(f"No schema for the query field {field!r}: add it to api.queries.field_schema")


def presence_errors(data, names) -> dict[str, list[str]]:
    """The parameters of ``names`` given more than once or given empty, with why."""
    errors: dict[str, list[str]] = {}
    getlist = getattr(data, "getlist", None)
    for name in names:
        values = getlist(name) if getlist is not None else ([data[name]] if name in data else [])
        if len(values) > 1:
            errors[name] = [ONCE]
        elif values == [""]:
            errors[name] = [NOT_EMPTY]
    return errors


class QueryForm(forms.Form):
    """A form over query parameters that refuses a repeated or an empty one (the rules above).
    Every parameter may be left out."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False

    def clean(self):
        for name, messages in presence_errors(self.data, self.fields).items():
            for message in messages:
                self.add_error(name, message)
        return super().clean()


def single_values(query_params, names) -> dict[str, str]:
    """The query as one value a parameter, for a serializer that validates it (the leaderboards',
    the ratings'): a QueryDict would let a serializer read ``?system=`` as "not given"."""
    errors = presence_errors(query_params, names)
    if errors:
        raise ValidationError(errors)
    return {name: query_params[name] for name in names if name in query_params}


def cleaned(form_class: type[forms.Form], query_params) -> dict:
    """The form's cleaned query, or a 400 naming each refused parameter."""
    form = form_class(query_params)
    if not form.is_valid():
        raise ValidationError({name: list(messages) for name, messages in form.errors.items()})
    return {name: value for name, value in form.cleaned_data.items() if name in query_params}


def openapi_parameters(form_class: type[forms.Form]) -> list:
    """The same, as drf-spectacular's ``extend_schema(parameters=...)`` takes them."""
    from drf_spectacular.utils import OpenApiParameter

    return [
        OpenApiParameter(p["name"], p["schema"], OpenApiParameter.QUERY, description=p.get("description", ""))
        for p in parameters(form_class)
    ]


def parameters(form_class: type[forms.Form]) -> list[dict]:
    """The OpenAPI query parameters of a form, for a view's schema."""
    out = []
    for name, field in form_class().fields.items():
        parameter = {"name": name, "in": "query", "required": False, "schema": field_schema(field)}
        if field.help_text:
            parameter["description"] = str(field.help_text)
        out.append(parameter)
    return out
