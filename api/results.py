"""A result document of the API as the result page's form data, so the API and the page validate a
result the same way (``matches.forms.ResultForm``) and call the same services.

The page's fields are named per slot and per model (``s1_points``, ``n12_injuries``, ``u7``, ...);
a key the match's form does not have (a model not in the match, a feat of another challenge) is
refused, never dropped in silence.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from matches.forms import ResultForm
from matches.models import Match


def result_form(match: Match, data: dict | None, user=None) -> ResultForm:
    """The result page's form for a kicked-off match (the same as the web page's), as ``user``
    fills it in (the upkeep of his own ronin only; the master's: every side's)."""
    return ResultForm.for_match(match, data, user=user)


def form_data(document: dict, form: ResultForm) -> dict[str, str]:
    """The form's POST data for a validated result document. Models left out are on the board with
    no feats (as a line left blank on the page). Raises ValidationError for a key the form lacks."""
    data: dict[str, str] = {}
    problems: list[str] = []

    def put(key: str, value, what: str, *, needed: bool = True) -> None:
        if key in form.fields:
            data[key] = value
        elif needed:
            problems.append(what)

    for side in document.get("sides", []):
        put(f"s{side['slot']}_points", str(side["points"]), f"There is no side in slot {side['slot']}.")
    mentioned = set()
    for n in document.get("ninjas", []):
        nid = n["ninja"]
        mentioned.add(nid)
        p = f"n{nid}_"
        if f"{p}played" not in form.fields:
            problems.append(f"Ninja {nid} is not on a roster available for this match.")
            continue
        if n["played"]:
            data[f"{p}played"] = "on"
        for name in ("injuries", "chunin_stuns", "reveals"):
            put(p + name, str(n[name]), f"Ninja {nid}: no {name.replace('_', ' ')} here.", needed=bool(n[name]))
        for key, count in n["feats"].items():
            put(f"{p}feat_{key}", str(count), f"Ninja {nid}: {key!r} is not a feat of this challenge.")
        if n["healing_house"]:
            data[f"{p}hh"] = "on"
        if n["all_star"]:
            data[f"{p}allstar"] = "on"
        if n.get("downtime_die"):
            put(f"d{nid}", n["downtime_die"], f"Ninja {nid}: this league rolls the downtime dice on the server.")
    for u in document.get("upkeep", []):
        put(
            f"u{u['ninja']}",
            u["decision"],
            f"Ninja {u['ninja']} is not a ronin of this match whose upkeep you decide (each team decides its own).",
        )
    for key in form.fields:
        if key.endswith("_played") and int(key[1:].split("_")[0]) not in mentioned:
            data[key] = "on"
    if problems:
        raise ValidationError(problems)
    return data


def form_errors(form: ResultForm) -> list[str]:
    return [
        f"{form.fields[name].label}: {message}" if name in form.fields else message
        for name, messages in form.errors.items()
        for message in messages
    ]
