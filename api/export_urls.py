"""/exports/: CSV downloads, the master's league export and the import of a backup (namespace
``exports``)."""

from django.urls import path

from api import exports, web

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
    path("import/", web.league_import, name="league_import"),
    path("teams/<int:pk>/roster.csv", exports.roster_csv, name="roster_csv"),
]
