from django.contrib import admin

from matches.models import DiceRoll, DowntimeResult, Match, MatchNinja, MatchTeam, UpkeepDecision


class MatchTeamInline(admin.TabularInline):
    model = MatchTeam
    extra = 0
    fields = ("slot", "team", "rating", "points", "outcome", "koban_earned", "reroll_tokens", "bonus_koban")
    readonly_fields = ("rating", "koban_earned")
    autocomplete_fields = ("team",)


class DiceRollInline(admin.TabularInline):
    model = DiceRoll
    extra = 0
    readonly_fields = ("purpose", "ninja", "faces", "entered_by_player", "created_at")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "league", "season", "round_number", "challenge", "date", "status", "friendly", "simulated")
    list_filter = ("status", "friendly", "simulated", "league", "challenge")
    search_fields = ("sides__team__name", "league__name")
    readonly_fields = ("seed", "kicked_off_at", "submitted_at", "confirmed_at", "sequence_applied_at", "voided_at")
    list_select_related = ("league", "season", "challenge")
    inlines = [MatchTeamInline, DiceRollInline]


@admin.register(MatchNinja)
class MatchNinjaAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "side",
        "played",
        "injuries",
        "chunin_stuns",
        "reveals",
        "in_healing_house",
        "all_star_awards",
        "xp_gained",
    )
    list_filter = ("in_healing_house", "played")
    search_fields = ("name", "side__team__name")
    list_select_related = ("side__team", "side__match")


@admin.register(DowntimeResult)
class DowntimeResultAdmin(admin.ModelAdmin):
    list_display = ("match", "ninja", "face", "effect")
    list_filter = ("face",)
    search_fields = ("ninja__name",)


@admin.register(UpkeepDecision)
class UpkeepDecisionAdmin(admin.ModelAdmin):
    list_display = ("match", "ninja", "fee", "paid", "forced_release")
    list_filter = ("paid", "forced_release")
    search_fields = ("ninja__name",)
