"""What the API shows: read serializers over the models and the selectors' rows, and the input
serializers of the writes (every field bounded: lengths, ranges, list sizes)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from league.models import HouseRules, League, ScheduleRun, Season
from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
from newsletters.models import Newsletter
from rules.engine.dice import Element
from rules.engine.records import MAX_FEAT_COUNT, MAX_POINTS
from rules.models import (
    AdvancementRow,
    Challenge,
    ChallengeXpAward,
    Clan,
    DowntimeRow,
    Keyword,
    Profile,
    RevenueRow,
    SpecialAbility,
    StatusEffect,
    XpLevel,
)
from teams.models import AdvancementRoll, Team, TreasuryEntry, XpEvent

# --- the rules catalog ------------------------------------------------------------------------------


class ClanSerializer(serializers.ModelSerializer):
    class Meta:
        model = Clan
        fields = ["slug", "name", "element", "affinity_note"]


class AbilitySerializer(serializers.ModelSerializer):
    class Meta:
        model = SpecialAbility
        fields = ["name", "text"]


class ProfileSerializer(serializers.ModelSerializer):
    clan = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    keywords = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    abilities = AbilitySerializer(many=True, read_only=True)
    affinities = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = Profile
        fields = [
            "slug",
            "name",
            "clan",
            "kind",
            "movement",
            "attack",
            "defense",
            "koban",
            "upkeep",
            "affinities",
            "allowance_min",
            "allowance_max",
            "keywords",
            "abilities",
            "choose_abilities",
            "ranged",
            "ranged_attack_bonus",
            "ranged_text",
            "notes",
        ]


class KeywordSerializer(serializers.ModelSerializer):
    class Meta:
        model = Keyword
        fields = ["name", "category", "text"]


class XpAwardSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChallengeXpAward
        fields = ["key", "feat", "xp", "text"]


class ChallengeSerializer(serializers.ModelSerializer):
    xp_awards = XpAwardSerializer(many=True, read_only=True)

    class Meta:
        model = Challenge
        fields = ["slug", "name", "summary", "ninjas_allowed", "rounds", "setup", "special_rules", "notes", "xp_awards"]


class StatusEffectSerializer(serializers.ModelSerializer):
    class Meta:
        model = StatusEffect
        fields = ["name", "text"]


class XpLevelSerializer(serializers.ModelSerializer):
    class Meta:
        model = XpLevel
        fields = ["level", "name", "min_xp", "max_xp"]


class AdvancementRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = AdvancementRow
        fields = ["face", "result", "doubles"]


class DowntimeRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = DowntimeRow
        fields = ["face", "effect"]


class RevenueRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = RevenueRow
        fields = ["result", "label", "koban"]


class RulesTablesSerializer(serializers.Serializer):
    xp_levels = XpLevelSerializer(many=True)
    advancement = AdvancementRowSerializer(many=True)
    downtime = DowntimeRowSerializer(many=True)
    revenue = RevenueRowSerializer(many=True)


# --- leagues and seasons ----------------------------------------------------------------------------


class HouseRulesSerializer(serializers.Serializer):
    starting_koban = serializers.IntegerField()
    revenue_win = serializers.IntegerField()
    revenue_draw = serializers.IntegerField()
    revenue_loss = serializers.IntegerField()
    points_win = serializers.IntegerField()
    points_draw = serializers.IntegerField()
    points_loss = serializers.IntegerField()
    tie_breakers = serializers.CharField()
    results_need_confirmation = serializers.BooleanField()
    dice_mode = serializers.ChoiceField(choices=HouseRules.DiceMode.choices)
    underdog_bonuses = serializers.BooleanField()
    max_bonus_koban = serializers.IntegerField()
    points_bye = serializers.IntegerField(allow_null=True, help_text="Empty: a win's points")
    points_forfeit_win = serializers.IntegerField(allow_null=True, help_text="Empty: a win's points")
    points_forfeit_loss = serializers.IntegerField(allow_null=True, help_text="Empty: a loss's points")
    revenue_forfeit_win = serializers.IntegerField(allow_null=True, help_text="Empty: the win revenue")
    swiss_order = serializers.CharField()


class SeasonBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = ["id", "number", "name", "format", "status"]


class LeagueSerializer(serializers.ModelSerializer):
    master = serializers.CharField(source="master.username", read_only=True)
    team_count = serializers.IntegerField(read_only=True)
    current_season = serializers.SerializerMethodField()

    class Meta:
        model = League
        fields = ["slug", "name", "description", "master", "team_count", "current_season", "created_at"]

    @extend_schema_field(SeasonBriefSerializer(allow_null=True))
    def get_current_season(self, league):
        current = getattr(league, "current", None)
        return SeasonBriefSerializer(current[0]).data if current else None


class LeagueDetailSerializer(LeagueSerializer):
    house_rules = serializers.SerializerMethodField()
    seasons = SeasonBriefSerializer(many=True, read_only=True, source="all_seasons")

    class Meta(LeagueSerializer.Meta):
        fields = [*LeagueSerializer.Meta.fields, "house_rules", "seasons"]

    @extend_schema_field(HouseRulesSerializer)
    def get_house_rules(self, league):
        return league.house_rules()


class SeasonSerializer(serializers.ModelSerializer):
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    house_rules = serializers.SerializerMethodField()

    class Meta:
        model = Season
        fields = [
            "id",
            "league",
            "number",
            "name",
            "format",
            "swiss_rounds",
            "playoff_teams",
            "status",
            "created_at",
            "finished_at",
            "house_rules",
        ]

    @extend_schema_field(HouseRulesSerializer)
    def get_house_rules(self, season):
        return season.house_rules()


class TableRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    team_id = serializers.IntegerField()
    team = serializers.CharField()
    owner = serializers.CharField()
    clan = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    points = serializers.IntegerField()
    points_for = serializers.IntegerField()
    points_against = serializers.IntegerField()
    points_difference = serializers.IntegerField()
    rating = serializers.IntegerField()
    byes = serializers.IntegerField(help_text="Byes had (a swiss bye scores league points)")


class TableSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    archived = serializers.BooleanField(help_text="The season is finished: the table archived when it ended")
    tie_breakers = serializers.ListField(child=serializers.CharField())
    rows = TableRowSerializer(many=True)


# --- matches ----------------------------------------------------------------------------------------


class SideBriefSerializer(serializers.ModelSerializer):
    team_name = serializers.CharField(source="team.name", read_only=True)

    class Meta:
        model = MatchTeam
        fields = ["slot", "team", "team_name", "points", "outcome"]


class MatchSerializer(serializers.ModelSerializer):
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    challenge = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    sides = SideBriefSerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "league",
            "season",
            "stage",
            "round_number",
            "challenge",
            "date",
            "status",
            "friendly",
            "simulated",
            "sides",
        ]


class ByeSerializer(serializers.Serializer):
    team = serializers.IntegerField(source="team_id")
    team_name = serializers.CharField(source="team.name")
    reason = serializers.CharField()


class RoundSerializer(serializers.Serializer):
    stage = serializers.CharField()
    round_number = serializers.IntegerField(allow_null=True)
    title = serializers.CharField()
    matches = MatchSerializer(many=True)
    byes = ByeSerializer(many=True)


class MatchNinjaSerializer(serializers.ModelSerializer):
    challenge_feats = serializers.DictField(child=serializers.IntegerField())

    class Meta:
        model = MatchNinja
        fields = [
            "ninja",
            "name",
            "played",
            "injuries",
            "chunin_stuns",
            "reveals",
            "challenge_feats",
            "in_healing_house",
            "all_star_awards",
            "xp_gained",
        ]


class RosterSnapshotRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    profile_slug = serializers.CharField(required=False)
    is_chunin = serializers.BooleanField(required=False)
    is_hero = serializers.BooleanField(required=False)
    is_ronin = serializers.BooleanField(required=False)
    upkeep = serializers.IntegerField(required=False)
    available = serializers.BooleanField()
    misses_games = serializers.IntegerField(required=False)
    starts_in_healing_house = serializers.BooleanField(required=False)


class SideSerializer(serializers.ModelSerializer):
    team_name = serializers.CharField(source="team.name", read_only=True)
    owner = serializers.CharField(source="team.owner.username", read_only=True)
    ninjas = MatchNinjaSerializer(many=True, read_only=True)
    roster_snapshot = serializers.SerializerMethodField()

    class Meta:
        model = MatchTeam
        fields = [
            "slot",
            "team",
            "team_name",
            "owner",
            "rating",
            "reroll_tokens",
            "moon_power_tokens",
            "extra_all_stars",
            "bonus_koban",
            "points",
            "outcome",
            "koban_earned",
            "roster_snapshot",
            "ninjas",
        ]

    @extend_schema_field(RosterSnapshotRowSerializer(many=True, allow_null=True))
    def get_roster_snapshot(self, side):
        if side.roster_snapshot is None:
            return None
        return [{k: row[k] for k in RosterSnapshotRowSerializer().fields if k in row} for row in side.roster_snapshot]


class TreasuryEntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = TreasuryEntry
        fields = ["id", "team", "amount", "reason", "note", "match", "balance_after", "created_at"]


class LedgerPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TreasuryEntrySerializer(many=True)


class XpEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = XpEvent
        fields = ["ninja", "amount", "reason"]


class DowntimeResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = DowntimeResult
        fields = ["ninja", "face", "spared_by", "misses_games", "starts_in_healing_house", "xp_bonus", "effect"]


class UpkeepDecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = UpkeepDecision
        fields = ["ninja", "fee", "paid", "forced_release"]


class AdvancementRollSerializer(serializers.ModelSerializer):
    faces = serializers.ListField(child=serializers.CharField())
    advancement = serializers.SerializerMethodField()

    class Meta:
        model = AdvancementRoll
        fields = ["id", "ninja", "level", "faces", "status", "advancement"]

    def get_advancement(self, roll) -> str | None:
        adv = getattr(roll, "advancement", None)
        return str(adv) if adv is not None else None


class DiceRollSerializer(serializers.ModelSerializer):
    faces = serializers.JSONField()

    class Meta:
        model = DiceRoll
        fields = ["purpose", "ninja", "faces", "entered_by_player"]


class OutcomesSerializer(serializers.Serializer):
    treasury = TreasuryEntrySerializer(many=True)
    xp = XpEventSerializer(many=True)
    downtime = DowntimeResultSerializer(many=True)
    upkeep = UpkeepDecisionSerializer(many=True)
    rolls = AdvancementRollSerializer(many=True)
    dice = DiceRollSerializer(many=True)


class MatchDetailSerializer(MatchSerializer):
    """A match with its full record: the kick-off snapshot, each model's feats, and everything the
    post-game sequence wrote (koban, XP, downtime, upkeep, advancement rolls, every die)."""

    sides = SideSerializer(many=True, read_only=True)
    submitted_by = serializers.CharField(source="submitted_by.username", read_only=True, allow_null=True)
    confirmed_by = serializers.CharField(source="confirmed_by.username", read_only=True, allow_null=True)
    outcomes = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(
        help_text="The seed of the server's dice, shown with the outcomes (as on the match page): before "
        "the post-game sequence it would let a player foresee the dice"
    )

    class Meta(MatchSerializer.Meta):
        fields = [
            *MatchSerializer.Meta.fields,
            "pairing_reason",
            "challenge_chooser",
            "seed",
            "kicked_off_at",
            "submitted_by",
            "submitted_at",
            "confirmed_by",
            "confirmed_at",
            "sequence_applied_at",
            "voided_at",
            "void_reason",
            "outcomes",
        ]

    def get_seed(self, match) -> int | None:
        return match.seed if self.context.get("outcomes") else None

    @extend_schema_field(OutcomesSerializer(allow_null=True))
    def get_outcomes(self, match):
        outcomes = self.context.get("outcomes")
        return OutcomesSerializer(outcomes).data if outcomes else None


# --- teams and ninjas -------------------------------------------------------------------------------


class TeamSerializer(serializers.ModelSerializer):
    clan = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    rating = serializers.IntegerField(read_only=True, help_text="The game's team rating (its roster today)")

    class Meta:
        model = Team
        fields = ["id", "name", "clan", "owner", "league", "entry_status", "status", "treasury", "rating", "created_at"]


class NinjaLineSerializer(serializers.Serializer):
    """A ninja as the scroll shows it: its profile with every advancement applied."""

    id = serializers.IntegerField(source="ninja.pk")
    team = serializers.IntegerField(source="ninja.team_id")
    name = serializers.CharField(source="ninja.name")
    profile = serializers.CharField(source="ninja.profile.slug")
    profile_name = serializers.CharField(source="ninja.profile.name")
    status = serializers.CharField(source="ninja.status")
    xp = serializers.IntegerField(source="ninja.xp")
    level_name = serializers.CharField()
    movement = serializers.IntegerField()
    attack = serializers.IntegerField()
    defense = serializers.IntegerField()
    affinities = serializers.ListField(child=serializers.CharField())
    base_keywords = serializers.ListField(child=serializers.CharField())
    gained_keywords = serializers.ListField(child=serializers.CharField())
    abilities = serializers.ListField(child=serializers.CharField())
    advancements = serializers.ListField(child=serializers.CharField())
    pending_rolls = serializers.SerializerMethodField()
    availability = serializers.CharField()
    misses_games = serializers.IntegerField(source="ninja.misses_games")
    starts_in_healing_house = serializers.BooleanField(source="ninja.starts_in_healing_house")
    hired_at = serializers.DateTimeField(source="ninja.hired_at")
    released_at = serializers.DateTimeField(source="ninja.released_at", allow_null=True)

    def get_pending_rolls(self, line) -> list[int]:
        return [roll.pk for roll in line.pending_rolls]


class GameRecordSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match.pk")
    date = serializers.DateField(source="match.date", allow_null=True)
    challenge = serializers.CharField(source="match.challenge.slug", allow_null=True, default=None)
    opponents = serializers.SerializerMethodField()
    outcome = serializers.CharField(source="side.outcome")
    score = serializers.CharField()

    def get_opponents(self, line) -> list[int]:
        return [team.pk for team in line["opponents"]]


class TeamDetailSerializer(TeamSerializer):
    """The team scroll: the roster as it stands and the games played (newest first)."""

    roster = serializers.SerializerMethodField()
    games = serializers.SerializerMethodField()

    class Meta(TeamSerializer.Meta):
        fields = [*TeamSerializer.Meta.fields, "roster", "games"]

    @extend_schema_field(NinjaLineSerializer(many=True))
    def get_roster(self, team):
        return NinjaLineSerializer(self.context["lines"], many=True).data

    @extend_schema_field(GameRecordSerializer(many=True))
    def get_games(self, team):
        return GameRecordSerializer(self.context["games"], many=True).data


# --- newsletters ------------------------------------------------------------------------------------


class NewsletterSerializer(serializers.ModelSerializer):
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    permalink = serializers.CharField(read_only=True, help_text="The page's absolute address, or empty")

    class Meta:
        model = Newsletter
        fields = ["id", "league", "season", "kind", "period_key", "title", "status", "published_at", "permalink"]


class NewsletterDetailSerializer(NewsletterSerializer):
    class Meta(NewsletterSerializer.Meta):
        fields = [*NewsletterSerializer.Meta.fields, "editorial", "editorial_html", "content_html", "content_text"]


# --- writes -----------------------------------------------------------------------------------------

#: Bounds of a result document: a match has at most 4 sides; a roster is far smaller than 40.
MAX_SIDES = 4
MAX_NINJAS = 4 * 40
MAX_FEATS = 20


class SidePointsInput(serializers.Serializer):
    slot = serializers.IntegerField(min_value=1, max_value=MAX_SIDES)
    points = serializers.IntegerField(min_value=0, max_value=MAX_POINTS)


class NinjaResultInput(serializers.Serializer):
    ninja = serializers.IntegerField(min_value=1, max_value=2**62)
    played = serializers.BooleanField(default=True)
    injuries = serializers.IntegerField(min_value=0, max_value=MAX_FEAT_COUNT, default=0)
    chunin_stuns = serializers.IntegerField(min_value=0, max_value=MAX_FEAT_COUNT, default=0)
    reveals = serializers.IntegerField(min_value=0, max_value=MAX_FEAT_COUNT, default=0)
    feats = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_FEAT_COUNT),
        default=dict,
        help_text="{challenge XP award key: count}",
    )
    healing_house = serializers.BooleanField(default=False)
    all_star = serializers.BooleanField(default=False)
    downtime_die = serializers.ChoiceField(
        choices=[e.value for e in Element],
        required=False,
        help_text="The downtime die rolled at the table (leagues whose players roll)",
    )

    def validate_feats(self, value):
        if len(value) > MAX_FEATS or any(len(k) > 40 for k in value):
            raise serializers.ValidationError(f"At most {MAX_FEATS} feats, each key at most 40 characters.")
        return value


class UpkeepInput(serializers.Serializer):
    ninja = serializers.IntegerField(min_value=1, max_value=2**62)
    decision = serializers.ChoiceField(choices=["pay", "release"])


class ResultInput(serializers.Serializer):
    """A match result: each side's points, each model's feats, each ronin's upkeep decision.

    Models left out of ``ninjas`` count as on the board with no feats, as a blank line on the
    result page does."""

    sides = SidePointsInput(many=True, max_length=MAX_SIDES)
    ninjas = NinjaResultInput(many=True, max_length=MAX_NINJAS, default=list)
    upkeep = UpkeepInput(many=True, max_length=MAX_NINJAS, default=list)


class DraftInput(ResultInput):
    """A result still being entered: every part may be missing."""

    sides = SidePointsInput(many=True, max_length=MAX_SIDES, default=list)


class DraftSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    draft = serializers.DictField(child=serializers.CharField(), help_text="The result page's fields as saved")


class DecisionInput(serializers.Serializer):
    reason = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class ScheduleInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ScheduleRun.Kind.choices)
    round_number = serializers.IntegerField(
        min_value=0, max_value=10_000, required=False, allow_null=True, help_text="Omit for the next round"
    )
    challenge = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Challenge.objects.all(),
        required=False,
        allow_null=True,
        help_text="Omit to roll each fixture's challenge",
    )


class ScheduleRunSerializer(serializers.ModelSerializer):
    challenge = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    status_url = serializers.SerializerMethodField()

    class Meta:
        model = ScheduleRun
        fields = ["id", "season", "kind", "round_number", "challenge", "status", "done", "total", "error", "task_id"]
        fields += ["status_url"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_status_url(self, run):
        from django.urls import reverse

        url = reverse("league:task_status", kwargs={"task_id": run.task_id})
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url
