from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms
from django.contrib.auth import authenticate
from django.contrib.auth.forms import PasswordChangeForm, UserCreationForm

from common.text import NameFormField, SingleLineFormField, fold, mixed_script_words, name_key
from common.ui import BoundedModelMultipleChoiceField, StyledSubmit
from games import registry as games
from rules.models import Clan, SpecialAbility
from teams.models import MOTTO_MAX_LENGTH, Team
from teams.services import recruit_check


class CrispyMixin:
    submit_label = "Save"

    def _setup_helper(self) -> None:
        self.helper = FormHelper()
        self.helper.add_input(StyledSubmit("submit", self.submit_label, style="btn-primary"))


class SignUpForm(CrispyMixin, UserCreationForm):
    submit_label = "Sign up"
    email = forms.EmailField(required=False, help_text="Optional: for league newsletters.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()

    def clean_username(self):
        """Django's checks (letters, digits and @.+-_ only, NFKC, unique whatever the case), plus:
        no word mixing alphabets, and no look-alike of an existing username (common/text.py)."""
        username = super().clean_username()
        if not username:
            return username
        if mixed_script_words(username):
            raise forms.ValidationError("Write the username in one alphabet.", code="mixed_scripts")
        key = name_key(username)
        if key != fold(username) and self._meta.model.objects.filter(username__iexact=key).exists():
            raise forms.ValidationError("This username looks the same as one already taken.", code="lookalike")
        return username


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change, with the old password checked by ``authenticate``: through
    django-axes, so wrong old passwords count as failed log-ins of the user from that address and
    are throttled like them (teams/throttling.py)."""

    def __init__(self, user, *args, request=None, **kwargs):
        self.request = request
        super().__init__(user, *args, **kwargs)

    def save(self, commit=True):
        """The new password through ``account_password_set`` (it revokes the API tokens)."""
        from teams.accounts import account_password_set

        self.revoked = account_password_set(user=self.user, password=self.cleaned_data["new_password1"])
        return self.user

    def clean_old_password(self):
        old_password = self.cleaned_data["old_password"]
        checked = authenticate(self.request, username=self.user.get_username(), password=old_password)
        if checked is None or checked.pk != self.user.pk:
            raise forms.ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old_password


class EmailChangeForm(CrispyMixin, forms.Form):
    """A new email address, with the current password (checked through axes, like a log-in)."""

    submit_label = "Send the confirmation link"
    email = forms.EmailField(label="New email address", max_length=254)
    password = forms.CharField(label="Your password", widget=forms.PasswordInput, max_length=4096, strip=False)

    def __init__(self, *args, user, request=None, **kwargs):
        self.user, self.request = user, request
        super().__init__(*args, **kwargs)
        self._setup_helper()

    def clean_password(self):
        password = self.cleaned_data["password"]
        checked = authenticate(self.request, username=self.user.get_username(), password=password)
        if checked is None or checked.pk != self.user.pk:
            raise forms.ValidationError("Your password was entered incorrectly.", code="password_incorrect")
        return password


class TeamCreateForm(CrispyMixin, forms.Form):
    submit_label = "Create team"
    name = NameFormField(max_length=80)
    clan = forms.ModelChoiceField(queryset=Clan.objects.all(), empty_label=None, help_text="One clan per team.")
    league = forms.ModelChoiceField(queryset=None, required=False, help_text="Apply to join a league (optional).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The league a team applies to, through the team's own relation (teams does not import league).
        # Only leagues of All-Stars take team scrolls; in the other games a player joins as themselves.
        leagues = Team._meta.get_field("league").related_model.objects.filter(game__in=games.team_scroll_games())
        self.fields["league"].queryset = leagues
        self.fields["clan"].label_from_instance = lambda c: f"{c.name} ({c.element})"
        self._setup_helper()


class RecruitForm(CrispyMixin, forms.Form):
    submit_label = "Recruit"
    name = NameFormField(max_length=60, required=False, help_text="Leave blank for a default name.")
    abilities = BoundedModelMultipleChoiceField(
        queryset=SpecialAbility.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, team, profile, default_name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.team = team
        self.profile = profile
        self.fields["name"].initial = default_name
        abilities_qs = SpecialAbility.objects.filter(profile=profile)
        n = profile.choose_abilities
        if n == 1:
            field = forms.ModelChoiceField(queryset=abilities_qs, widget=forms.RadioSelect, empty_label=None)
        elif n > 1:
            field = BoundedModelMultipleChoiceField(queryset=abilities_qs, widget=forms.CheckboxSelectMultiple)
        else:
            field = None
        if field is None:
            del self.fields["abilities"]
        else:
            field.label = f"Choose {n} special abilit{'y' if n == 1 else 'ies'}"
            field.label_from_instance = lambda a: f"{a.name}: {a.text}"
            field.error_messages["required"] = (
                f"Choose {n} special abilit{'y' if n == 1 else 'ies'} for the {profile.name}."
            )
            self.fields["abilities"] = field
        self.submit_label = f"Recruit for {profile.koban} koban"
        self._setup_helper()

    def clean_abilities(self):
        value = self.cleaned_data.get("abilities")
        if value is None:
            return []
        if isinstance(value, SpecialAbility):
            return [value]
        return list(value)

    def clean(self):
        data = super().clean()
        # The recruitment rules (clan, allowance, hero or ronin once, abilities, koban); the ability
        # choice is checked only when its field is valid (else the field says what is missing).
        if "abilities" in self.fields:
            chosen = data.get("abilities")
        else:
            chosen = []
        check = recruit_check(team=self.team, profile=self.profile, chosen_abilities=chosen)
        for problem in check.problems:
            self.add_error(None, problem)
        return data

    def blockers(self) -> list[str]:
        """On the first visit: what stops this recruitment whatever is chosen in the form."""
        return list(recruit_check(team=self.team, profile=self.profile).problems)


class NinjaRenameForm(CrispyMixin, forms.Form):
    submit_label = "Rename"
    name = NameFormField(max_length=60)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class TreasuryCorrectionForm(CrispyMixin, forms.Form):
    submit_label = "Post correction"
    amount = forms.IntegerField(min_value=-10000, max_value=10000, help_text="Koban to add (negative to remove).")
    note = SingleLineFormField(max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()


class TeamEditForm(CrispyMixin, forms.Form):
    """A team's name, colours and motto: the same name rules as at creation (NameFormField, and the
    service's unique key); colours as #rrggbb (blank: none); the motto one line of plain text."""

    submit_label = "Save"
    name = NameFormField(max_length=80)
    colour_primary = forms.CharField(
        label="First colour",
        required=False,
        max_length=7,
        widget=forms.TextInput(attrs={"type": "color"}),
        help_text="Shown beside the team's name; its name always says which team it is.",
    )
    colour_secondary = forms.CharField(
        label="Second colour", required=False, max_length=7, widget=forms.TextInput(attrs={"type": "color"})
    )
    no_colours = forms.BooleanField(label="No colours", required=False)
    motto = SingleLineFormField(
        max_length=MOTTO_MAX_LENGTH, required=False, help_text=f"One line, at most {MOTTO_MAX_LENGTH} characters."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_helper()

    def clean(self):
        data = super().clean()
        if data.get("no_colours"):
            data["colour_primary"] = data["colour_secondary"] = ""
        return data
