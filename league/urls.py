from django.contrib import admin
from django.urls import include, path

from league import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("teams.account_urls")),
    path("rules/", include("rules.urls")),
    path("teams/", include("teams.urls")),
    path("matches/", include("matches.urls")),
    path("matches/", include("league.simulation_urls")),
    path("leagues/", include("league.app_urls")),
    path("newsletters/", include("newsletters.urls")),
    path("notifications/", include("notifications.urls")),
    # The API app sits above every other: named by string, never imported (api/apps.py).
    path("api/v1/", include("api.urls")),
    path("accounts/api/", include("api.web_urls")),
    path("exports/", include("api.export_urls")),
    path("stats/", include("stats.urls")),
    path("admin/", admin.site.urls),
]
