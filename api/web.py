"""The API's pages on the site: a member's API token (namespace ``data``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework.authtoken.models import Token


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
