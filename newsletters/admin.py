from django.contrib import admin

from newsletters.models import Newsletter, NewsletterDelivery


class DeliveryInline(admin.TabularInline):
    model = NewsletterDelivery
    extra = 0
    fields = ("user", "email", "status", "attempts", "last_error", "sent_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Newsletter)
class NewsletterAdmin(admin.ModelAdmin):
    """Read mostly: newsletters are built by the task and edited by the master on the site; the
    generated content is never edited by hand (a published newsletter stays as published)."""

    list_display = ("title", "league", "period_key", "status", "build_status", "built_at", "published_at")
    list_filter = ("status", "build_status", "kind", "league")
    search_fields = ("title", "league__name", "period_key")
    list_select_related = ("league",)
    readonly_fields = (
        "league",
        "season",
        "kind",
        "round_number",
        "iso_year",
        "iso_week",
        "period_key",
        "sort_key",
        "sections",
        "content_html",
        "content_text",
        "editorial_html",
        "status",
        "published_at",
        "published_by",
        "permalink",
        "build_status",
        "build_task_id",
        "build_progress",
        "build_step",
        "build_error",
        "builds",
        "built_at",
        "created_at",
        "updated_at",
    )
    inlines = [DeliveryInline]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.is_published:  # frozen as published
            return [f.name for f in self.model._meta.fields]
        return self.readonly_fields

    def has_add_permission(self, request):
        return False


@admin.register(NewsletterDelivery)
class NewsletterDeliveryAdmin(admin.ModelAdmin):
    list_display = ("newsletter", "user", "email", "status", "attempts", "sent_at")
    list_filter = ("status",)
    search_fields = ("email", "user__username", "newsletter__title")
    list_select_related = ("newsletter", "user")
    readonly_fields = ("newsletter", "user", "email", "status", "attempts", "last_error", "sent_at", "created_at")

    def has_add_permission(self, request):
        return False
