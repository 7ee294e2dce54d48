"""/api/v1/: the REST API, its OpenAPI 3 schema and the documentation page (namespace ``api``)."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from api import views

app_name = "api"

router = DefaultRouter()
router.include_format_suffixes = False
router.register("rules/clans", views.ClanViewSet, basename="clan")
router.register("rules/profiles", views.ProfileViewSet, basename="profile")
router.register("rules/keywords", views.KeywordViewSet, basename="keyword")
router.register("rules/challenges", views.ChallengeViewSet, basename="challenge")
router.register("rules/status-effects", views.StatusEffectViewSet, basename="status-effect")
router.register("leagues", views.LeagueViewSet, basename="league")
router.register("seasons", views.SeasonViewSet, basename="season")
router.register("matches", views.MatchViewSet, basename="match")
router.register("teams", views.TeamViewSet, basename="team")
router.register("ninjas", views.NinjaViewSet, basename="ninja")
router.register("newsletters", views.NewsletterViewSet, basename="newsletter")

urlpatterns = [
    path("rules/tables/", views.RulesTablesView.as_view(), name="rules-tables"),
    path("leaderboards/", views.LeaderboardList.as_view(), name="leaderboards"),
    path("ratings/", views.RatingList.as_view(), name="ratings"),
    path("ratings/club/", views.ClubRatingList.as_view(), name="club_ratings"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", views.DocsView.as_view(url_name="api:schema"), name="docs"),
    path("", include(router.urls)),
]
