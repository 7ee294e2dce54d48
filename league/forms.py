"""Forms for leagues. They validate input only; the views hand cleaned data to league.services."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from common.text import NameFormField, SingleLineFormField
from common.ui import BoundedModelMultipleChoiceField, StyledSubmit
from games import registry as games
from games.protocol import MAX_RULE_TEXT
from league.models import (
    HOUSE_RULE_BOUNDS,
    TIE_BREAKER_CHOICES,
    HouseRules,
    League,
    ScheduleRun,
    Season,
    bounds_validators,
    default_tie_breakers,
    tie_breaker_choices,
)
from rules.models import Challenge
from teams.models import Team

TIE_BREAKER_SLOTS = len(TIE_BREAKER_CHOICES)
#: The house rules the form shows as the model's fields: tie-breakers are chosen one per select,
#: and a game's own rules (``game_rules``) are a field each, from its package (``game_rule_fields``).
HOUSE_RULE_FIELDS = [f for f in HouseRules.HOUSE_RULE_FIELDS if f not in ("tie_breakers", "game_rules")]
#: A game's own house rule's form field is named after its key with this prefix.
GAME_RULE_PREFIX = "rule_"


def game_rule_fields(game: str, stored: dict | None) -> dict[str, forms.Field]:
    """A form field for each of ``game``'s own house rules (``Game.house_rules``), in its range,
    showing ``stored``'s value (else its default)."""
    site = games.game_of(game)
    values = site.rule_values(stored)
    out: dict[str, forms.Field] = {}
    for rule in site.house_rules:
        # left empty: its default (as a select left alone), or None where it may be empty
        common = {"label": rule.label, "help_text": rule.help, "initial": values[rule.key], "required": False}
        if rule.kind == "flag":
            field = forms.BooleanField(**common)
        elif rule.kind == "number":
            field = forms.IntegerField(min_value=rule.low, max_value=rule.high, **common)
            field.widget.attrs.update(inputmode="numeric")
            # its help says what an empty one means where it may be empty; else it is the default
            empty = "" if rule.optional else f" Empty: {rule.default}."
            field.help_text = f"{rule.help} From {rule.low} to {rule.high}.{empty}".strip()
        elif rule.kind == "choice":
            field = forms.ChoiceField(choices=rule.choices, **common)
        else:
            field = forms.CharField(max_length=MAX_RULE_TEXT, **common)
        out[GAME_RULE_PREFIX + rule.key] = field
    return out


def in_own_words(form: forms.BaseForm, info: games.GameInfo) -> None:
    """The form's labels and help texts in the game's word for its entrants ("players", not "teams")."""
    if games.game_of(info.key).team_scrolls:
        return
    for name, field in form.fields.items():
        field.label = info.in_own_words(str(field.label or name.replace("_", " ").capitalize()))
        field.help_text = info.in_own_words(str(field.help_text))


class CrispyMixin:
    submit_label = "Save"
    submit_class = "btn-primary"
    form_action: str | None = None

    def _setup_helper(self) -> None:
        self.helper = FormHelper()
        if self.form_action:
            self.helper.form_action = self.form_action
        self.helper.add_input(StyledSubmit("submit", self.submit_label, style=self.submit_class))


