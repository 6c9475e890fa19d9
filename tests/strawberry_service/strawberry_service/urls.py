from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

from .views import ServiceView

urlpatterns = [
    path("oauth/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("graphql/", csrf_exempt(ServiceView.as_view())),
]
