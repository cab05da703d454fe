"""Settings, all from the environment.

With no variables set, Cranfield runs on its embedded default: a SQLite file in the project
folder, Celery tasks executed in-process (eager) and DEBUG on. Setting ``DATABASE_URL`` and
``REDIS_URL`` switches to PostgreSQL and a Redis broker with separate worker processes; DEBUG
is then off unless asked for, and the development secret is refused.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

DEVELOPMENT_SECRET_KEY = "cranfield-development-secret-do-not-use-in-production"


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")

# The embedded default (no external services configured) is the only place DEBUG defaults to on.
EMBEDDED_DEFAULT = not DATABASE_URL and not REDIS_URL
# A local trial (``dev.py run`` sets LOCAL_TRIAL=true): the embedded default served as people will see it,
# with DEBUG off, so a wrong address shows the site's own error pages and never Django's debug page
# with the URLconf; cookies over plain HTTP on this machine, and static files served by WhiteNoise
# straight from the apps, so no collectstatic is needed. Only on the embedded default.
LOCAL_TRIAL = EMBEDDED_DEFAULT and env_bool("LOCAL_TRIAL", False)
DEBUG = env_bool("DEBUG", EMBEDDED_DEFAULT and not LOCAL_TRIAL)

SECRET_KEY = os.environ.get("SECRET_KEY", DEVELOPMENT_SECRET_KEY if DEBUG else "")
if not DEBUG and SECRET_KEY in {"", DEVELOPMENT_SECRET_KEY}:
    raise ImproperlyConfigured(
        "Production mode (DEBUG off) needs its own SECRET_KEY: the development secret is refused. "
        "Set SECRET_KEY to a long random string, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )

LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]", "testserver"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", LOCAL_HOSTS if DEBUG or LOCAL_TRIAL else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from here: no CDN
    "axes",
    "django_filters",  # ?topic=…&status=… on the API's lists
    "annotation",
    "evaluation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp): scripts, styles and everything else from this server only.
# Inline style attributes are allowed for the kappa heat map's cell colours; inline scripts are not
# (the API docs use drf-spectacular's split view, whose script is a file of its own).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "cranfield.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "cranfield.wsgi.application"

if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "cranfield.sqlite3")),
        }
    }
# Every request runs in one transaction: a judgement is committed before its response returns,
# and a failed import rolls back whole.
DATABASES["default"]["ATOMIC_REQUESTS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Login throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username from one
# address, that pair is locked out for AXES_COOLOFF_MINUTES; a locked-out attempt is refused before
# its password is hashed, so a burst of guesses cannot slow everyone's pages down either.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The client's address behind TRUSTED_PROXY_COUNT proxies that append to X-Forwarded-For (0: none, the
# header is ignored, since a client can write anything in it); see cranfield.proxies.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
AXES_CLIENT_IP_CALLABLE = "cranfield.proxies.client_address"
# Wrong passwords from one address whatever the username (password spraying): past this many in
# AXES_COOLOFF_MINUTES, that address's logins are refused for the rest of the window.
LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("LOGIN_FAILURES_PER_ADDRESS", "30"))
AXES_RESET_ON_SUCCESS = True
# A locked-out login gets a page saying for how long, with the way to a password reset.
AXES_LOCKOUT_CALLABLE = "cranfield.errors.locked_out"
# No "AXES: BEGIN" line at every start of every process (lockouts are still logged, as warnings).
AXES_VERBOSE = False

# The public account pages (sign-up with a code, invitation links, password reset) are throttled per
# client address in the cache (annotation/throttling/throttle.py): at most SIGNUP_THROTTLE_ATTEMPTS posts, and
# SIGNUP_THROTTLE_FAILURES wrong codes or dead links, per address per SIGNUP_THROTTLE_MINUTES.
SIGNUP_THROTTLE_ATTEMPTS = int(os.environ.get("SIGNUP_THROTTLE_ATTEMPTS", "30"))
SIGNUP_THROTTLE_FAILURES = int(os.environ.get("SIGNUP_THROTTLE_FAILURES", "10"))
SIGNUP_THROTTLE_MINUTES = int(os.environ.get("SIGNUP_THROTTLE_MINUTES", "15"))
# Starting a study link's session makes a pseudonymous account for a new worker id: at most this many
# starts per address per SIGNUP_THROTTLE_MINUTES (a crowd's workers each come from their own address).
STUDY_ARRIVALS_PER_ADDRESS = int(os.environ.get("STUDY_ARRIVALS_PER_ADDRESS", "60"))
# A finished worker's page goes back to their platform with the code after this many seconds, unless
# they choose to stay (the button there goes at once).
STUDY_RETURN_SECONDS = int(os.environ.get("STUDY_RETURN_SECONDS", "15"))

# Crowd platforms (annotation.judging.platforms). A finished MTurk worker's browser posts the form
# MTurk expects to the turkSubmitTo of their link, and only if it is one of these hosts; the study
# pages may be shown in a frame of these (MTurk shows an ExternalQuestion in one).
MTURK_SUBMIT_HOSTS = env_list(
    "MTURK_SUBMIT_HOSTS", ["https://www.mturk.com", "https://workersandbox.mturk.com"]
)
MTURK_FRAME_ANCESTORS = env_list(
    "MTURK_FRAME_ANCESTORS",
    ["https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com"],
)

# Email, for password reset (Django's own views). The default prints messages on the console (the
# web process's log): set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST…
# to send them. The test suite keeps them in memory (pytest-django's locmem backend).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cranfield@localhost")

# Django's defaults, and the hasher of generated passwords (annotation.accounts.hashers), never preferred:
# such a hash is re-made with the first one at the account's first login.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
    "annotation.accounts.hashers.GeneratedPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or LOCAL_TRIAL
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = LOCAL_TRIAL
WHITENOISE_AUTOREFRESH = LOCAL_TRIAL

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not LOCAL_TRIAL)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not LOCAL_TRIAL)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True
    # Behind a TLS-terminating proxy, say so in the environment: redirect plain HTTP, and ask
    # browsers to remember (HSTS) for this many seconds (0: not at all, the default).
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's two defaults; the browsable API's page allows its one inline <style> (annotation.rest).
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "annotation.rest.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "annotation.rest.parsers.DepthLimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "cranfield.api_errors.exception_handler",
    # The API is versioned by media type: ``Accept: application/json; version=1`` (the default when no
    # version is asked for); a version this server does not serve is a 406, never a silent change.
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.AcceptHeaderVersioning",
    "DEFAULT_VERSION": "1",
    "ALLOWED_VERSIONS": ["1"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}

# A request body is read whole up to this size (the direct import: about 8,000 abstracts or a
# 250,000-line run); larger collections go to the import-job API, streamed into the database in
# chunks up to IMPORT_JOB_MAX_BYTES and imported by a worker.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MAX_REQUEST_BODY_MB", "10")) * 1024 * 1024
IMPORT_JOB_MAX_BYTES = int(os.environ.get("IMPORT_JOB_MAX_MB", "1024")) * 1024 * 1024
# A bundle's files unpacked: checked against the ZIP's own sizes before anything is read (zipfile stops a
# member that inflates past its stated size), so a small bundle cannot unpack into gigabytes.
BUNDLE_MAX_UNPACKED_BYTES = int(os.environ.get("BUNDLE_MAX_UNPACKED_MB", "4096")) * 1024 * 1024
# Real JSON Lines deflate 3-15x; a member over 1 MiB that claims more than this is refused as a ZIP bomb
# (deflate reaches about 1,000x on one repeated byte).
BUNDLE_MAX_COMPRESSION_RATIO = int(os.environ.get("BUNDLE_MAX_COMPRESSION_RATIO", "100"))
# One line of a bundle's JSON Lines files (a document's text is far below it).
BUNDLE_MAX_LINE_BYTES = int(os.environ.get("BUNDLE_MAX_LINE_MB", "16")) * 1024 * 1024

SPECTACULAR_SETTINGS = {
    "TITLE": "Cranfield API",
    "DESCRIPTION": "Import topics, documents and runs; read ground truth and evaluations.",
    # info.version is the API's version (REST_FRAMEWORK's), set by cranfield.schema, not the package's.
    "VERSION": None,
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/docs/ loads Swagger UI from this server (drf-spectacular-sidecar), never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Every operation documents the errors DRF answers (cranfield/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "cranfield.schema.add_error_responses",
    ],
    # The jobs' statuses named for what they are, not by a hash (evaluations and import jobs share one).
    "ENUM_NAME_OVERRIDES": {
        "GroundTruthJobStatusEnum": "evaluation.models.GroundTruthJob.Status",
        "JobStatusEnum": "evaluation.models.ImportJob.Status",
    },
}

# The cache: Redis, shared by every web process, when REDIS_URL is set; otherwise this process's
# memory (the embedded default runs one process). It holds sessions in front of the database, the
# judging page's item counts (annotation.items.counts), meta-evaluation reports and leaderboards
# (evaluation.jobs.remembered).
if REDIS_URL:
    CACHES = {
        "default": {
            # Misses and drops instead of failing while Redis is down (cranfield/cache.py).
            "BACKEND": "cranfield.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cranfield",
            # A Redis that hangs costs a request half a second, not a worker.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    # Read sessions from the shared cache, write them through to the database. Only with a shared
    # cache: a per-process one would keep a logged-out session alive in the other processes.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Celery. Without REDIS_URL, tasks run in-process; with it, they go to Redis for separate workers.
CELERY_BROKER_URL = REDIS_URL or "memory://"
# Redis's transport, but a worker that loses Redis while holding jobs reconnects instead of dying.
if REDIS_URL:
    CELERY_BROKER_TRANSPORT = "cranfield.broker:Transport"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# A task is acknowledged only after it finishes, and re-queued if its worker dies mid-run:
# jobs are idempotent, so running one twice is safe, losing one is not.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "600"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "660"))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A burst of submissions within this many seconds shares one ground-truth job.
GROUND_TRUTH_DEBOUNCE_SECONDS = int(os.environ.get("GROUND_TRUTH_DEBOUNCE_SECONDS", "10"))
# Outputs scored per sub-task of a text evaluation (evaluation.texts.jobs.outputs_per_part).
TEXT_OUTPUTS_PER_PART = int(os.environ.get("TEXT_OUTPUTS_PER_PART", "200"))
# Without a worker (tasks eager), how ground-truth jobs run: "thread" starts each one on a
# background thread of the web process after the debounce delay; "manual" only queues them until
# evaluation.jobs.embedded.run_queued() is called (the test suite's default).
GROUND_TRUTH_EMBEDDED_RUNNER = os.environ.get("GROUND_TRUTH_EMBEDDED_RUNNER", "thread")
# Seconds before Redis hands a job whose worker died (never acknowledged) to another worker. It
# must exceed the longest job, or a job still running is started a second time (harmless, since
# jobs are idempotent, but wasted work). Tests that kill a worker set it low.
BROKER_VISIBILITY_TIMEOUT = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", str(CELERY_TASK_TIME_LIMIT + 60)))
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": BROKER_VISIBILITY_TIMEOUT}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # Tasks run in-process (the embedded default) would log a "Task … succeeded in …" line each, between
    # the requests' lines; their failures still reach the log. A worker logs its tasks as usual.
    "loggers": {"celery.app.trace": {"level": "WARNING"}} if CELERY_TASK_ALWAYS_EAGER else {},
}

# Every Django process (web, manage.py, tests) loads this module: importing the Celery app here binds
# @shared_task to it. (Not in cranfield/__init__.py, which the command line imports too.)
from cranfield.celery import app as celery_app  # noqa: E402, F401
