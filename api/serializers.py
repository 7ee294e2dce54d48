"""What the API shows: read serializers over the models and the selectors' rows, and the input
serializers of the writes (every field bounded: lengths, ranges, list sizes)."""

from __future__ import annotations

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import registry as games_registry
from league.models import HouseRules, League, ScheduleRun, Season
from matches.models import MAX_SIDES, DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision
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
from stats.selectors import leaderboards as leaderboard_selectors
from stats.selectors import ratings as rating_selectors
from teams.models import AdvancementRoll, StrengthRating, Team, TreasuryEntry, XpEvent

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
    """A league's or season's house rules: every game's, and its game's own (the All-Stars-only
    rules are absent from a Ninjutsu or Kage Masters league, and so on)."""

    starting_koban = serializers.IntegerField(required=False, help_text="All-Stars only")
    revenue_win = serializers.IntegerField(required=False, help_text="All-Stars only")
    revenue_draw = serializers.IntegerField(required=False, help_text="All-Stars only")
    revenue_loss = serializers.IntegerField(required=False, help_text="All-Stars only")
    points_win = serializers.IntegerField()
    points_draw = serializers.IntegerField()
    points_loss = serializers.IntegerField()
    tie_breakers = serializers.CharField()
    results_need_confirmation = serializers.BooleanField()
    dice_mode = serializers.ChoiceField(choices=HouseRules.DiceMode.choices, required=False, help_text="All-Stars only")
    underdog_bonuses = serializers.BooleanField(required=False, help_text="All-Stars only")
    max_bonus_koban = serializers.IntegerField(required=False, help_text="All-Stars only")
    points_bye = serializers.IntegerField(allow_null=True, help_text="Empty: a win's points")
    points_forfeit_win = serializers.IntegerField(allow_null=True, help_text="Empty: a win's points")
    points_forfeit_loss = serializers.IntegerField(allow_null=True, help_text="Empty: a loss's points")
    revenue_forfeit_win = serializers.IntegerField(
        allow_null=True, required=False, help_text="All-Stars only. Empty: the win revenue"
    )
    swiss_order = serializers.CharField()
    several_teams_per_owner = serializers.BooleanField(help_text="A player may enter several teams in a season")
    game_rules = serializers.DictField(
        required=False,
        help_text="The game's own house rules by rule (its package's), each at its value or its default; "
        "only for a game that has some (docs/api.md lists each game's)",
    )


def own_house_rules(rules: HouseRules, game: str) -> dict:
    """A league's or season's house rules as the API shows them: its game's only (an All-Stars
    league shows what it showed before there were other games)."""
    hidden = set(HouseRules.fields_not_for(game))
    shown = {name: value for name, value in rules.house_rules().items() if name not in hidden}
    if "game_rules" in shown:
        shown["game_rules"] = games_registry.game_of(game).rule_values(rules.game_rules)
    return shown


class SeasonBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = ["id", "number", "name", "format", "status"]


class LeagueSerializer(serializers.ModelSerializer):
    master = serializers.CharField(source="master.username", read_only=True)
    game = serializers.ChoiceField(
        choices=League._meta.get_field("game").choices,
        read_only=True,
        help_text="The game the league plays (fixed when it was founded)",
    )
    game_name = serializers.CharField(source="get_game_display", read_only=True)
    team_count = serializers.IntegerField(read_only=True, help_text="Entrants accepted: teams, or players")
    current_season = serializers.SerializerMethodField()

    class Meta:
        model = League
        fields = [
            "slug",
            "name",
            "game",
            "game_name",
            "description",
            "master",
            "team_count",
            "current_season",
            "created_at",
        ]

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
        return own_house_rules(league, league.game)


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
        return own_house_rules(season, season.league.game)


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
        fields = ["slot", "team", "team_name", "points", "outcome", "league_points"]
        extra_kwargs = {
            "league_points": {
                "help_text": "League points the game gave this side itself (a Kage Masters table's place, a "
                "Ninjutsu game on time); null: its outcome's points under the house rules"
            }
        }


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
            "league_points",
            "dropped_out",
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
    game_record = serializers.SerializerMethodField(
        help_text="A players' game (Ninjutsu, Kage Masters): the record submitted (the one entered first), "
        "in the shape the result endpoint takes; null for All-Stars"
    )
    counter_record = serializers.SerializerMethodField(
        help_text="A players' game: another player's differing record (a dispute); null otherwise"
    )
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
            "settlement",
            "upkeep_waits",
            "game_record",
            "counter_record",
            "outcomes",
        ]

    def get_seed(self, match) -> int | None:
        return match.seed if self.context.get("outcomes") else None

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_game_record(self, match) -> dict | None:
        return entered_record(match.submitted_record)

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_counter_record(self, match) -> dict | None:
        return entered_record(match.counter_record)

    @extend_schema_field(OutcomesSerializer(allow_null=True))
    def get_outcomes(self, match):
        outcomes = self.context.get("outcomes")
        return OutcomesSerializer(outcomes).data if outcomes else None


