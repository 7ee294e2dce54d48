from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("", views.notification_list, name="list"),
    path("<int:pk>/read/", views.notification_read, name="read"),
    path("read-all/", views.notification_read_all, name="read_all"),
    path("settings/", views.notification_settings, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
