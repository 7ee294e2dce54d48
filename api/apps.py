from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The public REST API, CSV exports and the league backup: the top of the import direction
    (rules <- teams <- matches <- league <- newsletters <- api). It may import any app; no app
    imports it (tests/api/test_layering.py)."""

    name = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from api.tokens import tokens_revoke
        from teams import hooks

        hooks.on_password_set("api.tokens", tokens_revoke)