class HouseRulesForm(CrispyMixin, forms.ModelForm):
    """The master's settings. Tie-breakers are chosen in order, one per select."""

    submit_label = "Save house rules"

    class Meta:
        model = League
        fields = ["description", *HOUSE_RULE_FIELDS]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, game: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game or self.instance.game
        # All-Stars' own rules (koban, dice and underdogs) mean nothing in another game's league;
        # every other game's own are its package's (game_rule_fields, below).
        for name in HouseRules.fields_not_for(self.game):
            self.fields.pop(name, None)
        info = games.get(self.game)
        if not games.game_of(self.game).team_scrolls:
            # A player joins as themselves, once (league.services.player_apply): nothing to allow.
            self.fields.pop("several_teams_per_owner", None)
        self.fields.update(game_rule_fields(self.game, self.instance.game_rules if self.instance.pk else None))
        in_own_words(self, info)
        # Each number's range (the engines', HOUSE_RULE_BOUNDS) on its input, so the browser knows it
        # too; the field's and the model's validators refuse a number out of it.
        for name, (low, high) in HOUSE_RULE_BOUNDS.items():
            if name in self.fields:
                field = self.fields[name]
                field.min_value, field.max_value = low, high
                field.widget.attrs.update(min=low, max=high)
                field.validators = bounds_validators(name)
        current = (
            self.instance.tie_breaker_list
            if self.instance.pk
            else League(tie_breakers=default_tie_breakers(self.game)).tie_breaker_list
        )
        choices = [("", "—"), *tie_breaker_choices(self.game).items()]
        for i in range(TIE_BREAKER_SLOTS):
            self.fields[f"tie_breaker_{i + 1}"] = forms.ChoiceField(
                choices=choices,
                required=False,
                label=f"Tie-breaker {i + 1}",
                initial=current[i] if i < len(current) else "",
                help_text="After league points, ties are broken in this order." if i == 0 else "",
            )
        self._setup_helper()

    def clean(self):
        data = super().clean()
        if not data.get("swiss_order"):
            data["swiss_order"] = HouseRules.SwissOrder.TABLE
        if "ronin_upkeep_default" in self.fields and not data.get("ronin_upkeep_default"):
            data["ronin_upkeep_default"] = HouseRules.UpkeepDefault.PAY  # left unset: the form's default
        for rule in games.game_of(self.game).house_rules:
            name = GAME_RULE_PREFIX + rule.key
            value = data.get(name)
            if name in self.fields and name not in self.errors and value not in (None, ""):
                problem = rule.problem(value)
                if problem:
                    self.add_error(name, problem)
        chosen = [data.get(f"tie_breaker_{i + 1}") for i in range(TIE_BREAKER_SLOTS)]
        chosen = [c for c in chosen if c]
        if len(set(chosen)) != len(chosen):
            raise forms.ValidationError("Each tie-breaker may be used once.")
        data["tie_breakers"] = ",".join(chosen)
        return data

    def house_rules(self) -> dict:
        """The rules the form asks for (a league of another game than All-Stars: not its own rules),
        the game's own as one mapping (``game_rules``)."""
        rules = {name: self.cleaned_data[name] for name in HouseRules.HOUSE_RULE_FIELDS if name in self.cleaned_data}
        own = {}
        for rule in games.game_of(self.game).house_rules:
            name = GAME_RULE_PREFIX + rule.key
            if name in self.cleaned_data:
                value = self.cleaned_data[name]
                own[rule.key] = rule.default if value is None or value == "" else value
        return {**rules, "game_rules": own} if own else rules


def chosen_game(data) -> str:
    """The game a founding form is for: the one posted or asked for (``?game=``), else All-Stars."""
    game = (data or {}).get("game") or games.DEFAULT
    return game if game in games.GAMES else games.DEFAULT


