from django.urls import path

from stats import views

app_name = "stats"

urlpatterns = [
    path("leagues/<slug:slug>/honours/", views.honours, name="honours"),
    path("teams/<int:pk>/history/", views.team_history, name="team_history"),
    path("ninjas/<int:pk>/", views.ninja_career, name="ninja_career"),
    path("coaches/<str:username>/", views.coach, name="coach"),
]
