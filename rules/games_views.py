"""The rules pages of the site's other games: what each book lists, with where it says it
(games/*/engine/catalog.py). No database."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.kage_masters.engine import KAGE_MASTERS, PointsScheme
from games.kage_masters.engine import catalog as kage
from games.ninjutsu.engine import Ending, Rank
from games.ninjutsu.engine import catalog as ninjutsu


def ninjutsu_rules(request: HttpRequest) -> HttpResponse:
    """Ninjutsu: Battle of the Ninjas: its components, ranks and battle dice, action cards, how a
    league records a game, and what the book leaves out."""
    return render(
        request,
        "games/ninjutsu/rules.html",
        {
            "components": ninjutsu.COMPONENTS,
            "ranks": list(Rank),
            "cards": ninjutsu.ACTION_CARD_TEXT,
            "endings": list(Ending),
            "missing": ninjutsu.MISSING,
        },
    )


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
