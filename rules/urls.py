from django.urls import path

from games import registry
from rules import odds_views, views

app_name = "rules"

urlpatterns = [
    path("", views.index, name="index"),
    path("clans/<slug:slug>/", views.clan, name="clan"),
    path("ronin/", views.ronin, name="ronin"),
    path("keywords/", views.keywords, name="keywords"),
    path("challenges/", views.challenges, name="challenges"),
    path("status-effects/", views.status_effects, name="status_effects"),
    path("tables/", views.tables, name="tables"),
    path("odds/", odds_views.odds, name="odds"),
    # each game's own rules pages, from its package (Game.rules_urls), in the registry's order
    *(url for game in registry.sites().values() for url in game.rules_urls),
]
