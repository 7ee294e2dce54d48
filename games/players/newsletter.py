"""The newsletter's reports of the players' games' results (moved from newsletters/content.py):
each game's ``Game.newsletter_report``, written from the record a match was confirmed with."""

from __future__ import annotations

from collections.abc import Sequence

from games.kage_masters import engine as kage
from games.ninjutsu import engine as ninjutsu
from games.players import records as game_records
from games.players import results as game_results
from matches.models import Match, MatchTeam
from newsletters.content import join_names, ordinal


def _ninjutsu_how(result: ninjutsu.NinjutsuResult, name: dict, loser: str) -> str:
    """How a Ninjutsu game ended, as a clause about the loser."""
    ending = result.ending
    if ending is ninjutsu.Ending.SOKE_ATTACKED:
        how = f"{loser}'s Soke was attacked and lost the battle"
    elif ending is ninjutsu.Ending.SOKE_ATTACKING:
        how = f"{loser}'s Soke attacked and lost the battle"
    elif ending is ninjutsu.Ending.OUT_OF_DOJO:
        how = f"{loser}'s Soke's die left the Dojo"
    elif ending is ninjutsu.Ending.CONCEDED:
        how = f"{loser} conceded"
    else:
        how = "the time limit stopped the game"
        if result.ninjas_left is not None:
            how += f" with {result.ninjas_left[0]}–{result.ninjas_left[1]} ninjas left"
    if result.card is not ninjutsu.Card.NONE:
        card = "a Joker" if result.card is ninjutsu.Card.JOKER else f"a {result.card.value.capitalize()}"
        how += f", {card} having opened the way"
    return how


def ninjutsu_report(match: Match, sides: Sequence[MatchTeam], record: dict) -> tuple[str, str, dict]:
    """(headline, text, facts) of a Ninjutsu game from its record."""
    result = game_results.ninjutsu_result(record)
    name = {s.slot: s.team.name for s in sides}
    colour = dict(zip(result.players, result.colours, strict=True))
    starter = name.get(result.starter, "")
    if result.winner is None:
        headline = f"{name[1]} and {name[2]} drew on time"
        text = f"{name[1]} ({colour[1]}) and {name[2]} ({colour[2]}) drew: {_ninjutsu_how(result, name, '')}."
    else:
        winner, loser = name[result.winner], name[result.loser]
        headline = f"{winner} beat {loser}"
        text = (
            f"{winner} ({colour[result.winner]}) beat {loser} ({colour[result.loser]}): "
            f"{_ninjutsu_how(result, name, loser)}."
        )
    text += f" {starter} started" + (" and won." if result.starter_won else ".")
    facts = {
        "ending": result.ending.value,
        "ending_label": result.ending.label,
        "card": result.card.value,
        "starter": starter,
        "colours": {name[p]: c for p, c in colour.items()},
    }
    return headline, text, facts


def kage_report(match: Match, sides: Sequence[MatchTeam], record: dict) -> tuple[str, str, dict]:
    """(headline, text, facts) of a Kage Masters table from its record: places, Kage Masters and
    treasures."""
    seats = game_records.kage_seats(record)
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
