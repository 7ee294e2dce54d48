"""Result entry: one dynamic form for the whole match, laid out per team and per model for a phone."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from django import forms

from common.text import SingleLineFormField
from rules.engine.challenges import CHAMPION_AWARD, INJURY_AWARD
from rules.engine.dice import Element
from rules.engine.records import MAX_FEAT_COUNT, MAX_POINTS, MatchRecord, NinjaRecord, TeamRecord

FACE_CHOICES = [("", "—")] + [(e.value, e.value) for e in Element]


def _check(label: str, initial: bool = False) -> forms.BooleanField:
    return forms.BooleanField(
        label=label, required=False, initial=initial, widget=forms.CheckboxInput(attrs={"class": "form-check-input"})
    )


def _count(label: str) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=0,
        max_value=MAX_FEAT_COUNT,
        initial=0,
        required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "form-control form-control-sm count-input"}),
    )


class ResultForm(forms.Form):
    """Fields: s{slot}_points; n{id}_played/_injuries/_chunin_stuns/_reveals/_feat_{key}/_hh/_allstar;
    u{id} (ronin upkeep: pay/release); d{id} (downtime die, when players roll at the table)."""

    @classmethod
    def for_match(cls, match, data=None, *, user=None) -> ResultForm:
        """The result form of a kicked-off ``match`` (its sides, its challenge's XP awards, and
        whether its house rules have the dice entered), bound to ``data`` when given. ``user``:
        who fills it in; it asks the upkeep of his own ronin only (the master's: every side's)."""
        from matches import services

        rules = services.house_rules_for(match)
        awards = [(a.key, a.feat, a.xp) for a in match.challenge.xp_awards.all()] if match.challenge_id else []
        sides = list(match.sides.all())
        return cls(
            data,
            match=match,
            sides=sides,
            award_keys=awards,
            entered_dice=rules.dice_entered,
            upkeep_for=services.upkeep_decidable(user, match, sides),
        )

    def __init__(
        self,
        *args,
        match,
        sides,
        award_keys: list[tuple[str, str, int]],
        entered_dice: bool,
        upkeep_for: set[int] | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.match = match
        self.upkeep_for = upkeep_for
        self.sides = sides
        self.award_keys = award_keys
        self.entered_dice = entered_dice
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.layout_groups = []
        self.follows: dict[str, str] = {}  # a feat field left blank takes this count field's value
        self.chunin_ids = {row["id"] for side in sides for row in side.roster_snapshot or [] if row["is_chunin"]}
        for side in sides:
            team_fields = {"side": side, "points": f"s{side.slot}_points", "ninjas": [], "ronin": []}
            self.fields[team_fields["points"]] = forms.IntegerField(
                label=f"{side.team.name}: points",
                min_value=0,
                max_value=MAX_POINTS,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "count-input"}),
                error_messages={"required": f"Enter the points scored by {side.team.name}."},
            )
            for row in side.roster_snapshot or []:
                nid = row["id"]
                prefix = f"n{nid}_"
                names = {}
                if row["available"]:
                    self.fields[prefix + "played"] = _check("On the board", initial=True)
                    self.fields[prefix + "played"].widget.attrs["data-played"] = "1"
                    self.fields[prefix + "injuries"] = _count("Injuries inflicted")
                    names["injuries"] = prefix + "injuries"
                    if not row["is_chunin"]:
                        self.fields[prefix + "chunin_stuns"] = _count("Stuns on a chunin")
                        names["chunin_stuns"] = prefix + "chunin_stuns"
                    self.fields[prefix + "reveals"] = _count("Reveals")
                    names["reveals"] = prefix + "reveals"
                    for key, feat, xp in award_keys:
                        if key == CHAMPION_AWARD and row["is_chunin"]:
                            continue  # "one non-chunin model ... as their Champion": never offered
                        field = _count(f"{match.challenge.name}: {feat} (+{xp} XP each)")
                        if key == INJURY_AWARD and not row["is_chunin"]:
                            # Brawl: filled from the Injuries entered (left blank: the same number;
                            # the page's script copies it as they are typed), still correctable.
                            field.initial = None
                            field.help_text = "Left blank: the same as Injuries inflicted."
                            field.widget.attrs["data-follows"] = f"id_{prefix}injuries"
                            self.follows[f"{prefix}feat_{key}"] = prefix + "injuries"
                        self.fields[f"{prefix}feat_{key}"] = field
                        names[f"feat_{key}"] = f"{prefix}feat_{key}"
                    self.fields[prefix + "hh"] = _check("Ended in the Healing House")
                    self.fields[prefix + "allstar"] = _check("Ninja All-Star")
                    if entered_dice:
                        self.fields[f"d{nid}"] = forms.ChoiceField(
                            label="Downtime die (if in the Healing House)", choices=FACE_CHOICES, required=False
                        )
                team_fields["ninjas"].append({"row": row, "prefix": prefix, "fields": names})
                if row["is_ronin"] and (upkeep_for is None or nid in upkeep_for):
                    self.fields[f"u{nid}"] = upkeep_field(row)
                    team_fields["ronin"].append(f"u{nid}")
            self.layout_groups.append(team_fields)

    def sections(self) -> list[dict]:
        """Bound fields grouped per team and per model, for the template."""
        out = []
        for group in self.layout_groups:
            ninjas = []
            for n in group["ninjas"]:
                p = n["prefix"]
                nid = n["row"]["id"]
                ninjas.append(
                    {
                        "row": n["row"],
                        "counts": [self[name] for name in n["fields"].values()],
                        "played": self[p + "played"] if p + "played" in self.fields else None,
                        "checks": [self[p + k] for k in ("hh", "allstar") if p + k in self.fields],
                        "die": self[f"d{nid}"] if f"d{nid}" in self.fields else None,
                    }
                )
            out.append(
                {
                    "side": group["side"],
                    "points": self[group["points"]],
                    "ninjas": ninjas,
                    "ronin": [self[name] for name in group["ronin"]],
                }
            )
        return out

    def clean(self):
        data = super().clean()
        # A Champion is a non-chunin: the form offers no such field for a chunin, and says so if
        # one is posted anyway.
        for nid in sorted(self.chunin_ids):
            if str(self.data.get(f"n{nid}_feat_{CHAMPION_AWARD}", "")).strip() not in ("", "0"):
                name = next(r["name"] for s in self.sides for r in s.roster_snapshot or [] if r["id"] == nid)
                self.add_error(None, f"{name} is a chunin: a Champion must be a non-chunin model.")
        # Brawl's "Injures an enemy model" left blank is the Injuries entered.
        for name, source in self.follows.items():
            if data.get(name) is None and name not in self.errors:
                data[name] = data.get(source) or 0
        # Counts left blank on a phone mean zero.
        for name, field in self.fields.items():
            if isinstance(field, forms.IntegerField) and data.get(name) is None and name.startswith("n"):
                data[name] = 0
        return data

    def to_record(self) -> tuple[MatchRecord, dict[int, str], dict[int, str]]:
        data = self.cleaned_data
        teams = []
        upkeep: dict[int, str] = {}
        faces: dict[int, str] = {}
        for side in self.sides:
            ninjas = []
            for row in side.roster_snapshot or []:
                nid = row["id"]
                p = f"n{nid}_"
                if f"u{nid}" in self.fields:
                    upkeep[nid] = data.get(f"u{nid}") or "pay"
                if not row["available"]:
                    continue
                feats = {key: data.get(f"{p}feat_{key}") or 0 for key, _, _ in self.award_keys}
                ninjas.append(
                    NinjaRecord(
                        ninja_id=nid,
                        played=bool(data.get(p + "played")),
                        injuries=data.get(p + "injuries") or 0,
                        chunin_stuns=data.get(p + "chunin_stuns") or 0,
                        reveals=data.get(p + "reveals") or 0,
                        challenge_feats={k: v for k, v in feats.items() if v},
                        in_healing_house=bool(data.get(p + "hh")),
                        all_star_awards=1 if data.get(p + "allstar") else 0,
                    )
                )
                if self.entered_dice and data.get(f"d{nid}"):
                    faces[nid] = data[f"d{nid}"]
            teams.append(TeamRecord(team_id=side.team_id, points=data[f"s{side.slot}_points"], ninjas=tuple(ninjas)))
        return MatchRecord(teams=tuple(teams)), upkeep, faces


def submission_initial(form: ResultForm, data: dict | None) -> dict:
    """The result form's fields as a stored submission had them (a rejected result coming back, the
    opponent's form starting from the waiting record, the master editing a disputed one): every
    count of the form, zero when the record has none, so a Brawl's blank-follows-Injuries field
    shows what was submitted."""
    if not data:
        return {}
    slots = {side.team_id: side.slot for side in form.sides}
    initial: dict = {name: 0 for name in form.fields if name.startswith("n") and "_feat_" in name}
    for team in data.get("teams", []):
        if team["team_id"] in slots:
            initial[f"s{slots[team['team_id']]}_points"] = team["points"]
        for n in team.get("ninjas", []):
            p = f"n{n['ninja_id']}_"
            initial[p + "played"] = bool(n.get("played", True))
            for field in ("injuries", "chunin_stuns", "reveals"):
                initial[p + field] = n.get(field, 0)
            for key, count in (n.get("challenge_feats") or {}).items():
                initial[f"{p}feat_{key}"] = count
            initial[p + "hh"] = bool(n.get("in_healing_house"))
            initial[p + "allstar"] = bool(n.get("all_star_awards"))
    for nid, choice in (data.get("upkeep") or {}).items():
        initial[f"u{nid}"] = choice
    for nid, face in (data.get("downtime_faces") or {}).items():
        initial[f"d{nid}"] = face
    return {k: v for k, v in initial.items() if k in form.fields}


def draft_initial(form: ResultForm, draft: dict) -> dict:
    """A saved draft (the posted strings) as the form's initial values: shown as typed, never as
    a list of errors (the "Draft saved" message is never next to one). A checkbox missing from
    the draft was unticked."""
    initial = {}
    for name, field in form.fields.items():
        if isinstance(field, forms.BooleanField):
            initial[name] = str(draft.get(name, "")).lower() not in ("", "0", "false", "off")
        elif name in draft:
            initial[name] = draft[name]
    return initial


def upkeep_field(row: dict) -> forms.ChoiceField:
    """A ronin's upkeep choice (its roster row as kick-off recorded it)."""
    return forms.ChoiceField(
        label=f"{row['name']}: upkeep {row['upkeep']} koban",
        choices=[("pay", "Pay the fee"), ("release", "Release")],
        initial="pay",
        widget=forms.RadioSelect,
    )


