from django.urls import path

from matches import views

app_name = "matches"

urlpatterns = [
    path("<int:pk>/", views.match_detail, name="detail"),
    path("<int:pk>/sheet/", views.presheet, name="presheet"),
    path("<int:pk>/kick-off/", views.kick_off, name="kick_off"),
    path("<int:pk>/result/", views.result_entry, name="result"),
    path("<int:pk>/confirm/", views.confirm, name="confirm"),
    path("<int:pk>/upkeep/", views.upkeep_decide, name="upkeep"),
    path("<int:pk>/settle/", views.settle, name="settle"),
    path("<int:pk>/void/", views.void, name="void"),
    path("advancement/<int:roll_pk>/", views.advancement_choose, name="advancement_choose"),
]
