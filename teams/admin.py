from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from teams import services
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent


class NinjaInline(admin.TabularInline):
    model = Ninja
    extra = 0
    fields = ("name", "profile", "status", "xp", "misses_games", "starts_in_healing_house")
    readonly_fields = ("xp",)
    show_change_link = True


class TreasuryEntryInline(admin.TabularInline):
    """History is read-only: a correction is a new entry (the action below), never an edit."""

    model = TreasuryEntry
    extra = 0
    fields = ("created_at", "reason", "amount", "balance_after", "note", "match")
    readonly_fields = fields
    can_delete = False
    ordering = ("-id",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "clan", "owner", "league", "entry_status", "status", "treasury")
    list_filter = ("clan", "status", "entry_status", "league")
    search_fields = ("name", "owner__username")
    readonly_fields = ("treasury", "created_at")
    autocomplete_fields = ("owner",)
    inlines = [NinjaInline, TreasuryEntryInline]


class AdvancementInline(admin.TabularInline):
    model = Advancement
    extra = 0


class XpEventInline(admin.TabularInline):
    model = XpEvent
    extra = 0
    readonly_fields = ("amount", "reason", "match", "created_at")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Ninja)
class NinjaAdmin(admin.ModelAdmin):
    list_display = ("name", "team", "profile", "status", "xp", "misses_games", "starts_in_healing_house")
    list_filter = ("status", "profile__kind", "team__clan")
    search_fields = ("name", "team__name", "profile__name")
    readonly_fields = ("xp",)
    list_select_related = ("team", "profile")
    inlines = [AdvancementInline, XpEventInline]


class CorrectionForm(forms.ModelForm):
    class Meta:
        model = TreasuryEntry
        fields = ("team", "amount", "note")

    def clean(self):
        data = super().clean()
        team, amount, note = data.get("team"), data.get("amount"), (data.get("note") or "").strip()
        if amount == 0:
            raise ValidationError("A correction must change the balance.")
        if not note:
            self.add_error("note", "Say why the treasury is corrected.")
        if team is not None and amount is not None and team.treasury + amount < 0:
            raise ValidationError(f"The treasury holds {team.treasury} koban; it cannot go below zero.")
        return data


@admin.register(TreasuryEntry)
class TreasuryEntryAdmin(admin.ModelAdmin):
    """Ledger rows are history: they can be added (a correction) but never edited or deleted."""

    list_display = ("team", "created_at", "reason", "amount", "balance_after", "note", "match")
    list_filter = ("reason", "team__league")
    search_fields = ("team__name", "note")
    list_select_related = ("team", "match")
    form = CorrectionForm
    fields = ("team", "amount", "note")

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        entry = services.treasury_correct(team=obj.team, amount=obj.amount, note=obj.note, actor=request.user)
        obj.pk = entry.pk
        obj.balance_after = entry.balance_after
        obj.reason = entry.reason


@admin.register(AdvancementRoll)
class AdvancementRollAdmin(admin.ModelAdmin):
    list_display = ("ninja", "level", "faces", "status", "match")
    list_filter = ("status",)
    search_fields = ("ninja__name", "ninja__team__name")