class LeagueCreateForm(HouseRulesForm):
    """Founding a league: its game first (fixed once founded), then its name and house rules.

    The game comes from the data posted, else the page's ``?game=`` (the links above the form):
    a league of a game without team scrolls is asked no All-Stars-only rule. A form posted without
    a game founds an All-Stars league, as before there were other games.
    """

    submit_label = "Create league"
    game = forms.ChoiceField(
        choices=games.choices,
        required=False,
        help_text="Fixed once the league is founded: its entrants are of this game.",
    )

    class Meta(HouseRulesForm.Meta):
        fields = ["name", *HouseRulesForm.Meta.fields]

    def __init__(self, data=None, *args, game: str | None = None, **kwargs):
        game = game or chosen_game(data)
        # Switched to All-Stars on a page built for another game: its own rules were not on the page.
        # Show them at their defaults and ask again rather than found the league unseen.
        self.switched_to_scrolls = (
            data is not None
            and games.game_of(game).team_scrolls
            and not any(name in data for name in HouseRules.ALLSTARS_ONLY_FIELDS)
            and "game" in data
        )
        if self.switched_to_scrolls:
            data = data.copy()
            for name in HouseRules.ALLSTARS_ONLY_FIELDS:
                default = League._meta.get_field(name).get_default()
                if default is not None and default is not False:
                    data[name] = default
        super().__init__(data, *args, game=game, **kwargs)
        self.fields["game"].initial = self.game
        self.order_fields(["game", "name"])

    def clean_game(self) -> str:
        return self.cleaned_data.get("game") or self.game

    def clean(self):
        data = super().clean()
        if self.switched_to_scrolls:
            raise forms.ValidationError(
                f"{games.get(self.game).name} has house rules of its own (koban, dice, underdog bonuses): "
                "check them below, then create the league."
            )
        return data


class SeasonForm(CrispyMixin, forms.Form):
    """A new season: only the formats the league's game offers (``Season.formats_for``)."""

    submit_label = "Open the season"
    name = NameFormField(max_length=100, required=False, help_text="Leave blank for “Season N”.")
    format = forms.ChoiceField(choices=Season.Format.choices)
    swiss_rounds = forms.IntegerField(
        label="Rounds", min_value=1, max_value=30, required=False, help_text="Swiss only: how many rounds."
    )
    playoff_teams = forms.IntegerField(
        min_value=0, max_value=64, initial=0, help_text="Top teams going to the playoffs afterwards (0: none)."
    )

    def __init__(self, *args, game: str = games.DEFAULT, **kwargs):
        super().__init__(*args, **kwargs)
        offered = Season.formats_for(game)
        self.fields["format"].choices = [(value, Season.Format(value).label) for value in offered]
        if games.game_of(game).tables:
            self.fields["swiss_rounds"].help_text = "Tables and swiss tables: how many rounds of tables."
            # A game at tables has no playoffs (docs/leagues.md, "Season formats by game").
            del self.fields["playoff_teams"]
        self.game_info = games.get(game)
        in_own_words(self, self.game_info)
        self._setup_helper()

    def clean(self):
        data = super().clean()
        fmt = data.get("format")
        if fmt == Season.Format.SWISS and not data.get("swiss_rounds"):
            self.add_error("swiss_rounds", "Say how many swiss rounds the season has.")
        if fmt in (Season.Format.TABLES, Season.Format.SWISS_TABLES) and not data.get("swiss_rounds"):
            self.add_error("swiss_rounds", "Say how many rounds of tables the season has.")
        if data.get("playoff_teams") == 1:
            self.add_error(
                "playoff_teams", self.game_info.in_own_words("A playoff needs at least two teams (0: none).")
            )
        return data


class RolloverForm(SeasonForm):
    submit_label = "Finish this season and open the next"
    submit_class = "btn-warning"
    confirm = forms.BooleanField(
        label="Archive the final table and carry the accepted teams over",
        help_text="Fixtures not yet played are voided.",
    )


class ApplyForm(CrispyMixin, forms.Form):
    submit_label = "Apply"
    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["team"].queryset = (
            Team.objects.filter(owner=user, game__in=games.team_scroll_games())
            .exclude(status=Team.Status.RETIRED)
            .exclude(entry_status__in=[Team.EntryStatus.ACCEPTED, Team.EntryStatus.PENDING])
            .select_related("clan")
        )
        self.fields["team"].label_from_instance = lambda t: f"{t.name} ({t.clan.name})"
        self._setup_helper()