class UpkeepChoicesForm(forms.Form):
    """The upkeep of the given ronin (roster rows): fields ``u{id}``, "pay" preselected."""

    def __init__(self, *args, ronin: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        for row in ronin:
            self.fields[f"u{row['id']}"] = upkeep_field(row)

    def choices(self) -> dict[int, str]:
        return {int(name[1:]): value for name, value in self.cleaned_data.items() if name.startswith("u")}


class ConfirmForm(UpkeepChoicesForm):
    """Confirm (with the confirmer's own undecided ronin's upkeep) or reject."""

    decision = forms.ChoiceField(choices=[("confirm", "Confirm"), ("reject", "Reject")])
    reason = SingleLineFormField(max_length=200, required=False)

    def __init__(self, *args, ronin: list[dict] = (), **kwargs):
        super().__init__(*args, ronin=list(ronin), **kwargs)
        if self.data.get("decision") == "reject":
            for name in self.fields:
                if name.startswith("u"):
                    self.fields[name].required = False


class VoidForm(forms.Form):
    reason = SingleLineFormField(max_length=200, help_text="Why the result is voided (shown on the match page).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_tag = False


class AdvancementFacesForm(forms.Form):
    first = forms.ChoiceField(choices=FACE_CHOICES[1:], label="First die")
    second = forms.ChoiceField(choices=FACE_CHOICES[1:], label="Second die")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_tag = False


class AdvancementChoiceForm(forms.Form):
    choice = forms.ChoiceField(widget=forms.RadioSelect, label="Choose one")

    def __init__(self, *args, options, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = options
        self.helper = FormHelper()
        self.helper.form_tag = False
