"""The public rules reference: read-only pages anyone may open, no login.

`/rules/` renders the whole catalog on one page with a table of contents; the sub-pages render one
section each, for deep links from other pages (a team's roster, a match's challenge).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from rules import selectors


def _keyword_href_base() -> str:
    """Profile lines link their keywords to the keywords page (the index links within itself)."""
    return reverse("rules:keywords")


def index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/index.html",
        {
            "clans": list(selectors.clans_with_profiles()),
            "ronin": list(selectors.ronin_profiles()),
            "keyword_groups": selectors.keywords_by_category(),
            "challenges": list(selectors.challenges_with_awards()),
            "status_effects": list(selectors.status_effects()),
            "sentries": list(selectors.sentry_profiles()),
            "tables": selectors.league_tables(),
            "keyword_href_base": "",
            "challenge_href_base": "",
        },
    )


def clan(request: HttpRequest, slug: str) -> HttpResponse:
    clan = get_object_or_404(selectors.clans_with_profiles(), slug=slug)
    return render(
        request,
        "rules/clan.html",
        {"clan": clan, "clans": list(selectors.clans()), "keyword_href_base": _keyword_href_base()},
    )


def ronin(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/ronin.html",
        {"ronin": list(selectors.ronin_profiles()), "keyword_href_base": _keyword_href_base()},
    )


def keywords(request: HttpRequest) -> HttpResponse:
    return render(request, "rules/keywords.html", {"keyword_groups": selectors.keywords_by_category()})


def challenges(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/challenges.html",
        {"challenges": list(selectors.challenges_with_awards())},
    )


def status_effects(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/status_effects.html",
        {"status_effects": list(selectors.status_effects()), "sentries": list(selectors.sentry_profiles())},
    )


def tables(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rules/tables.html",
        {"tables": selectors.league_tables(), "challenge_href_base": reverse("rules:challenges")},
    )