class ApplicationDecisionForm(CrispyMixin, forms.Form):
    decision = forms.ChoiceField(choices=[("accept", "Accept"), ("refuse", "Refuse")], widget=forms.HiddenInput)
    team = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, decision: str = "accept", **kwargs):
        super().__init__(*args, **kwargs)
        self.submit_label = "Accept" if decision == "accept" else "Refuse"
        self.submit_class = "btn-success btn-sm" if decision == "accept" else "btn-outline-danger btn-sm"
        self._setup_helper()
        self.helper.form_class = "d-inline"


class WithdrawApplicationForm(forms.Form):
    """The player's button on the team page: take back a pending application."""

    team = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class ScheduleForm(CrispyMixin, forms.Form):
    """Generate a schedule run: the round is part of the form, so a double submission asks for
    the same round and finds the same run."""

    kind = forms.ChoiceField(choices=ScheduleRun.Kind.choices, widget=forms.HiddenInput)
    round_number = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    challenge = forms.ModelChoiceField(
        queryset=Challenge.objects.all(),
        required=False,
        empty_label="Random challenge generator",
        help_text="Leave on the generator to roll a challenge for each fixture.",
    )
    starts_on = forms.DateField(
        required=False, label="Round starts", widget=forms.DateInput(attrs={"type": "date"}), help_text="Optional."
    )
    deadline = forms.DateField(
        required=False,
        label="Round deadline",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Optional: fixtures not played by then are flagged overdue.",
    )
    interval_days = forms.IntegerField(
        min_value=1,
        max_value=365,
        initial=7,
        required=False,
        label="Days between rounds",
        help_text="Round robin: each later round's dates follow this many days after the previous one's.",
    )

    def __init__(self, *args, label: str = "Generate", action: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.submit_label = label
        self.form_action = action
        self._setup_helper()


class SimpleActionForm(CrispyMixin, forms.Form):
    """A button (with CSRF) for an action that needs no input."""

    def __init__(self, *args, label: str, action: str | None = None, css: str = "btn-primary", **kwargs):
        super().__init__(*args, **kwargs)
        self.submit_label, self.form_action, self.submit_class = label, action, css
        self._setup_helper()


class TwoTeamsForm(CrispyMixin, forms.Form):
    """A form choosing a ``home`` and an ``away`` team of a season, which must differ."""

    @staticmethod
    def _label(team: Team) -> str:
        return f"{team.name} ({team.owner.username})"

    def clean(self):
        data = super().clean()
        if data.get("home") and data.get("away") and data["home"] == data["away"]:
            raise forms.ValidationError("Choose two different teams.")
        return data


class FixtureArrangeForm(TwoTeamsForm):
    submit_label = "Create the fixture"
    home = forms.ModelChoiceField(queryset=Team.objects.none(), label="Your team (player 1)", empty_label=None)
    away = forms.ModelChoiceField(queryset=Team.objects.none(), label="Opponent (player 2)", empty_label=None)
    date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    challenge = forms.ModelChoiceField(
        queryset=Challenge.objects.all(), required=False, empty_label="Random challenge generator"
    )

    def __init__(self, *args, season: Season, own_teams, **kwargs):
        super().__init__(*args, **kwargs)
        entered = Team.objects.filter(season_entries__season=season).select_related("owner")
        self.fields["home"].queryset = own_teams
        self.fields["away"].queryset = entered
        self.fields["away"].label_from_instance = self._label
        game = season.league.game_site
        if not game.challenges:  # a players' game is played without one
            self.fields.pop("challenge")
        if not game.team_scrolls:
            self.fields["home"].label = "You (player 1)"
        self._setup_helper()


class TableArrangeForm(CrispyMixin, forms.Form):
    """A self-arranged table (a game played at tables): the player's own entry (the master: any)
    and the others at the table, ticked, 3 to 5 in all; the seats follow the list's order."""

    submit_label = "Create the table"
    home = forms.ModelChoiceField(queryset=Team.objects.none(), label="You (seat 1)", empty_label=None)
    others = BoundedModelMultipleChoiceField(
        queryset=Team.objects.none(), label="The other players at the table", widget=forms.CheckboxSelectMultiple
    )
    date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, season: Season, own_teams, **kwargs):
        super().__init__(*args, **kwargs)
        info = season.league.game_info
        self.fewest, self.most = info.table_sizes or (info.min_players, info.max_players)
        self.fields["home"].queryset = own_teams
        self.fields["others"].queryset = Team.objects.filter(season_entries__season=season).order_by("name")
        self.fields[
            "others"
        ].help_text = f"Tick {self.fewest - 1} to {self.most - 1}: a table seats {self.fewest} to {self.most} players."
        self._setup_helper()

    def clean(self):
        data = super().clean()
        home, others = data.get("home"), list(data.get("others") or [])
        if home is not None and others:
            others = [t for t in others if t.pk != home.pk]
            if not self.fewest <= len(others) + 1 <= self.most:
                self.add_error(
                    "others",
                    f"A table seats {self.fewest} to {self.most} players: you and {len(others)} others make "
                    f"{len(others) + 1}.",
                )
            data["sides"] = [home, *others]
        return data


