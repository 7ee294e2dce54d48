from django.urls import path

from teams import views

app_name = "teams"

urlpatterns = [
    path("", views.team_list, name="list"),
    path("new/", views.team_create, name="create"),
    path("<int:pk>/", views.team_detail, name="detail"),
    path("<int:pk>/ledger/", views.team_ledger, name="ledger"),
    path("<int:pk>/recruit/", views.recruit, name="recruit"),
    path("<int:pk>/recruit/<slug:slug>/", views.recruit_profile, name="recruit_profile"),
    path("<int:pk>/ninja/<int:ninja_pk>/release/", views.ninja_release, name="ninja_release"),
    path("<int:pk>/ninja/<int:ninja_pk>/rename/", views.ninja_rename, name="ninja_rename"),
    path("<int:pk>/ready/", views.team_ready, name="ready"),
    path("<int:pk>/edit/", views.team_edit, name="edit"),
    path("<int:pk>/retire/", views.team_retire, name="retire"),
]
