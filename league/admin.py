from django.contrib import admin

from league.models import BracketSlot, Bye, League, ScheduleRun, Season, SeasonEntry


class SeasonInline(admin.TabularInline):
    model = Season
    fields = ("number", "name", "format", "status")
    extra = 0
    show_change_link = True


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ("name", "master", "created_at")
    search_fields = ("name", "master__username")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [SeasonInline]


class SeasonEntryInline(admin.TabularInline):
    model = SeasonEntry
    fields = ("team", "seed")
    raw_id_fields = ("team",)
    extra = 0


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("__str__", "format", "status", "playoff_teams", "created_at")
    list_filter = ("status", "format")
    readonly_fields = ("final_table", "finished_at")
    inlines = [SeasonEntryInline]


@admin.register(ScheduleRun)
class ScheduleRunAdmin(admin.ModelAdmin):
    list_display = ("season", "kind", "round_number", "status", "done", "total", "created_at")
    list_filter = ("status", "kind")
    readonly_fields = ("task_id", "seed", "created_at", "finished_at")


@admin.register(Bye)
class ByeAdmin(admin.ModelAdmin):
    list_display = ("season", "stage", "round_number", "team", "reason")


@admin.register(BracketSlot)
class BracketSlotAdmin(admin.ModelAdmin):
    list_display = ("season", "round_number", "slot", "home", "away", "winner")
    raw_id_fields = ("match",)
