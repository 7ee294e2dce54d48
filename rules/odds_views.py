"""The public combat odds page: exact probabilities of each combat result.

No database: everything comes from rules.engine.odds, which enumerates the dice exactly
(fractions, no sampling) under the stated choosing policy, and caches per pool sizes.
"""

from __future__ import annotations

from functools import lru_cache

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from rules.engine.combat import ATTACKER_PREFERENCE, DEFENDER_PREFERENCE, Side, attack_pool_size, defense_pool_size
from rules.engine.dice import Element
from rules.engine.odds import detailed_odds
from rules.odds_forms import OddsForm

#: Results in the order the page lists them, with what each does ("Combat").
RESULTS: tuple[tuple[Element | None, str, str], ...] = (
    (Element.VOID, "Defender Injured", "#6f42c1"),
    (Element.EARTH, "Defender Stunned", "#8a6d3b"),
    (Element.FIRE, "Everything in the attacker's influence zone Stunned, attacker included", "#dc3545"),
    (Element.AIR, "Attacker may move the defender up to 3 spaces", "#20c997"),
    (Element.WATER, "Whoever picked Water moves the attacker up to 3 spaces; defender placed in front", "#0d6efd"),
    (Element.SPIRIT, "Attacker Injured", "#495057"),
    (None, "All dice eliminated: no result", "#adb5bd"),
)
#: Bar chart geometry (inline SVG): label column, bar area, row height.
CHART_LABEL, CHART_BARS, CHART_ROW = 70, 400, 28
GRID = range(1, 11)


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


@lru_cache(maxsize=256)
def _rows(attack_dice: int, defense_dice: int) -> tuple[dict, ...]:
    detailed = detailed_odds(attack_dice, defense_dice)
    rows = []
    for i, (element, effect, colour) in enumerate(RESULTS):
        by_attacker = float(detailed.get((Side.ATTACKER, element), 0)) if element else 0.0
        by_defender = float(detailed.get((Side.DEFENDER, element), 0)) if element else 0.0
        total = float(detailed.get((None, None), 0)) if element is None else by_attacker + by_defender
        exact = sum((v for (side, e), v in detailed.items() if e is element), start=0)
        rows.append(
            {
                "name": element.value if element else "None",
                "effect": effect,
                "colour": colour,
                "p": total,
                "pct": _pct(total),
                "fraction": str(exact),
                "by_attacker": _pct(by_attacker) if element else "",
                "by_defender": _pct(by_defender) if element else "",
                "y": i * CHART_ROW,
                "text_y": i * CHART_ROW + 18,
                "bar": f"{total * CHART_BARS:.1f}",
                "label_x": f"{CHART_LABEL + total * CHART_BARS + 6:.1f}",
            }
        )
    return tuple(rows)


@lru_cache(maxsize=1)
def _grid() -> tuple[tuple[int, tuple[tuple[int, float, str], ...]], ...]:
    """P(defender Injured) for Attack 1-10 (rows) against Defense 1-10 (columns), no bonuses."""
    out = []
    for a in GRID:
        cells = []
        for d in GRID:
            p = float(detailed_odds(a, d).get((Side.ATTACKER, Element.VOID), 0)) + float(
                detailed_odds(a, d).get((Side.DEFENDER, Element.VOID), 0)
            )
            cells.append((d, p, _pct(p)))
        out.append((a, tuple(cells)))
    return tuple(out)


def odds(request: HttpRequest) -> HttpResponse:
    form = OddsForm(request.GET or None)
    values = form.values()
    context: dict = {"form": form, "grid": _grid(), "defenses": GRID}
    if values is not None:
        attack_dice = attack_pool_size(
            values["attack"],
            assist_bonus=values["assists_attacker"],
            back_strike=values["back_strike"],
            stealth=values["stealth"],
        )
        defense_dice = defense_pool_size(values["defense"], assist_bonus=values["assists_defender"])
        rows = _rows(attack_dice, defense_dice)
        context.update(
            values=values,
            attack_dice=attack_dice,
            defense_dice=defense_dice,
            rows=rows,
            chart_height=CHART_ROW * len(rows),
            chart_width=CHART_LABEL + CHART_BARS + 70,
            chart_label=CHART_LABEL,
            attacker_order=" > ".join(e.value for e in ATTACKER_PREFERENCE),
            defender_order=" > ".join(e.value for e in DEFENDER_PREFERENCE),
        )
    return render(request, "rules/odds.html", context)
