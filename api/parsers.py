"""JSON bodies with limits: a body larger than ``API_MAX_BODY_BYTES`` is a 413, a document nested
deeper than ``API_MAX_JSON_DEPTH`` (or not JSON, or not UTF-8) a 400, before anything else reads it.

DRF's own JSONParser reads the whole stream (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` does not apply
to it) and lets ``json`` recurse as deep as the document goes, so a body of ten thousand ``[`` was a
RecursionError, a 500. The depth is measured by one linear scan before ``json.loads`` runs.

A string no field may hold is a 400 here too, key or value, at any depth (issue 27, item 16): a
lone surrogate (``"\\ud800"``: valid JSON, but no UTF-8 can encode it, so a choice field that echoed
it into its error made an answer that could not be written, a 500) and a NUL (``"\\u0000"``, which
PostgreSQL's text refuses: a slug lookup sent it to the database, a DataError). The parsed document
is walked once, without recursion.
"""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import BaseParser

from common.text import unstorable


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped), in one pass."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif byte in _CLOSE:
            depth -= 1
    return deepest


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class BoundedJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise PayloadTooLarge(f"The request body is too large: at most {limit // 1024} KB.")
        if json_depth(raw) > settings.API_MAX_JSON_DEPTH:
            raise ParseError(f"The JSON document is nested too deeply: at most {settings.API_MAX_JSON_DEPTH} levels.")
        try:
            document = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"The body is not valid JSON: {exc}") from None
        problem = unstorable(document)
        if problem:
            raise ParseError(f"The body holds {problem} (\\u0000, or \\ud800 to \\udfff alone): no field may hold one.")
        return document
