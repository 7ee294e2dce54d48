"""Additions to the generated OpenAPI document: the error answers every operation may give, so a
client (and the tests, which validate every response against the document) knows their shape."""

from __future__ import annotations

ERROR = {
    "type": "object",
    "description": "What went wrong: ``detail`` (a message, or a list of them), or for a refused input "
    "document one entry per field, each a list of messages (nested as the document is).",
    "additionalProperties": True,
}

ANSWERS = {
    "400": "The input (body or query) was refused; nothing was written",
    "401": "No (or no valid) credentials: send `Authorization: Token <key>`",
    "403": "Not allowed for this member",
    "404": "No such object",
    "405": "Method not allowed",
    "413": "The request body is too large",
    "415": "The body is not JSON",
    "429": "Too many requests: wait for the number of seconds in `Retry-After`",
}


def add_error_responses(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    ref = {"$ref": "#/components/schemas/Error"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            codes = ["400", "401", "403", "404", "405", "429"]
            if method in ("post", "put", "patch"):
                codes += ["413", "415"]
            for code in codes:
                operation["responses"].setdefault(
                    code, {"description": ANSWERS[code], "content": {"application/json": {"schema": ref}}}
                )
    return result
