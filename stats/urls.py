from django.urls import path

from stats import views

app_name = "stats"

urlpatterns = [
    path("leaderboards/", views.all_time_leaderboards, name="leaderboards"),
    path("balance/", views.balance_stats, name="balance"),
    path("ratings/", views.team_ratings, name="ratings"),
    path("ratings/coaches/", views.coach_ratings, name="coach_ratings"),
    path("ratings/club/", views.club_ratings, name="club_ratings"),
    path("leagues/<slug:slug>/honours/", views.honours, name="honours"),
    path("leagues/<slug:slug>/leaderboards/", views.league_leaderboards, name="league_leaderboards"),
    path(
        "leagues/<slug:slug>/seasons/<int:number>/leaderboards/",
        views.season_leaderboards,
        name="season_leaderboards",
    ),
    path("teams/<int:pk>/history/", views.team_history, name="team_history"),
    path("ninjas/<int:pk>/", views.ninja_career, name="ninja_career"),
    path("coaches/<str:username>/", views.coach, name="coach"),
]
