"""Middleware of the project (the league package is also the project).

``RequestSizeLimitMiddleware`` answers 413 to a request whose body is larger than
``REQUEST_BODY_MAX_SIZE`` before anything reads it (the CSRF check reads the form), whatever its
kind: Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` does not count uploaded files, so a 30 MB multipart
body was read and accepted (issue 11, finding 8).

``RejectControlCharactersMiddleware`` closes a class of server errors at the door: a URL whose path
holds a control character (``/leagues/tasks/%00/``) is a 404, whatever view and converter it would
reach, and a query string holding a NUL byte is a 400. PostgreSQL refuses NUL bytes in text, so
such a value reaching a query was a 500 (issue 11, finding 6). No page of the site has a control
character in its address, so nothing legitimate is refused.

``AllowedHostMiddleware`` stands first: it checks the ``Host`` header against ``ALLOWED_HOSTS``
(``request.get_host()``, a 400 for any other host) before any middleware may answer. Django checks it
only when something asks for the host (CommonMiddleware, CSRF), so the page cache, which stands
before them, served its cached pages to ``Host: evil.example`` (issue 27, finding 18).
"""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.exceptions import BadRequest, TooManyFilesSent
from django.core.files.uploadhandler import FileUploadHandler
from django.http import Http404, HttpResponse


class AllowedHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.get_host()  # raises DisallowedHost (a 400) for a host not in ALLOWED_HOSTS
        return self.get_response(request)


def _has_control_character(value: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in value)


class RejectControlCharactersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _has_control_character(request.path_info):
            raise Http404("No page has a control character in its address.")
        if "\x00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()
        ):
            raise BadRequest("A NUL byte in the query string.")
        return self.get_response(request)


#: The one page that takes a file, and the room its form needs beside it.
IMPORT_PATH = "/exports/import/"
IMPORT_FORM_ROOM = 64 * 1024


def body_limit(path: str) -> int:
    """The largest body a request to ``path`` may send: REQUEST_BODY_MAX_SIZE, or for the import of a
    league's backup that backup's own limit (LEAGUE_IMPORT_MAX_BYTES) and its form's fields."""
    if path == IMPORT_PATH:
        return max(settings.REQUEST_BODY_MAX_SIZE, settings.LEAGUE_IMPORT_MAX_BYTES + IMPORT_FORM_ROOM)
    return settings.REQUEST_BODY_MAX_SIZE


class RefuseFiles(FileUploadHandler):
    """Every page but the import of a league's backup refuses a file (400), as Django does for more
    files than DATA_UPLOAD_MAX_NUMBER_FILES (1: the backup)."""

    def new_file(self, *args, **kwargs):
        raise TooManyFilesSent("No page but the import of a league's backup takes a file.")

    def receive_data_chunk(self, raw_data, start):  # pragma: no cover - new_file refused it
        return raw_data

    def file_complete(self, file_size):  # pragma: no cover
        return None


class RequestSizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            raise BadRequest("The Content-Length header is not a number.") from None
        limit = body_limit(request.path_info)
        if request.path_info != IMPORT_PATH:
            request.upload_handlers.insert(0, RefuseFiles())
        if length > limit:
            return HttpResponse(
                f"The request is too large: at most {limit // 1024} KB.\n",
                status=413,
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)


class PrivatePagesMiddleware:
    """``Cache-Control: private, no-store`` on every answer to a signed-in member: their pages show
    their teams, drafts and forms, which no shared cache (a proxy, a CDN) and no browser history on
    a shared computer should keep (issue 11, finding 9). After AuthenticationMiddleware; static
    files are answered before it (WhiteNoise) and keep their long cache lifetime."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # The session says who is signed in (after a log-in or log-out in this request too), without
        # the query that loading request.user would add to pages that never needed it.
        session = getattr(request, "session", None)
        if session is not None and SESSION_KEY in session:
            response.headers.pop("Expires", None)
            response["Cache-Control"] = "private, no-store"
        return response
