"""The catalog in the admin, for the ninja master (site staff) to inspect and correct.

The catalog is loaded from rules/data/catalog.json by matching natural keys (slugs for clans,
profiles and challenges; names or faces for the rest). Slugs are therefore read-only once a row
exists: renaming one would make the next `load_catalog` create a second row beside it.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.text import Truncator

from rules.models import (
    AdvancementRow,
    Challenge,
    ChallengeXpAward,
    Clan,
    DowntimeRow,
    Keyword,
    Profile,
    RandomChallengeColumn,
    RandomChallengeRow,
    RevenueRow,
    SentryProfile,
    SpecialAbility,
    StatusEffect,
    XpLevel,
)


def _short(text: str, words: int = 14) -> str:
    return Truncator(text).words(words)


class SlugReadonlyOnChangeMixin:
    """The slug is the loader's natural key: set it when adding, never change it afterwards."""

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        readonly = tuple(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        return (*readonly, "slug") if obj is not None else readonly

    def get_prepopulated_fields(self, request: HttpRequest, obj=None):
        return {} if obj is not None else {"slug": ("name",)}


@admin.register(Clan)
class ClanAdmin(SlugReadonlyOnChangeMixin, admin.ModelAdmin):
    list_display = ["name", "element", "affinity_note", "profile_count", "order"]
    list_editable = ["order"]
    list_filter = ["element"]
    search_fields = ["name", "slug", "affinity_note"]
    ordering = ["order", "name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Clan]:
        return super().get_queryset(request).annotate(_profile_count=Count("profiles"))

    @admin.display(description="profiles", ordering="_profile_count")
    def profile_count(self, obj: Clan) -> int:
        return obj._profile_count  # type: ignore[attr-defined]


@admin.register(Keyword)
class KeywordAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "short_text", "order"]
    list_filter = ["category"]
    search_fields = ["name", "text"]
    ordering = ["order", "name"]

    @admin.display(description="text")
    def short_text(self, obj: Keyword) -> str:
        return _short(obj.text)


class SpecialAbilityInline(admin.StackedInline):
    model = SpecialAbility
    extra = 0
    fields = [("name", "order"), "text"]
    ordering = ["order", "id"]


class KindFilter(admin.SimpleListFilter):
    """Kind, with the grouping the ninja master thinks in: clan ninja types, heroes, ronin."""

    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return [("types", "Clan ninja types"), *Profile.Kind.choices]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "types":
            return queryset.exclude(kind__in=[Profile.Kind.HERO, Profile.Kind.RONIN])
        if value in Profile.Kind.values:
            return queryset.filter(kind=value)
        return queryset


@admin.register(Profile)
class ProfileAdmin(SlugReadonlyOnChangeMixin, admin.ModelAdmin):
    list_display = [
        "name",
        "clan",
        "kind",
        "movement",
        "attack",
        "defense",
        "koban",
        "upkeep",
        "affinity_list",
        "allowance",
        "choose_abilities",
    ]
    list_display_links = ["name"]
    list_filter = [KindFilter, "clan", "choose_abilities"]
    search_fields = ["name", "slug", "clan__name", "keywords__name", "abilities__name", "abilities__text"]
    list_select_related = ["clan"]
    ordering = ["clan__order", "order", "name"]
    filter_horizontal = ["keywords"]
    inlines = [SpecialAbilityInline]
    list_per_page = 100
    fieldsets = [
        (None, {"fields": ["name", "slug", "clan", "kind", "order"]}),
        ("Attributes", {"fields": [("movement", "attack", "defense"), ("koban", "upkeep"), "affinities"]}),
        ("Team building", {"fields": [("allowance_min", "allowance_max"), "choose_abilities"]}),
        ("Ranged", {"fields": [("ranged", "ranged_attack_bonus"), "ranged_text"]}),
        ("Keywords", {"fields": ["keywords"]}),
        ("Notes", {"fields": ["notes"], "classes": ["collapse"]}),
    ]

    @admin.display(description="affinity")
    def affinity_list(self, obj: Profile) -> str:
        return ", ".join(obj.affinities)

    @admin.display(description="allowance")
    def allowance(self, obj: Profile) -> str:
        return "" if obj.kind in (Profile.Kind.HERO, Profile.Kind.RONIN) else obj.allowance_display


@admin.register(SpecialAbility)
class SpecialAbilityAdmin(admin.ModelAdmin):
    list_display = ["name", "profile", "short_text", "order"]
    list_filter = ["profile__kind", "profile__clan"]
    search_fields = ["name", "text", "profile__name", "profile__slug"]
    list_select_related = ["profile__clan"]
    ordering = ["profile__clan__order", "profile__order", "order"]
    autocomplete_fields = ["profile"]

    @admin.display(description="text")
    def short_text(self, obj: SpecialAbility) -> str:
        return _short(obj.text)


class ChallengeXpAwardInline(admin.TabularInline):
    model = ChallengeXpAward
    extra = 0
    fields = ["order", "key", "feat", "xp", "text"]
    ordering = ["order", "id"]


@admin.register(Challenge)
class ChallengeAdmin(SlugReadonlyOnChangeMixin, admin.ModelAdmin):
    list_display = ["name", "ninjas_allowed", "rounds", "award_count", "order"]
    list_filter = ["ninjas_allowed", "rounds"]
    search_fields = ["name", "slug", "summary", "setup", "special_rules"]
    ordering = ["order", "name"]
    inlines = [ChallengeXpAwardInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Challenge]:
        return super().get_queryset(request).annotate(_award_count=Count("xp_awards"))

    @admin.display(description="XP awards", ordering="_award_count")
    def award_count(self, obj: Challenge) -> int:
        return obj._award_count  # type: ignore[attr-defined]


@admin.register(ChallengeXpAward)
class ChallengeXpAwardAdmin(admin.ModelAdmin):
    list_display = ["feat", "challenge", "xp", "key", "order"]
    list_filter = ["challenge", "xp"]
    search_fields = ["feat", "key", "text", "challenge__name"]
    list_select_related = ["challenge"]
    ordering = ["challenge__order", "order"]


@admin.register(StatusEffect)
class StatusEffectAdmin(admin.ModelAdmin):
    list_display = ["name", "short_text", "order"]
    # Nine rows, no field to group them by: no list_filter.
    search_fields = ["name", "text"]
    ordering = ["order", "name"]

    @admin.display(description="text")
    def short_text(self, obj: StatusEffect) -> str:
        return _short(obj.text)


@admin.register(SentryProfile)
class SentryProfileAdmin(admin.ModelAdmin):
    list_display = ["name", "movement", "attack", "defense"]
    # One row: no list_filter.
    search_fields = ["name", "rules"]
    ordering = ["name"]


@admin.register(XpLevel)
class XpLevelAdmin(admin.ModelAdmin):
    list_display = ["level", "name", "min_xp", "max_xp"]
    # Seven rows read top to bottom: no list_filter.
    search_fields = ["name"]
    ordering = ["level"]


@admin.register(AdvancementRow)
class AdvancementRowAdmin(admin.ModelAdmin):
    list_display = ["face", "result", "doubles", "order"]
    list_filter = ["doubles"]
    search_fields = ["face", "result", "doubles"]
    ordering = ["order"]


@admin.register(DowntimeRow)
class DowntimeRowAdmin(admin.ModelAdmin):
    list_display = ["face", "effect", "order"]
    list_filter = ["face"]
    search_fields = ["face", "effect"]
    ordering = ["order"]


@admin.register(RevenueRow)
class RevenueRowAdmin(admin.ModelAdmin):
    list_display = ["label", "result", "koban", "order"]
    list_filter = ["result"]
    search_fields = ["label", "result"]
    ordering = ["order"]


@admin.register(RandomChallengeRow)
class RandomChallengeRowAdmin(admin.ModelAdmin):
    list_display = ["face", "column_1", "column_2", "order"]
    list_filter = ["face"]
    search_fields = ["face", "column_1", "column_2"]
    ordering = ["order"]


@admin.register(RandomChallengeColumn)
class RandomChallengeColumnAdmin(admin.ModelAdmin):
    list_display = ["face", "column"]
    list_filter = ["column"]
    search_fields = ["face"]
    ordering = ["column", "face"]
