"""Ninjutsu's rules pages (the ``rules`` namespace, through ``Game.rules_urls``): the rules as the
book lists them, with where it says it (games/ninjutsu/engine/catalog.py), and the exact battle
odds. No database."""

from __future__ import annotations

from functools import lru_cache

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path

from games.ninjutsu.engine import MAX_SHURIKEN, Ending, Rank, odds_table
from games.ninjutsu.engine import catalog as ninjutsu
from rules.odds_forms import GetForm


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


class NinjutsuOddsForm(GetForm):
    """The shuriken each side brings to a Ninjutsu battle (0 to 10: "a maximum of 10 shurikens can
    be used", NJ l.94)."""

    attacker_shuriken = forms.IntegerField(
        min_value=0, max_value=MAX_SHURIKEN, initial=0, required=False, label="Attacker's shuriken"
    )
    defender_shuriken = forms.IntegerField(
        min_value=0, max_value=MAX_SHURIKEN, initial=0, required=False, label="Defender's shuriken"
    )

    rows = ((("attacker_shuriken", "col-6 col-md-3"), ("defender_shuriken", "col-6 col-md-3")),)


@lru_cache(maxsize=128)
def _ninjutsu_rows(attacker_shuriken: int, defender_shuriken: int) -> tuple[dict, ...]:
    """Every rank attacking every rank: one row per attacker's rank, one cell per defender's."""
    battles = {
        (b.attacker, b.defender): b
        for b in odds_table(attacker_shuriken=attacker_shuriken, defender_shuriken=defender_shuriken)
    }
    return tuple(
        {
            "rank": attacker,
            "cells": tuple(
                {
                    "defender": defender,
                    "pct": f"{100 * float(battles[attacker, defender].attacker_wins):.1f}%",
                    "fraction": str(battles[attacker, defender].attacker_wins),
                }
                for defender in Rank
            ),
        }
        for attacker in Rank
    )


def ninjutsu_odds(request: HttpRequest) -> HttpResponse:
    """Ninjutsu: Battle of the Ninjas: the battle dice, and the exact chance that the attacker wins
    each battle of rank against rank, with the shuriken each side brings (games/ninjutsu/engine)."""
    form = NinjutsuOddsForm(request.GET or None)
    values = form.values()
    context: dict = {"form": form, "ranks": list(Rank)}
    if values is not None:
        context.update(values=values, rows=_ninjutsu_rows(values["attacker_shuriken"], values["defender_shuriken"]))
    return render(request, "games/ninjutsu/odds.html", context)


#: Its pages under /rules/ (``rules:ninjutsu``, ``rules:ninjutsu_odds``: GameInfo.rules_pages).
RULES_URLS = (
    path("ninjutsu/", ninjutsu_rules, name="ninjutsu"),
    path("ninjutsu/odds/", ninjutsu_odds, name="ninjutsu_odds"),
)
