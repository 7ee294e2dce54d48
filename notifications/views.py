"""Notification pages: thin views over notifications/services.py. Every write is a POST."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from notifications import services
from notifications.forms import PreferencesForm
from notifications.models import Kind, Notification
from notifications.tokens import read_token

PER_PAGE = 20
MAX_PK = 2**63 - 1


@require_GET
@login_required
def notification_list(request):
    """The user's notifications, newest first, a page at a time (two queries: the count and the page)."""
    paginator = Paginator(Notification.objects.filter(user=request.user).order_by("-created_at", "-id"), PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    return render(request, "notifications/list.html", {"page": page})


@require_POST
@login_required
def notification_read(request, pk: int):
    """Mark one notification read and go to where it is dealt with."""
    if pk > MAX_PK:
        raise PermissionDenied
    notification = services.notification_read(user=request.user, notification_id=pk)
    if notification is None:
        raise PermissionDenied("Not one of your notifications.")
    target = notification.url
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect("notifications:list")


@require_POST
@login_required
def notification_read_all(request):
    count = services.notifications_read_all(user=request.user)
    messages.success(request, f"{count} notification{'s' if count != 1 else ''} marked read.")
    return redirect("notifications:list")


@require_http_methods(["GET", "POST"])
@login_required
def notification_settings(request):
    current = services.user_preferences(request.user)
    form = PreferencesForm(request.POST or None, initial_choices=current)
    if request.method == "POST" and form.is_valid():
        services.preferences_set(user=request.user, choices=form.choices())
        messages.success(request, "Your notification settings are saved.")
        return redirect("notifications:settings")
    return render(request, "notifications/settings.html", {"form": form})


# The token is the authority (a link from the user's own email): a mail client's RFC 8058
# one-click POST carries no CSRF token and no session, so none is asked for.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """GET: a page asking to confirm (no GET writes); POST (the page's button, or a mail client's
    ``List-Unsubscribe=One-Click``): the emails of that kind stop."""
    found = read_token(token)
    if found is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    kind = Kind(found.kind)
    if request.method == "POST":
        services.unsubscribe(user_id=found.user_id, kind=found.kind)
        return render(request, "notifications/unsubscribe.html", {"kind": kind, "done": True})
    return render(request, "notifications/unsubscribe.html", {"kind": kind, "token": token})
