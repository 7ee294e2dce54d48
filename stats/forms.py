"""The balance page's filters: a GET form (it reads, never writes)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from common.ui import StyledSubmit
from league.models import League, Season
from stats.selectors.balance import BalanceFilter

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