# --- teams and ninjas -------------------------------------------------------------------------------


class TeamSerializer(serializers.ModelSerializer):
    game = serializers.ChoiceField(
        choices=Team._meta.get_field("game").choices,
        read_only=True,
        help_text="The game: an All-Stars team scroll, or a player's entry in another game (no clan)",
    )
    clan = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True, help_text="Empty for a player's entry"
    )
    owner = serializers.CharField(source="owner.username", read_only=True)
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    rating = serializers.IntegerField(read_only=True, help_text="The game's team rating (its roster today)")

    class Meta:
        model = Team
        fields = [
            "id",
            "name",
            "game",
            "clan",
            "owner",
            "league",
            "entry_status",
            "status",
            "treasury",
            "rating",
            "created_at",
        ]


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
        return [side.team_id for side in line["opponents"]]


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


class StrictInput(serializers.Serializer):
    """A document whose keys are all known: a key the record does not have is refused, never
    dropped in silence (as the result page refuses a field it does not have)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({key: ["Not a field of this record."] for key in unknown[:10]})
        return super().to_internal_value(data)


def game_result_inputs() -> list[type[serializers.Serializer]]:
    """The result document of each players' game that takes one through the API (its Game's
    ``api_result_input``, games.protocol), in the registry's order: called when the schema is built."""
    from games.registry import sites

    return [g.api_result_input for g in sites().values() if g.api_result_input is not None]


def entered_record(record) -> dict | None:
    """A stored record of a players' game whose results are entered on the site (its game's key
    names a registered game with a result check); None otherwise (All-Stars' records have no game)."""
    from games.registry import sites

    if not isinstance(record, dict):
        return None
    game = sites().get(record.get("game")) if isinstance(record.get("game"), str) else None
    return record if game is not None and not game.team_scrolls and game.can_enter_results else None


class SettleInput(serializers.Serializer):
    pick = serializers.ChoiceField(
        choices=[Match.Settlement.FIRST, Match.Settlement.SECOND],
        help_text="Apply the first record submitted, or the second (the differing one)",
    )


class UpkeepDecisionInput(serializers.Serializer):
    """The upkeep of the caller's own ronin (the master's: any side's): each team decides its own."""

    upkeep = UpkeepInput(many=True, max_length=MAX_NINJAS, default=list)


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


# --- tables as a club runs them (issue 28, part 4): drop-outs and seating moves, the master's ---------

#: A round seats at most this many players in one seating document (the body's limit holds it far
#: lower anyway); a document with more entries than the round's players is refused by the view.
MAX_SEATING = 1000
TEAM_ID_PATTERN = r"^[1-9][0-9]{0,17}$"


class DropoutInput(StrictInput):
    """A player dropped out of a table: who, when, and for a table left below the smallest table,
    replay or dissolve (``league.services.dropout_plan``)."""

    player = serializers.IntegerField(min_value=1, max_value=2**62, help_text="The entry (team id) who dropped out")
    when = serializers.ChoiceField(
        choices=[MatchTeam.Dropout.BEFORE, MatchTeam.Dropout.DURING],
        help_text="Before the game (did not come) or during it (left the table)",
    )
    below_minimum = serializers.ChoiceField(
        choices=["replay", "dissolve"],
        required=False,
        help_text="Only needed when fewer than the smallest table's players would be left: replay the table "
        "(voided, a new one of the same players) or dissolve it (voided, nobody scores)",
    )
    dry_run = serializers.BooleanField(default=False, help_text="Answer what it would do, and write nothing")


