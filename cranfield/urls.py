from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from annotation.accounts.views import api_token, password_reset
from annotation.api import ProjectViewSet
from annotation.throttling.throttle import refuse_password_spraying

# Error pages in the site's look with a way back; JSON under /api/; a 503 saying so when the
# database cannot be reached (cranfield/errors.py).
handler403 = "cranfield.errors.handler403"
handler404 = "cranfield.errors.handler404"
handler500 = "cranfield.errors.handler500"


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico on pages that name no icon (the API's JSON, Swagger UI): the site's
    icon, whose address is looked up when asked (a production build names it by its hash)."""
    return HttpResponsePermanentRedirect(static("annotation/favicon.svg"))


docs_view = SpectacularSwaggerSplitView.as_view(url_name="schema")
router = DefaultRouter()
router.register("projects", ProjectViewSet, basename="project")


urlpatterns = [
    # Browsers ask for /favicon.ico on pages that name no icon (the API's JSON, Swagger UI's own page).
    path("favicon.ico", favicon),
    path("", include("annotation.urls")),
    path("", include("evaluation.urls")),
    path("accounts/login/", refuse_password_spraying(auth_views.LoginView.as_view()), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Django's own password views; the email goes through EMAIL_BACKEND (the console by default).
    path("accounts/password_reset/", password_reset, name="password_reset"),
    path(
        "accounts/password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
    path("accounts/password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/token/", api_token, name="api-token"),
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI injects one <style> element; its page alone allows inline styles (scripts stay files).
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="schema")
        ),
        name="api-docs",
    ),
]
