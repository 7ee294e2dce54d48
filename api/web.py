"""The API's pages on the site: a member's API token, and importing a league's backup (namespace
``data``)."""

from __future__ import annotations

import base64
import hashlib
import zlib

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.authtoken.models import Token

from api import backup
from api.forms import LeagueConfirmForm, LeagueUploadForm


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    """See your API token; a POST makes a new one (the old one stops working) or, with
    ``revoke``, removes it."""
    if request.method == "POST":
        with transaction.atomic():
            Token.objects.filter(user=request.user).delete()
            if "revoke" in request.POST:
                messages.info(request, "Your API token is revoked.")
            else:
                Token.objects.create(user=request.user)
                messages.success(request, "A new API token: the old one no longer works.")
        return redirect("data:token")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "api/token.html", {"token": token})


# --- importing a league's backup -------------------------------------------------------------------

#: Where the upload waits between the check and the confirmation: the file as uploaded (compressed),
#: its digest, and nothing the confirmation trusts without checking the whole document again.
IMPORT_SESSION_KEY = "league_import"


def _keep(request: HttpRequest, data: bytes, filename: str) -> None:
    request.session[IMPORT_SESSION_KEY] = {
        "data": base64.b64encode(zlib.compress(data, 6)).decode("ascii"),
        "sha256": hashlib.sha256(data).hexdigest(),
        "filename": filename[:100],
    }


def _kept(request: HttpRequest) -> bytes | None:
    """The upload kept by the check step, or None (none, or not what was kept)."""
    kept = request.session.get(IMPORT_SESSION_KEY)
    if not isinstance(kept, dict):
        return None
    try:
        inflate = zlib.decompressobj()
        data = inflate.decompress(base64.b64decode(kept["data"]), backup.max_bytes() + 1)
    except (KeyError, TypeError, ValueError, zlib.error):
        return None
    if len(data) > backup.max_bytes() or hashlib.sha256(data).hexdigest() != kept.get("sha256"):
        return None
    return data


def _check(request: HttpRequest, data: bytes, name: str | None, slug: str | None):
    """(the checked document or None, the refusal's sentence or "", whether only the league's
    name or address was refused)."""
    try:
        document = backup.league_document_read(data)
        return backup.league_check(document, owner=request.user, name=name, slug=slug), "", False
    except backup.ImportRefused as exc:
        return exc.checked, " ".join(exc.messages), exc.checked is not None
    except ValidationError as exc:
        return None, " ".join(exc.messages), False


@login_required
def league_import(request: HttpRequest) -> HttpResponse:
    """Import a league's backup into a new league of the signed-in member's, in two steps: the
    upload is checked whole and what it would create is shown (nothing is written); the
    confirmation checks the kept upload again, whole, and creates the league. A GET writes
    nothing."""
    upload_form, confirm_form, preview, refusal = LeagueUploadForm(), None, None, ""
    if request.method == "POST" and "confirm" in request.POST:
        data = _kept(request)
        if data is None:
            refusal = "The backup checked before is no longer here: upload it again."
        else:
            confirm_form = LeagueConfirmForm(request.POST)
            if confirm_form.is_valid():
                name, slug = confirm_form.cleaned_data["name"], confirm_form.cleaned_data["slug"]
                try:  # the kept upload, checked again whole by the import itself
                    league = backup.league_import(
                        backup.league_document_read(data), owner=request.user, name=name, slug=slug
                    )
                except backup.ImportRefused as exc:
                    preview, refusal = exc.checked, " ".join(exc.messages)
                else:
                    request.session.pop(IMPORT_SESSION_KEY, None)
                    messages.success(request, f"{league.name} is imported; you are its ninja master.")
                    return redirect(league.get_absolute_url())
            else:
                preview, _, _ = _check(request, data, None, None)
            if preview is None:
                confirm_form = None
    elif request.method == "POST":
        upload_form = LeagueUploadForm(request.POST, request.FILES)
        if upload_form.is_valid():
            upload = upload_form.cleaned_data["document"]
            data = upload.read(backup.max_bytes() + 1)
            name = upload_form.cleaned_data["name"] or None
            slug = upload_form.cleaned_data["slug"] or None
            # A document refused only for its league's row (its name or address taken) waits for
            # the member to choose others on the next step.
            preview, refusal, _ = _check(request, data, name, slug)
            if preview is not None:
                _keep(request, data, upload.name or "")
                confirm_form = LeagueConfirmForm(initial={"name": preview.league_name, "slug": preview.league_slug})
    return render(
        request,
        "api/league_import.html",
        {
            "upload_form": upload_form,
            "confirm_form": confirm_form,
            "preview": preview,
            "refusal": refusal,
        },
    )
