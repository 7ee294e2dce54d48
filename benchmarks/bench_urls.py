"""The site's URLs plus /bench/minimal: the smallest Django view (full middleware stack, no
database, no template), the yardstick each page is compared with."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from league.urls import urlpatterns as site_urlpatterns


def minimal(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path("bench/minimal", minimal, name="bench_minimal"), *site_urlpatterns]
