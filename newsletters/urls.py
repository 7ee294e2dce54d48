from django.urls import path

from newsletters import views
from newsletters.feeds import LeagueNewsletterFeed

app_name = "newsletters"

urlpatterns = [
    path("<slug:league_slug>/", views.newsletter_list, name="list"),
    path("<slug:league_slug>/feed/", LeagueNewsletterFeed(), name="feed"),
    path("<slug:league_slug>/build/", views.newsletter_build, name="build"),
    path("<slug:league_slug>/<slug:key>/", views.newsletter_detail, name="detail"),
    path("<slug:league_slug>/<slug:key>/edit/", views.newsletter_edit, name="edit"),
    path("<slug:league_slug>/<slug:key>/rebuild/", views.newsletter_rebuild, name="rebuild"),
    path("<slug:league_slug>/<slug:key>/publish/", views.newsletter_publish, name="publish"),
    path("<slug:league_slug>/<slug:key>/status/", views.newsletter_status, name="status"),
    path("<slug:league_slug>/<slug:key>/deliveries/", views.newsletter_deliveries, name="deliveries"),
]
