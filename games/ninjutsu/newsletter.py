"""Ninjutsu's newsletter report (moved from games/players/newsletter.py, before that
newsletters/content.py): its ``Game.newsletter_report``, written from the record a match was
confirmed with."""

from __future__ import annotations

from collections.abc import Sequence

from games.ninjutsu import engine as ninjutsu
from games.ninjutsu import results as game_results
from matches.models import Match, MatchTeam


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
