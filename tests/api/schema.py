"""The API's OpenAPI document, and every response checked against it (jsonschema, Draft 2020-12,
which OpenAPI 3.1's schemas are)."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE = "urn:moonlight-api"


@lru_cache(maxsize=1)
def document() -> dict:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(schema, renderer_context={}))


@lru_cache(maxsize=1)
def _registry() -> Registry:
    return Registry().with_resource(BASE, Resource(contents=document(), specification=DRAFT202012))


@lru_cache(maxsize=1)
def _templates() -> list[tuple[re.Pattern, str]]:
    out = []
    for template in document()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        out.append((re.compile(f"^{pattern}$"), template))
    return out


def operation_for(path: str, method: str) -> tuple[str, dict]:
    for pattern, template in _templates():
        if pattern.match(path):
            operation = document()["paths"][template].get(method.lower())
            assert operation is not None, f"{method} {template} is not in the API's schema"
            return template, operation
    raise AssertionError(f"{path} matches no path of the API's schema")


def check_response(resp, method: str = "GET", *, documented_as: str | None = None) -> None:
    """The response's status is documented for its operation and its JSON body fits the schema.
    ``documented_as``: the method whose operation documents the answer (a 405 to a method the path
    does not have is documented by the path's operations)."""
    path = resp.wsgi_request.path
    method = documented_as or method
    template, operation = operation_for(path, method)
    code = str(resp.status_code)
    assert code in operation["responses"], f"{method} {template}: status {code} is not in the schema"
    content = operation["responses"][code].get("content")
    if not content:
        assert not resp.content, f"{method} {template} {code}: a body where the schema has none"
        return
    assert resp["Content-Type"].startswith("application/json"), resp["Content-Type"]
    escaped = template.replace("~", "~0").replace("/", "~1")
    pointer = f"#/paths/{escaped}/{method.lower()}/responses/{code}/content/application~1json/schema"
    validator = Draft202012Validator({"$ref": f"{BASE}{pointer}"}, registry=_registry())
    errors = sorted(validator.iter_errors(resp.json()), key=lambda e: list(e.path))
    assert not errors, f"{method} {path} {code} does not fit the schema:\n" + "\n".join(
        f"  at {list(e.path)}: {e.message}" for e in errors[:10]
    )
