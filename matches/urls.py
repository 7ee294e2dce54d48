from django.urls import path

from matches import balance_views, simulation_views, views

app_name = "matches"

urlpatterns = [
    path("<int:pk>/", views.match_detail, name="detail"),
    path("<int:pk>/sheet/", views.presheet, name="presheet"),
    path("<int:pk>/kick-off/", views.kick_off, name="kick_off"),
    path("<int:pk>/result/", views.result_entry, name="result"),
    path("<int:pk>/confirm/", views.confirm, name="confirm"),
    path("<int:pk>/settle/", views.settle, name="settle"),
    path("<int:pk>/void/", views.void, name="void"),
    path("advancement/<int:roll_pk>/", views.advancement_choose, name="advancement_choose"),
    # simulation (the league's master): a fixture, a round, the rest of a season; progress
    path("<int:pk>/simulate/", simulation_views.simulate_fixture, name="simulate"),
    path("simulate/<slug:slug>/<int:number>/round/", simulation_views.simulate_round, name="simulate_round"),
    path("simulate/<slug:slug>/<int:number>/season/", simulation_views.simulate_season, name="simulate_season"),
    path("simulations/<int:pk>/", simulation_views.simulation_job, name="simulation_job"),
    path("simulations/tasks/<str:task_id>/", simulation_views.simulation_status, name="simulation_status"),
    # the balance study (rules.engine.balance): findings for everyone, runs for a league's master
    path("balance/", balance_views.balance_study, name="balance_study"),
    path("balance/start/", balance_views.balance_study_start, name="balance_study_start"),
    path("balance/<int:pk>/status/", balance_views.balance_study_status, name="balance_study_status"),
]