class DatesMixin:
    def clean(self):
        data = super().clean()
        start, deadline = data.get(self.start_field), data.get("deadline")
        if start and deadline and deadline < start:
            self.add_error("deadline", "The deadline cannot come before the start.")
        return data


class RoundDatesForm(DatesMixin, CrispyMixin, forms.Form):
    submit_label = "Save the dates"
    start_field = "starts_on"
    starts_on = forms.DateField(required=False, label="Starts", widget=forms.DateInput(attrs={"type": "date"}))
    deadline = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Fixtures not played by then are flagged overdue. Leave both empty to clear the dates.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class FixtureRescheduleForm(DatesMixin, CrispyMixin, forms.Form):
    submit_label = "Reschedule"
    start_field = "date"
    date = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="The day it is played. Empty: the round's start.",
    )
    deadline = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text="Empty: the round's deadline."
    )
    place = SingleLineFormField(max_length=100, required=False, help_text="Where it is played (optional).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class FixturePairingForm(TwoTeamsForm):
    """Step 1 chooses the teams (the next page shows the changes and any broken rule); step 2
    confirms, accepting the broken rules if there are any."""

    submit_label = "Show the changes"
    home = forms.ModelChoiceField(queryset=Team.objects.none(), label="Player 1 (home)", empty_label=None)
    away = forms.ModelChoiceField(queryset=Team.objects.none(), label="Player 2 (away)", empty_label=None)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)
    accept_violations = forms.BooleanField(
        required=False, label="Apply it although it breaks the rules listed above", widget=forms.HiddenInput
    )

    def __init__(self, *args, season: Season, **kwargs):
        super().__init__(*args, **kwargs)
        entered = Team.objects.filter(season_entries__season=season).select_related("owner").order_by("name")
        for name in ("home", "away"):
            self.fields[name].queryset = entered
            self.fields[name].label_from_instance = self._label
        self._setup_helper()


class FixtureForfeitForm(CrispyMixin, forms.Form):
    submit_label = "Record the forfeit"
    submit_class = "btn-danger"
    forfeiting = forms.ChoiceField(label="Who forfeits", widget=forms.RadioSelect)
    reason = SingleLineFormField(max_length=200, help_text="Shown on the fixture list and the match page.")

    def __init__(self, *args, sides, allow_double: bool = True, scrolls: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(str(s.team_id), f"{s.team.name} forfeits: a walkover for the other side") for s in sides]
        if allow_double:
            choices.append(("both", "Both forfeit (two losses, no koban)" if scrolls else "Both forfeit (two losses)"))
        self.fields["forfeiting"].choices = choices
        self._sides = sides
        self._setup_helper()

    def forfeiting_ids(self) -> list[int]:
        value = self.cleaned_data["forfeiting"]
        return [s.team_id for s in self._sides] if value == "both" else [int(value)]


