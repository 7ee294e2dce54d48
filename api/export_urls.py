"""/exports/: CSV downloads and the master's league export (namespace ``exports``)."""

from django.urls import path

from api import exports

app_name = "exports"

urlpatterns = [
    path("leaderboards.csv", exports.leaderboards_csv, name="leaderboards_csv"),
    path("leagues/<slug:slug>/leaderboards.csv", exports.league_leaderboards_csv, name="league_leaderboards_csv"),
    path(
        "leagues/<slug:slug>/<int:number>/leaderboards.csv",
        exports.season_leaderboards_csv,
        name="season_leaderboards_csv",
    ),
    path("leagues/<slug:slug>/<int:number>/table.csv", exports.table_csv, name="table_csv"),
    path("leagues/<slug:slug>/export.json", exports.league_export, name="league_export"),
    path("teams/<int:pk>/roster.csv", exports.roster_csv, name="roster_csv"),
]
