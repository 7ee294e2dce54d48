"""Leagues and their house rules: founding a league (names unique by their look-alike key),
changing its rules (they apply from its next season)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from common import text
from games import registry as games
from league.models import (
    HOUSE_RULE_BOUNDS,
    TIE_BREAKER_CHOICES,
    HouseRules,
    League,
    default_tie_breakers,
)
from rules.engine import house_rules as engine_house_rules

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def validate_tie_breakers(value: str) -> str:
    """Normalise a comma-separated tie-breaker list; every name must be known, none repeated."""
    names = [t.strip() for t in (value or "").split(",") if t.strip()]
    unknown = [n for n in names if n not in TIE_BREAKER_CHOICES]
    if unknown:
        raise ValidationError({"tie_breakers": f"Unknown tie-breaker: {', '.join(unknown)}."})
    if len(set(names)) != len(names):
        raise ValidationError({"tie_breakers": "A tie-breaker is listed twice."})
    return ",".join(names)


def _clean_house_rules(rules: Mapping, game: str) -> dict:
    unknown = set(rules) - set(HouseRules.HOUSE_RULE_FIELDS)
    if unknown:
        raise ValidationError(f"Not a house rule: {', '.join(sorted(unknown))}.")
    cleaned = dict(rules)
    if "game_rules" in cleaned:
        # the game's own (Game.house_rules): its keys, in its ranges, the others at their defaults
        site = games.game_of(game)
        problems = site.rule_problems(cleaned["game_rules"])
        if problems:
            raise ValidationError({"game_rules": list(problems.values())})
        cleaned["game_rules"] = site.rule_values(cleaned["game_rules"])
    if "tie_breakers" in cleaned:
        cleaned["tie_breakers"] = validate_tie_breakers(cleaned["tie_breakers"])
    # Every number in its range (the engines'): a number with no bound once stopped a simulation
    # with an OverflowError (issue 27, finding 7).
    errors = engine_house_rules.bounds_errors(cleaned, HOUSE_RULE_BOUNDS)
    if errors:
        raise ValidationError(errors)
    return cleaned


#: Slugs the league URLs use for other pages.
RESERVED_SLUGS = {"new", "tasks", "schedule-runs", "fixtures", "join"}


def _unique_slug(name: str) -> str:
    base = slugify(name)[:90] or "league"
    slug, n = base, 2
    while slug in RESERVED_SLUGS or League.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def _clean_description(description: str) -> str:
    description = (description or "").strip()
    try:
        text.validate_multiline(description)
    except ValidationError as exc:
        raise ValidationError({"description": exc.messages}) from exc
    if len(description) > League._meta.get_field("description").max_length:
        raise ValidationError({"description": "The description is too long."})
    return description


def _league_name_taken(name: str) -> None:
    """Raise the form error when a league has ``name``, or a name that looks the same."""
    existing = League.objects.filter(name_key=text.name_key(name)).values_list("name", flat=True).first()
    if existing is not None:
        raise ValidationError({"name": text.same_name_message(name, existing, thing="league")})


def _clean_game(game: str) -> str:
    if game not in games.GAMES:
        raise ValidationError({"game": f"Choose one of the games: {', '.join(g.name for g in games.GAMES.values())}."})
    return game


def league_create(
    *, master: User, name: str, description: str = "", game: str = games.DEFAULT, **house_rules
) -> League:
    """A new league for ``game``; whoever creates it is its ninja master.

    The game is fixed from then on (no service changes it): its entrants are of that game from the
    first application (docs/leagues.md, "Games"). A league of a game without team scrolls keeps the
    All-Stars-only house rules at their defaults, unused.

    Names are unique by their key (common/text.py): the same name in other letters, cases or
    spaces, or a look-alike, is refused. Two people founding the same name at once: the database's
    unique constraint refuses the second, who gets the same form error (not a server error).
    """
    name = text.clean_name(name, max_length=League._meta.get_field("name").max_length, what="the league a name")
    description = _clean_description(description)
    _league_name_taken(name)
    game = _clean_game(game)
    rules = _clean_house_rules(house_rules, game)
    rules.setdefault("tie_breakers", default_tie_breakers(game))
    rules.setdefault("game_rules", games.game_of(game).rule_values({}))
    for _attempt in range(5):
        try:
            with transaction.atomic():
                return League.objects.create(
                    name=name, slug=_unique_slug(name), description=description, master=master, game=game, **rules
                )
        except IntegrityError:
            _league_name_taken(name)  # lost the race for the name: the form error
            # Lost the race for the slug only (another name with the same slug): take the next one.
    raise ValidationError({"name": "The league could not be founded just now; please try again."})


def league_update(*, league: League, description: str | None = None, **house_rules) -> League:
    """Change the league's house rules: they apply from its next season; seasons keep their own.
    Only what changed is written: a form saved as it was shown writes nothing, and so leaves every
    cached page of the league warm (issue 29, part 1)."""
    changes = _clean_house_rules(house_rules, league.game)
    if description is not None:
        changes["description"] = _clean_description(description)
    # compared with the row as stored: a model form has already set its values on ``league``
    stored = League.objects.filter(pk=league.pk).values(*changes).get() if changes else {}
    fields = [name for name, value in changes.items() if stored[name] != value]
    for name in fields:
        setattr(league, name, changes[name])
    if fields:
        league.save(update_fields=fields)
    return league
