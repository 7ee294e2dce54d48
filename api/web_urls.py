from django.urls import path

from api import web

app_name = "data"

urlpatterns = [
    path("token/", web.api_token, name="token"),
]
