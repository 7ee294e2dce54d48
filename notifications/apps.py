from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    label = "notifications"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from league import hooks as league_hooks
        from matches import hooks as match_hooks
        from newsletters import hooks as newsletter_hooks
        from notifications import (
            services,
            tasks,  # noqa: F401  (registers the periodic task by its name)
        )

        # Each runs inside the transaction of the event: the rows are written with it, emails after commit.
        match_hooks.on_result_event("notifications", services.result_event)
        league_hooks.on_fixtures_created("notifications", services.fixtures_created)
        league_hooks.on_application_decided("notifications", services.application_decided)
        newsletter_hooks.on_published("notifications", services.newsletter_published)
        # The newsletter's own email honours the "newsletter" choice and carries its unsubscribe link.
        newsletter_hooks.on_mail_filter("notifications", services.newsletter_mail_refused)
        newsletter_hooks.on_mail_headers("notifications", services.newsletter_mail_headers)
