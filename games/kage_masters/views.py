"""Kage Masters' rules page (the ``rules`` namespace, through ``Game.rules_urls``): the rules as
the sheet lists them, with where it says it (games/kage_masters/engine/catalog.py). No database."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path

from games.kage_masters.engine import KAGE_MASTERS, PointsScheme
from games.kage_masters.engine import catalog as kage


def kage_masters_rules(request: HttpRequest) -> HttpResponse:
    """Ninja Dice: Kage Masters: its components, the Kage dice's abilities, the game without
    Location Cards, how a league records a table, and what the rules sheet leaves out."""
    return render(
        request,
        "games/kage_masters/rules.html",
        {
            "components": kage.COMPONENTS,
            "masters": KAGE_MASTERS,
            "abilities": kage.KAGE_ABILITIES,
            "no_location_rounds": kage.NO_LOCATION_ROUNDS,
            "rounds": kage.ROUNDS,
            "schemes": list(PointsScheme),
            "missing": kage.MISSING,
        },
    )


#: Its page under /rules/ (``rules:kage_masters``: GameInfo.rules_pages).
RULES_URLS = (path("kage-masters/", kage_masters_rules, name="kage_masters"),)
