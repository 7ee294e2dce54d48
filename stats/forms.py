"""The statistics pages' filters (balance, strength ratings, the club board): GET forms (they read, never write)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from common.ui import StyledSubmit
from games import registry
from league.models import League, Season
from stats.selectors import ratings as ratings_selectors
from stats.selectors.balance import BalanceFilter
from teams.models import StrengthRating

KINDS = {"all": "Played and simulated", "played": "Played at the table", "simulated": "Simulated"}


class BalanceFilterForm(forms.Form):
    league = forms.ModelChoiceField(
        queryset=League.objects.order_by("name"), to_field_name="slug", required=False, empty_label="Every league"
    )
    season = forms.IntegerField(
        required=False, min_value=1, max_value=32767, help_text="A season number of the league chosen"
    )
    kind = forms.ChoiceField(choices=list(KINDS.items()), required=False, label="Games")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.form_class = "row g-2 align-items-end"
        self.helper.add_input(StyledSubmit("", "Show", style="btn-secondary"))

    def clean(self):
        data = super().clean()
        league, number = data.get("league"), data.get("season")
        data["season_obj"] = None
        if number is not None:
            if league is None:
                self.add_error("season", "Choose the league of the season.")
            else:
                season = Season.objects.filter(league=league, number=number).select_related("league").first()
                if season is None:
                    self.add_error("season", f"{league.name} has no season {number}.")
                data["season_obj"] = season
        return data

    def filter(self) -> BalanceFilter:
        data = self.cleaned_data
        return BalanceFilter(league=data.get("league"), season=data.get("season_obj"), kind=data.get("kind") or "all")


# --- the strength ratings' filters ------------------------------------------------------------------


class _GetForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_method = "get"
        self.helper.form_class = "row g-2 align-items-end"
        self.helper.add_input(StyledSubmit("", "Show", style="btn-secondary"))


class RatingsFilterForm(_GetForm):
    """A ratings list's game, league and system. A list is of one game: the league's if a league is
    chosen, else the game chosen (the first game if none); a league of another game, or a system the
    game does not rate by, is an error shown on the page (the list is then the game's own)."""

    game = forms.ChoiceField(choices=[("", "The league's game"), *registry.CHOICES], required=False)
    league = forms.ModelChoiceField(
        queryset=League.objects.order_by("name"), to_field_name="slug", required=False, empty_label="Every league"
    )
    system = forms.ChoiceField(choices=[("", "The game's own"), *StrengthRating.System.choices], required=False)

    def clean(self):
        data = super().clean()
        league, game = data.get("league"), data.get("game")
        data["game"] = game or (league.game if league is not None else registry.DEFAULT)
        if league is not None and game and league.game != game:
            self.add_error(
                "league",
                f"{league.name} is a league of {league.game_info.name}, not of {registry.get(game).name}.",
            )
        system = data.get("system")
        if system and system not in ratings_selectors.systems_of(data["game"]):
            self.add_error("system", f"{registry.get(data['game']).name} is not rated by {system_name(system)}.")
        return data

    def choice(self) -> tuple[str, League | None, str]:
        """(game, league, system) to list: what the form chose, and where a field erred, its fallback
        (the first game; every league; the game's own system)."""
        self.is_valid()
        data = self.cleaned_data
        game = data.get("game") or registry.DEFAULT
        return game, data.get("league"), data.get("system") or ratings_selectors.systems_of(game)[0]


def system_name(system: str) -> str:
    return "Glicko-2" if system == StrengthRating.System.GLICKO2 else "Plackett–Luce"


class ClubFilterForm(_GetForm):
    """The club board's league (its members only) and order."""

    league = forms.ModelChoiceField(
        queryset=League.objects.order_by("name"), to_field_name="slug", required=False, empty_label="Every league"
    )
    order = forms.ChoiceField(
        choices=[
            ("", "Most games played"),
            ("name", "Name"),
            *((info.key, f"{info.name}: rating") for info in registry.GAMES.values()),
        ],
        required=False,
        label="Order",
    )


class GameFilterForm(forms.Form):
    """The all-time leaderboards' game (the first game when none is chosen or the one chosen is
    unknown: the error is shown)."""

    game = forms.ChoiceField(choices=registry.CHOICES, required=False)

    def chosen(self) -> str:
        return (self.cleaned_data.get("game") if self.is_valid() else None) or registry.DEFAULT
