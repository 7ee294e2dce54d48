from django.apps import AppConfig


class NewslettersConfig(AppConfig):
    name = "newsletters"
    label = "newsletters"
    verbose_name = "Newsletters"
    default_auto_field = "django.db.models.BigAutoField"
