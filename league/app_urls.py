from django.urls import path

from league import views
from outbox import views as outbox_views

app_name = "league"

urlpatterns = [
    path("", views.league_list, name="list"),
    path("new/", views.league_create, name="create"),
    path("tasks/<str:task_id>/", outbox_views.task_status, {"kind": "schedule run"}, name="task_status"),
    path("schedule-runs/<int:pk>/", views.schedule_run, name="schedule_run"),
    path("fixtures/<int:pk>/challenge/", views.fixture_challenge, name="fixture_challenge"),
    path("fixtures/<int:pk>/reschedule/", views.fixture_reschedule, name="fixture_reschedule"),
    path("fixtures/<int:pk>/pairing/", views.fixture_pairing, name="fixture_pairing"),
    path("fixtures/<int:pk>/forfeit/", views.fixture_forfeit, name="fixture_forfeit"),
    path("fixtures/<int:pk>/drop-out/", views.table_dropout, name="table_dropout"),
    path("fixtures/<int:pk>/drop-out/undo/", views.table_dropout_undo, name="table_dropout_undo"),
    path("fixtures/<int:pk>/replay/", views.fixture_replay, name="fixture_replay"),
    path("join/<str:code>/", views.invitation_join, name="join"),
    path("<slug:slug>/", views.league_detail, name="detail"),
    path("<slug:slug>/rules/", views.league_edit, name="edit"),
    path("<slug:slug>/apply/", views.league_apply, name="apply"),
    path("<slug:slug>/applications/", views.applications, name="applications"),
    path("<slug:slug>/invitations/", views.invitations, name="invitations"),
    path("<slug:slug>/invitations/<int:pk>/revoke/", views.invitation_revoke, name="invitation_revoke"),
    path("<slug:slug>/applications/withdraw/", views.application_withdraw, name="application_withdraw"),
    path("<slug:slug>/seasons/new/", views.season_create, name="season_create"),
    path("<slug:slug>/seasons/<int:number>/", views.season_detail, name="season_detail"),
    path("<slug:slug>/seasons/<int:number>/fixtures/", views.season_fixtures, name="season_fixtures"),
    path("<slug:slug>/seasons/<int:number>/desk/", views.season_desk, name="season_desk"),
    path("<slug:slug>/seasons/<int:number>/fixtures/new/", views.fixture_create, name="fixture_create"),
    path("<slug:slug>/seasons/<int:number>/bracket/", views.season_bracket, name="season_bracket"),
    path("<slug:slug>/seasons/<int:number>/rounds/<int:round_number>/dates/", views.round_dates, name="round_dates"),
    path(
        "<slug:slug>/seasons/<int:number>/rounds/<int:round_number>/seating/",
        views.round_seating,
        name="round_seating",
    ),
    path(
        "<slug:slug>/seasons/<int:number>/playoffs/<int:round_number>/dates/",
        views.round_dates,
        {"playoff": True},
        name="playoff_round_dates",
    ),
    path("<slug:slug>/seasons/<int:number>/schedule/", views.schedule_generate, name="schedule_generate"),
    path("<slug:slug>/seasons/<int:number>/playoffs/advance/", views.playoffs_advance, name="playoffs_advance"),
    path("<slug:slug>/seasons/<int:number>/finish/", views.season_rollover, name="season_rollover"),
]
