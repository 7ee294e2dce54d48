"""Every error under /api/ is JSON in the API's shape, ``{"detail": "..."}`` (issue 27).

DRF answers what its views raise (api/errors.py); this answers the rest, which Django gives itself
with the site's pages: a path no view matches (404), a control character in the address or a NUL in
the query (league.middleware: 404, 400), a body over the site's limit (413, plain text), a server
error (the 500 page). It stands first in ``MIDDLEWARE``, so every answer passes through it; it rewrites
the body and its type in place and keeps the headers the others set (security, ``Retry-After``). A DRF
``Response`` is left alone: it is JSON already, or the browsable API that a browser asked for.
"""

from __future__ import annotations

import json

from rest_framework.response import Response

PREFIX = "/api/"

#: DRF's own words for the same answers, so a client reads one vocabulary.
DETAILS = {
    400: "Malformed request.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    500: "A server error occurred.",
}


class JsonErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path_info.startswith(PREFIX)
            or isinstance(response, Response)
            or getattr(response, "streaming", False)
            or response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        detail = DETAILS.get(response.status_code)
        if detail is None and response.get("Content-Type", "").startswith("text/plain"):
            detail = response.content.decode("utf-8", "replace").strip()
        response.content = json.dumps({"detail": detail or response.reason_phrase})
        response["Content-Type"] = "application/json"
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response
