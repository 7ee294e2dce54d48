from django.contrib import admin

from notifications.models import DeadlineReminder, Notification, Preference


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "text", "created_at", "read_at")
    list_filter = ("kind",)
    raw_id_fields = ("user",)
    list_select_related = ("user",)


@admin.register(Preference)
class PreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "email", "site")
    raw_id_fields = ("user",)
    list_select_related = ("user",)


@admin.register(DeadlineReminder)
class DeadlineReminderAdmin(admin.ModelAdmin):
    list_display = ("match", "sent_at")
    raw_id_fields = ("match",)
