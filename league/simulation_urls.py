"""Simulation pages (the league's master): a fixture, a round, the rest of a season; progress.

Mounted under ``matches/`` (the addresses they always had), in their own namespace because the
views are the league app's (a season's simulation generates its rounds).
"""

from django.urls import path

from league import balance_views, simulation_views
from outbox import views as outbox_views

app_name = "simulation"

urlpatterns = [
    path("<int:pk>/simulate/", simulation_views.simulate_fixture, name="simulate"),
    path("simulate/<slug:slug>/<int:number>/round/", simulation_views.simulate_round, name="simulate_round"),
    path("simulate/<slug:slug>/<int:number>/season/", simulation_views.simulate_season, name="simulate_season"),
    path(
        "simulate/<slug:slug>/<int:number>/regular/",
        simulation_views.simulate_regular_season,
        name="simulate_regular_season",
    ),
    path("simulations/<int:pk>/", simulation_views.simulation_job, name="simulation_job"),
    path(
        "simulations/tasks/<str:task_id>/", outbox_views.task_status, {"kind": "simulation"}, name="simulation_status"
    ),
    # the balance study (rules.engine.balance): findings for everyone, runs for a league's master
    path("balance/", balance_views.balance_study, name="balance_study"),
    path("balance/start/", balance_views.balance_study_start, name="balance_study_start"),
    path("balance/<int:pk>/status/", balance_views.balance_study_status, name="balance_study_status"),
]
