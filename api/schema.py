"""The OpenAPI document states what the code does (issue 27, "The API keeps its own contract").

* ``AutoSchema`` (``DEFAULT_SCHEMA_CLASS``) gives each operation the error answers it may give, each
  with its documented body, and marks an operation that needs no token (``security`` holds ``{}``):
  the ones whose every permission lets a visitor read (``AllowAny``, or a class with
  ``anonymous_reads``, as ``CanReadNewsletter``: a published newsletter is anyone's).
* ``QueryFilterExtension`` states each filter's parameter from the form field that validates it
  (``api.queries.field_schema``): its type, range, length and choices.
* ``StrictInputExtension`` closes the documents that refuse an unknown key
  (``additionalProperties: false``).
* ``add_error_responses`` (a post-processing hook) adds the error components the answers name, and
  marks a request body required when its document has a required member.

Which statuses an operation answers:

=====  ===========================================================================================
400    every operation: a refused query (a NUL, a repeated or empty parameter, a value out of its
       range) or body; nothing was written
401    every operation: a token that is not (or no longer) valid is refused even where none is
       needed; an operation that needs one answers 401 without it
403    an operation a permission guards (every write; a draft newsletter)
404    an operation with a parameter: no such object, or a page past the last
405    every operation: another method on the same path (``Allow`` lists those it answers)
413    an operation with a body: the body is over 64 KB
415    an operation with a body: the body is not JSON
429    every operation: throttled, ``Retry-After`` says for how long
=====  ===========================================================================================
"""

from __future__ import annotations

from drf_spectacular import openapi
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS, AllowAny

from api import queries

MESSAGE = {
    "type": "object",
    "description": "What went wrong, in one message.",
    "required": ["detail"],
    "properties": {"detail": {"type": "string", "minLength": 1}},
    "additionalProperties": False,
}

ERROR_ENTRY = {
    "description": "A refused field's messages, or (for a nested document) its refused parts.",
    "anyOf": [
        {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/ErrorEntry"}]}},
        {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/ErrorEntry"}},
    ],
}

ERROR = {
    "type": "object",
    "description": "What was refused: ``detail`` (a message, or a list of them), or one entry per refused "
    "field or query parameter, each a list of messages (nested as the document is).",
    "minProperties": 1,
    "properties": {
        "detail": {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string"}, "minItems": 1},
            ]
        }
    },
    "additionalProperties": {"$ref": "#/components/schemas/ErrorEntry"},
}

ANSWERS = {
    "400": "The input (query or body) was refused; nothing was written",
    "401": "No valid credentials: send `Authorization: Token <key>` (a token that is not valid is refused "
    "even where none is needed)",
    "403": "Not allowed for this member",
    "404": "No such object, or a page past the last",
    "405": "This path does not answer the method (`Allow` lists those it does)",
    "413": "The request body is over 64 KB",
    "415": "The body is not JSON",
    "429": "Too many requests: wait for the number of seconds in `Retry-After`",
}

BODY_METHODS = ("POST", "PUT", "PATCH")


def _answer(code: str) -> dict:
    component = "Error" if code == "400" else "Message"
    return {
        "description": ANSWERS[code],
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}},
    }


class AutoSchema(openapi.AutoSchema):
    def _public(self) -> bool:
        return all(
            isinstance(p, AllowAny) or (getattr(p, "anonymous_reads", False) and self.method in SAFE_METHODS)
            for p in self.view.get_permissions()
        )

    def get_auth(self):
        auths = super().get_auth()
        if {} not in auths and self._public():
            auths.append({})
        return auths

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        """A list of documents states its bounds (drf-spectacular drops ``many=True``'s lengths)."""
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(field, serializers.ListSerializer) and schema is not None:
            if field.min_length is not None:
                schema["minItems"] = field.min_length
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
            if not field.allow_empty:
                schema["minItems"] = max(schema.get("minItems", 0), 1)
        return schema

    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        codes = ["400", "401"]
        if not all(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            codes.append("403")
        if operation.get("parameters"):
            codes.append("404")
        codes.append("405")
        if self.method in BODY_METHODS:
            codes += ["413", "415"]
        codes.append("429")
        for code in codes:
            operation["responses"].setdefault(code, _answer(code))
        return operation


class QueryFilterExtension(DjangoFilterExtension):
    """drf-spectacular's django-filter support, with each parameter's schema from its form field."""

    priority = 1

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        parameters = super().resolve_filter_field(auto_schema, model, filterset_class, field_name, filter_field)
        for parameter in parameters:
            parameter["schema"] = queries.field_schema(filter_field.field)
        return parameters


class StrictInputExtension(OpenApiSerializerExtension):
    """A document that refuses a key it does not have (``api.serializers.StrictInput``) says so."""

    target_class = "api.serializers.StrictInput"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema


def _needs_a_body(schema: dict, schemas: dict) -> bool:
    """A document with a required member (each alternative's, for a ``oneOf``) cannot be left out."""
    if "$ref" in schema:
        schema = schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
    if "oneOf" in schema:
        return all(_needs_a_body(member, schemas) for member in schema["oneOf"])
    return bool(schema.get("required"))


def add_error_responses(result, generator, request, public):
    """The error components, and a request body that is required when its document has a required
    member (drf-spectacular leaves that out for a polymorphic document: the result's)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(Error=ERROR, ErrorEntry=ERROR_ENTRY, Message=MESSAGE)
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and _needs_a_body(body["content"]["application/json"]["schema"], schemas):
                body["required"] = True
    return result