class TablePlayerSerializer(serializers.Serializer):
    team = serializers.IntegerField(help_text="The entry's id (teams/{id}/)")
    name = serializers.CharField()
    dropped_out = serializers.CharField(help_text='"" (played), "before" or "during" (dropped out of the table)')


class DropoutPlanSerializer(serializers.Serializer):
    """What recording the drop-out would do (a dry run: nothing was written)."""

    dry_run = serializers.BooleanField(help_text="True: nothing was written")
    match = serializers.IntegerField(source="match.pk")
    player = serializers.IntegerField(source="team.pk")
    when = serializers.ChoiceField(choices=[MatchTeam.Dropout.BEFORE, MatchTeam.Dropout.DURING])
    present = TablePlayerSerializer(many=True, help_text="The players left at the table")
    below_minimum = serializers.BooleanField(help_text="Fewer than the smallest table's players would be left")
    choice = serializers.CharField(help_text='For a table left too small: "replay" or "dissolve"; else ""')
    facts = serializers.ListField(child=serializers.CharField(), help_text="What it does, as the site lists it")


@extend_schema_field(
    {
        "type": "object",
        "description": "{entry (team id): table (the match's id)}: every player of the round, once",
        "propertyNames": {"pattern": TEAM_ID_PATTERN},
        "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 2**62, "format": "int64"},
        "minProperties": 1,
        "maxProperties": MAX_SEATING,
    }
)
class SeatingField(serializers.DictField):
    """{team id: match id} as ints; keys are digits (JSON's keys are strings), bounded in number."""

    child = serializers.IntegerField(min_value=1, max_value=2**62)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            if not data:
                raise serializers.ValidationError("Seat every player of the round.")
            if len(data) > MAX_SEATING:
                raise serializers.ValidationError(f"At most {MAX_SEATING} players.")
            bad = [key for key in data if not isinstance(key, str) or not re.fullmatch(TEAM_ID_PATTERN, key)]
            if bad:
                raise serializers.ValidationError("Each key is an entry's id (digits).")
        value = super().to_internal_value(data)
        return {int(key): table for key, table in value.items()}


class SeatingInput(StrictInput):
    """The master seats every player of a round (``league.services.seating_plan``)."""

    round_number = serializers.IntegerField(min_value=1, max_value=10_000, help_text="The round to re-seat")
    seating = SeatingField(help_text="Every player of the round, once: {entry id: the match id of his table}")
    dry_run = serializers.BooleanField(default=False, help_text="Answer what it would change, and write nothing")


class RoundTableSerializer(serializers.Serializer):
    match = serializers.IntegerField(help_text="The table's match id (matches/{id}/)")
    table = serializers.IntegerField(help_text="The table's number in the round, from 1")
    status = serializers.ChoiceField(choices=Match.Status.choices)
    players = TablePlayerSerializer(many=True, help_text="In seat order")


class RoundSeatingSerializer(serializers.Serializer):
    """A round's tables as they are, and why they cannot be re-seated (null when they can)."""

    season = serializers.IntegerField()
    round_number = serializers.IntegerField()
    refusal = serializers.CharField(allow_null=True, help_text="Why the seating cannot change; null when it can")
    tables = RoundTableSerializer(many=True)


class SeatingPlanSerializer(serializers.Serializer):
    """What the seating changes (a dry run), or changed."""

    dry_run = serializers.BooleanField(help_text="True: nothing was written")
    season = serializers.IntegerField()
    round_number = serializers.IntegerField()
    tables = RoundTableSerializer(many=True, help_text="Every table of the round, seated as planned")
    changes = serializers.ListField(child=serializers.CharField(), help_text="Who moves from which table to which")
    added_repeats = serializers.ListField(
        child=serializers.CharField(), help_text="Pairs who would meet again this season, and do not as seated now"
    )
    repeats_before = serializers.IntegerField(help_text="Pairs meeting again, as seated now")
    repeats_after = serializers.IntegerField(help_text="Pairs meeting again, as planned")


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


