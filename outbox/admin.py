from django.contrib import admin

from outbox.models import OutboxTask


@admin.register(OutboxTask)
class OutboxTaskAdmin(admin.ModelAdmin):
    list_display = ("task_name", "description", "status", "attempts", "created_at", "sent_at", "last_error")
    list_filter = ("status", "task_name")
    search_fields = ("task_name", "description", "task_id")
