from django.urls import path

from rules import games_views, odds_views, views

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
    path("ninjutsu/", games_views.ninjutsu_rules, name="ninjutsu"),
    path("ninjutsu/odds/", odds_views.ninjutsu_odds, name="ninjutsu_odds"),
    path("kage-masters/", games_views.kage_masters_rules, name="kage_masters"),
]