# --- leaderboards and strength ratings (stats) ------------------------------------------------------


def _link(request, name: str, pk) -> str:
    from django.urls import reverse

    url = reverse(name, args=[pk])
    return request.build_absolute_uri(url) if request else url


class NamedLinkSerializer(serializers.Serializer):
    """A ninja or a team behind a row: its page on the site and its API address."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.URLField(help_text="The page on the site (a ninja's career, a team's history)")
    api_url = serializers.URLField(help_text="The same in the API")


class MatchLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField(help_text="The match page on the site")
    api_url = serializers.URLField(help_text="The match with its full record in the API")


class CoachLinkSerializer(serializers.Serializer):
    username = serializers.CharField()
    url = serializers.URLField(help_text="The coach's page on the site")


def ninja_link(request, pk: int, name: str) -> dict:
    return {
        "id": pk,
        "name": name,
        "url": _link(request, "stats:ninja_career", pk),
        "api_url": _link(request, "api:ninja-detail", pk),
    }


def team_link(request, pk: int, name: str) -> dict:
    return {
        "id": pk,
        "name": name,
        "url": _link(request, "stats:team_history", pk),
        "api_url": _link(request, "api:team-detail", pk),
    }


def match_link(request, pk: int | None) -> dict | None:
    if pk is None:
        return None
    return {"id": pk, "url": _link(request, "matches:detail", pk), "api_url": _link(request, "api:match-detail", pk)}


class LeaderboardRowSerializer(serializers.Serializer):
    """One row of a board (stats.selectors.leaderboards). Which links it carries depends on the
    board's ``kind``: ``ninja`` (the ninja and its team), ``team`` (the team), ``run`` (the team,
    the run's first and last matches), ``match`` (the match, its winner and loser, the score)."""

    rank = serializers.IntegerField(help_text="Tied figures share a place (RANK())")
    value = serializers.IntegerField(help_text="The board's figure, in its unit")
    ninja = serializers.SerializerMethodField()
    team = serializers.SerializerMethodField()
    match = serializers.SerializerMethodField()
    winner = serializers.SerializerMethodField()
    loser = serializers.SerializerMethodField()
    winner_points = serializers.SerializerMethodField()
    loser_points = serializers.SerializerMethodField()
    first_match = serializers.SerializerMethodField()
    last_match = serializers.SerializerMethodField()
    ongoing = serializers.SerializerMethodField(help_text="A run still going (run rows)")

    def get_winner_points(self, row) -> int | None:
        return getattr(row, "winner_points", None)

    def get_loser_points(self, row) -> int | None:
        return getattr(row, "loser_points", None)

    def get_ongoing(self, row) -> bool | None:
        return getattr(row, "ongoing", None)

    @property
    def _request(self):
        return self.context.get("request")

    @extend_schema_field(NamedLinkSerializer(allow_null=True))
    def get_ninja(self, row):
        return ninja_link(self._request, row.ninja_id, row.ninja) if hasattr(row, "ninja_id") else None

    @extend_schema_field(NamedLinkSerializer(allow_null=True))
    def get_team(self, row):
        return team_link(self._request, row.team_id, row.team) if hasattr(row, "team_id") else None

    @extend_schema_field(MatchLinkSerializer(allow_null=True))
    def get_match(self, row):
        return match_link(self._request, getattr(row, "match_id", None))

    @extend_schema_field(NamedLinkSerializer(allow_null=True))
    def get_winner(self, row):
        return team_link(self._request, row.winner_id, row.winner) if hasattr(row, "winner_id") else None

    @extend_schema_field(NamedLinkSerializer(allow_null=True))
    def get_loser(self, row):
        return team_link(self._request, row.loser_id, row.loser) if hasattr(row, "loser_id") else None

    @extend_schema_field(MatchLinkSerializer(allow_null=True))
    def get_first_match(self, row):
        return match_link(self._request, getattr(row, "first_match_id", None))

    @extend_schema_field(MatchLinkSerializer(allow_null=True))
    def get_last_match(self, row):
        return match_link(self._request, getattr(row, "last_match_id", None))


class LeaderboardScopeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["all", "league", "season"])
    title = serializers.CharField()
    league = serializers.CharField(allow_null=True, help_text="The league's slug (league and season scopes)")
    season = serializers.IntegerField(allow_null=True, help_text="The season's id (season scope)")


class BoardSerializer(serializers.Serializer):
    """A board or record of one scope: its first ``limit`` rows, ranked."""

    key = serializers.ChoiceField(choices=leaderboard_selectors.BOARD_KEYS)
    title = serializers.CharField()
    unit = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=["ninja", "team", "run", "match"], help_text="What a row links to (LeaderboardRow)"
    )
    scope = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField(help_text="The leaderboards page of the scope")
    csv_url = serializers.SerializerMethodField(help_text="This board as CSV")
    rows = serializers.SerializerMethodField()

    @extend_schema_field(LeaderboardScopeSerializer)
    def get_scope(self, board):
        return self.context["scope"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, board):
        return self.context["url"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_csv_url(self, board):
        url = self.context["csv_url"]
        return f"{url}{'&' if '?' in url else '?'}board={board.key}"

    @extend_schema_field(LeaderboardRowSerializer(many=True))
    def get_rows(self, board):
        return LeaderboardRowSerializer(board.rows, many=True, context=self.context).data


class LeaderboardQuery(serializers.Serializer):
    """The leaderboards' query: a scope (all time, a league, a season), a board, a number of rows."""

    scope = serializers.ChoiceField(
        choices=["all", "league", "season"],
        required=False,
        help_text="Omit to infer it: season if ``season`` is given, else league if ``league`` is, else all",
    )
    league = serializers.SlugField(max_length=100, required=False, help_text="A league's slug")
    season = serializers.IntegerField(min_value=1, max_value=2**62, required=False, help_text="A season's id")
    board = serializers.ChoiceField(choices=leaderboard_selectors.BOARD_KEYS, required=False, help_text="One board")
    game = serializers.ChoiceField(
        choices=games_registry.CHOICES,
        required=False,
        help_text="All time: the game whose leagues' boards these are (default the first game); a league's "
        "and a season's are of the league's game (another is a 400)",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=leaderboard_selectors.MAX_LIMIT,
        default=leaderboard_selectors.LIMIT,
        help_text="Rows a board (the pages show 10)",
    )

    #: What the parameters' schemas cannot say: which go together (the operation's description says it).
    COMBINATIONS = {
        "all": "All time takes neither league nor season.",
        "league": "A league's leaderboards take its slug and no season.",
        "season": "A season's leaderboards take its id.",
    }

    def validate(self, data):
        scope = data.get("scope") or ("season" if "season" in data else "league" if "league" in data else "all")
        if scope == "all" and ("league" in data or "season" in data):
            raise serializers.ValidationError({"scope": self.COMBINATIONS["all"]})
        if scope == "league" and ("league" not in data or "season" in data):
            raise serializers.ValidationError({"league": self.COMBINATIONS["league"]})
        if scope == "season" and "season" not in data:
            raise serializers.ValidationError({"season": self.COMBINATIONS["season"]})
        return {**data, "scope": scope}


class StrengthRatingSerializer(serializers.Serializer):
    """A team's or a coach's strength rating (docs/ratings.md), as the ratings pages list it."""

    position = serializers.IntegerField(help_text="The place in this list (by the rating itself)")
    kind = serializers.SerializerMethodField()
    game = serializers.ChoiceField(choices=games_registry.CHOICES, help_text="The game rated")
    system = serializers.ChoiceField(choices=StrengthRating.System.choices)
    rating = serializers.FloatField(help_text="Glicko-2: r; Plackett-Luce: mu")
    deviation = serializers.FloatField(help_text="Glicko-2: RD; Plackett-Luce: sigma")
    volatility = serializers.FloatField(allow_null=True, help_text="Glicko-2's sigma; null for Plackett-Luce")
    spread = serializers.FloatField(help_text="The ± shown: 2 RD (Glicko-2), 3 sigma (Plackett-Luce)")
    conservative = serializers.FloatField(help_text="rating - spread")
    games = serializers.IntegerField()
    team = serializers.SerializerMethodField()
    clan = serializers.SerializerMethodField(help_text="The team's clan (team rows)")
    owner = serializers.SerializerMethodField(help_text="The team's player (team rows)")
    coach = serializers.SerializerMethodField()
    last_match = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field(serializers.ChoiceField(choices=["team", "coach"]))
    def get_kind(self, row):
        return "coach" if row.coach_id else "team"

    @extend_schema_field(NamedLinkSerializer(allow_null=True))
    def get_team(self, row):
        return team_link(self.context.get("request"), row.team_id, row.team.name) if row.team_id else None

    def get_clan(self, row) -> str | None:
        return row.team.clan.slug if row.team_id and row.team.clan_id else None

    def get_owner(self, row) -> str | None:
        return row.team.owner.username if row.team_id else None

    @extend_schema_field(CoachLinkSerializer(allow_null=True))
    def get_coach(self, row):
        if not row.coach_id:
            return None
        return {
            "username": row.coach.username,
            "url": _link(self.context.get("request"), "stats:coach", row.coach.username),
        }

    @extend_schema_field(MatchLinkSerializer(allow_null=True))
    def get_last_match(self, row):
        return match_link(self.context.get("request"), row.last_match_id)


class RatingsQuery(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["team", "coach"], default="team")
    game = serializers.ChoiceField(
        choices=games_registry.CHOICES,
        required=False,
        help_text="The game rated (every list is of one game): default the league's, else the first game",
    )
    system = serializers.ChoiceField(
        choices=StrengthRating.System.choices,
        required=False,
        help_text="Default the game's own (Glicko-2 one on one, Plackett-Luce for a table game); a system the "
        "game is not rated by is a 400",
    )
    league = serializers.SlugField(
        max_length=100,
        required=False,
        help_text="A league's slug: its teams, or the coaches with a team in it (their rating in its game); "
        "a league of another game than `game` is a 400",
    )


class ClubQuery(serializers.Serializer):
    league = serializers.SlugField(
        max_length=100, required=False, help_text="A league's slug: the members with a team or entry in it"
    )
    order = serializers.ChoiceField(
        choices=rating_selectors.CLUB_ORDERS,
        default="games",
        help_text="games: the games played (every game's count); name; or a game's key: by its rating",
    )


class ClubCellSerializer(serializers.Serializer):
    """A member's rating in one game, in the game's own system: never added to another game's."""

    system = serializers.ChoiceField(choices=StrengthRating.System.choices)
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    spread = serializers.FloatField()
    games = serializers.IntegerField()
    rank = serializers.IntegerField(help_text="The place among the game's rated members (ties share it)")
    of = serializers.IntegerField(help_text="How many members the game rates")


#: A member's ratings, one field a game (the games' keys), each null where the member is not rated in it.
ClubRatingsSerializer = type(
    "ClubRatingsSerializer",
    (serializers.Serializer,),
    {key: ClubCellSerializer(allow_null=True, help_text=info.name) for key, info in games_registry.GAMES.items()},
)


class ClubRowSerializer(serializers.Serializer):
    """A member of the club board: a rating a game (null where not rated), side by side."""

    member = serializers.SerializerMethodField()
    games = serializers.IntegerField(help_text="Rated games played, every game's count")
    ratings = serializers.SerializerMethodField()

    @extend_schema_field(CoachLinkSerializer())
    def get_member(self, row):
        username = row.member.username
        return {"username": username, "url": _link(self.context.get("request"), "stats:coach", username)}

    @extend_schema_field(ClubRatingsSerializer())
    def get_ratings(self, row) -> dict:
        out = {}
        for key in games_registry.GAMES:
            cell = row.cells.get(key)
            out[key] = (
                None
                if cell is None
                else {
                    "system": cell.rating.system,
                    "rating": cell.rating.rating,
                    "deviation": cell.rating.deviation,
                    "spread": cell.rating.spread,
                    "games": cell.rating.games,
                    "rank": cell.rank,
                    "of": cell.of,
                }
            )
        return out