class TableDropoutForm(CrispyMixin, forms.Form):
    """Step 1 says who dropped out and when (and, for a table left too small, whether it is
    replayed or dissolved); the next page shows what it does and asks for confirmation."""

    submit_label = "Show what it does"
    player = forms.ChoiceField(label="Who dropped out", widget=forms.RadioSelect)
    when = forms.ChoiceField(
        label="When",
        widget=forms.RadioSelect,
        choices=[("before", "Before the game (did not come)"), ("during", "During the game (left the table)")],
    )
    below_minimum = forms.ChoiceField(
        label="If the table is left too small",
        required=False,
        widget=forms.RadioSelect,
        help_text="Only asked when fewer than the smallest table's players would be left.",
    )
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, sides, below_minimum: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [(str(s.team_id), s.team.name) for s in sides if not s.dropped_out]
        self.fields["below_minimum"].choices = list(below_minimum.items())
        self._sides = {s.team_id: s.team for s in sides}
        self._setup_helper()

    def team(self) -> Team:
        return self._sides[int(self.cleaned_data["player"])]


class DropoutUndoForm(CrispyMixin, forms.Form):
    """Step 1 says whose drop-out was recorded by mistake; the next page shows what undoing it does
    and asks for confirmation."""

    submit_label = "Show what it does"
    player = forms.ChoiceField(label="Whose drop-out to undo", widget=forms.RadioSelect)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, sides, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [(str(s.team_id), s.team.name) for s in sides if s.dropped_out]
        self._sides = {s.team_id: s.team for s in sides}
        self._setup_helper()

    def team(self) -> Team:
        return self._sides[int(self.cleaned_data["player"])]


class RoundSeatingForm(CrispyMixin, forms.Form):
    """The master seats each player of a round at one of its tables (a select a player, laid out
    for a phone); the next page shows what changes and the repeat meetings it adds."""

    submit_label = "Show the changes"
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, tables, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [
            (str(m.pk), f"Table {i}: " + ", ".join(s.team.name for s in m.sides.all()))
            for i, m in enumerate(tables, start=1)
        ]
        self.players = []
        for m in tables:
            for side in m.sides.all():
                name = f"seat_{side.team_id}"
                self.fields[name] = forms.TypedChoiceField(
                    label=side.team.name, choices=choices, coerce=int, initial=str(m.pk)
                )
                self.players.append(side.team_id)
        self._setup_helper()

    def seating(self) -> dict[int, int]:
        return {pk: self.cleaned_data[f"seat_{pk}"] for pk in self.players}


class FixtureChallengeForm(CrispyMixin, forms.Form):
    submit_label = "Set the challenge"
    challenge = forms.ModelChoiceField(queryset=Challenge.objects.all(), empty_label=None)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["challenge"].label_from_instance = lambda c: (
            f"{c.name} ({c.ninjas_allowed} ninja, {c.rounds} rounds)"
        )
        self._setup_helper()


class InvitationCreateForm(CrispyMixin, forms.Form):
    """The master's new invitation link: how long it lasts and how many applications it allows."""

    submit_label = "Make a link"
    days = forms.IntegerField(
        min_value=1, max_value=365, required=False, initial=14, help_text="Days it works (blank: until revoked)."
    )
    max_uses = forms.IntegerField(
        min_value=1, max_value=500, required=False, help_text="Applications it allows (blank: any number)."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class PlayerApplyForm(CrispyMixin, forms.Form):
    """Joining a league of a game without team scrolls: the player, under an optional display name."""

    submit_label = "Apply to join"
    display_name = NameFormField(
        max_length=Team._meta.get_field("name").max_length,
        required=False,
        help_text="How the league's pages name you. Leave blank for your username.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class InvitationApplyForm(ApplyForm):
    """The player's team, on the page an invitation link opens."""

    submit_label = "Apply with this team"
