"""Kage Masters' newsletter report (moved from games/players/newsletter.py, before that
newsletters/content.py): its ``Game.newsletter_report``, written from the record a match was
confirmed with: places, Kage Masters and treasures."""

from __future__ import annotations

from collections.abc import Sequence

from games.kage_masters import engine as kage
from games.kage_masters import results as game_results
from matches.models import Match, MatchTeam
from newsletters.content import join_names, ordinal


def kage_report(match: Match, sides: Sequence[MatchTeam], record: dict) -> tuple[str, str, dict]:
    """(headline, text, facts) of a Kage Masters table from its record: places, Kage Masters and
    treasures."""
    seats = game_results.kage_seats(record)
    name = {s.slot: s.team.name for s in sides}
    places = kage.placements(seats)
    ranked = sorted(zip(places, seats, strict=True), key=lambda ps: (ps[0], ps[1].player))
    first = [name[seat.player] for place, seat in ranked if place == 1]
    if len(first) == 1:
        headline = f"{first[0]} win a table of {len(seats)}"
    else:
        headline = f"{join_names(first)} share first at a table of {len(seats)}"
    lines = [
        f"{ordinal(place)} {name[seat.player]} ({seat.kage_master}, {seat.treasure} treasure)" for place, seat in ranked
    ]
    text = "Places: " + join_names(lines) + "."
    facts = {
        "places": [
            {
                "place": place,
                "team": name[seat.player],
                "kage_master": seat.kage_master,
                "treasure": seat.treasure,
                "coins": seat.coins,
                "rewards": seat.location_rewards,
                "seat": seat.seat,
            }
            for place, seat in ranked
        ]
    }
    return headline, text, facts
