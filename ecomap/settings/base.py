"""Settings shared by every environment; every deploy-specific value comes from the environment.

Environment variables (all optional for the demo):
  SECRET_KEY, DEBUG, ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS
  DATABASE_URL   default: SQLite file db.sqlite3 in the project root
  BROKER_URL     Celery broker; unset means tasks run eagerly in-process. Deliberately not
                 CELERY_BROKER_URL, which Celery reads from the process environment by itself.
  RESULT_BACKEND_URL  Celery result backend (default: the broker URL, or none when eager)
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import environ
import plotly
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# The default only ever serves the local demo; production.py refuses to start without a real one.
SECRET_KEY = env.str("SECRET_KEY", default="insecure-demo-key-change-me-0123456789abcdefghij")  # noqa: S105
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# A refused form gets the site's own page saying what to do, not Django's plain one.
CSRF_FAILURE_VIEW = "ecomap.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",  # full-text search and trigram lookups (search degrades on SQLite)
    "rest_framework",
    "rest_framework.authtoken",  # kept so the migration that hashed its old tokens can run
    "ecomap.accounts",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "catalog",
    "evaluations",
    "evaluations.teams",
    "evaluations.notifications",
    "evaluations.inbox",
    "evaluations.approvals",
    "evaluations.reports",
    "evaluations.sharing",
    "evaluations.simulations",
    "evaluations.clusters",
    "evaluations.decisions",
    "evaluations.review",
    "evaluations.audit",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "ecomap.middleware.PermissionsPolicyMiddleware",
    # Pages compressed (Django adds random padding to every gzip body against BREACH); bodies
    # the same for every reader (the API's cached lists) are compressed once per revision.
    "ecomap.middleware.CachedGZipMiddleware",
    "ecomap.middleware.BodySizeMiddleware",
    "ecomap.middleware.RejectNulMiddleware",
    "csp.middleware.CSPMiddleware",
    "ecomap.middleware.QueueUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp) on every response: scripts and everything else only from
# this site, no inline script (pages keep theirs in static/js). Styles allow inline because
# Plotly writes <style> elements and style attributes as it draws.
EMBED_FRAME_ANCESTORS = env.list("EMBED_FRAME_ANCESTORS", default=["'self'"])
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        # Only this site may frame its pages; the map's embed view adds EMBED_FRAME_ANCESTORS.
        "frame-ancestors": ["'self'"],
    }
}

# Permissions-Policy on every response (ecomap.middleware.PermissionsPolicyMiddleware): the
# browser features the site never uses, denied to it and to anything it frames. Only features
# Chromium knows (an unknown one is a console error). The map's full-screen button needs none.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer", "autoplay", "camera", "display-capture", "encrypted-media",
        "geolocation", "gyroscope", "hid", "magnetometer", "microphone", "midi", "payment",
        "publickey-credentials-get", "screen-wake-lock", "serial", "usb",
        "xr-spatial-tracking",
    )
}  # fmt: skip

# Sign-in throttling (django-axes) on the site and the admin: after AXES_FAILURE_LIMIT failures
# for one account from one address, that account is refused from that address for
# AXES_COOLOFF_TIME. Keyed on the pair, so nobody can lock someone else out from elsewhere; the
# price: guesses spread over many addresses are slowed per address only (docs/security.md).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's password sign-in, refused while LOCAL_LOGIN is off (permissions always checked).
    "ecomap.accounts.oidc.LocalPasswordBackend",
    # Single sign-on through OIDC_ISSUER; does nothing while it is unset.
    "ecomap.accounts.oidc.OIDCBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "ecomap.lockout.locked_out"
# Proxies in front that append the client's address to X-Forwarded-For (nginx's
# $proxy_add_x_forwarded_for). 0: the peer's address is the client's and X-Forwarded-For is
# ignored, since a client could write any address there. Sign-in lockout and rate limits agree.
TRUSTED_PROXIES = env.int("TRUSTED_PROXIES", default=0)
AXES_CLIENT_IP_CALLABLE = "ecomap.lockout.client_address"
AXES_VERBOSE = False

ROOT_URLCONF = "ecomap.urls"
WSGI_APPLICATION = "ecomap.wsgi.application"
ASGI_APPLICATION = "ecomap.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "evaluations.inbox.context.inbox",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"  # the home page: my drafts, reviews waiting, recent decisions
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# plotly.js comes from the installed plotly package (never a CDN), under static/vendor/plotly/.
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("vendor/plotly", Path(plotly.__file__).resolve().parent / "package_data"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "media")
MEDIA_URL = "/media/"

# Celery: an unset broker means the demo runs every task in-process.
BROKER_URL = env.str("BROKER_URL", default="")
# Eager: an in-memory broker nothing reaches; the host only spares kombu a warning per command.
CELERY_BROKER_URL = BROKER_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = env.str("RESULT_BACKEND_URL", default=BROKER_URL) or None
# Jobs report through their rows, never through Celery results: publishing then needs only the
# broker, and a result backend that lost its connection during an outage cannot block it.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = not BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = 15 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 14 * 60
# Just above the longest task's hard time limit (an import: 600 s): a message whose worker died
# comes back after 11 minutes, not an hour; the recovery sweep acts on the row sooner.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 660}
# With the broker down, publishing gives up within about two seconds instead of retrying for
# twenty: the row stays pending for the recovery sweep, and requests answer at once.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
# Workers and beat outlive their broker (issue 41, H2): they reconnect forever, waiting 2, 4, …
# up to 30 s between attempts (Celery's default 100 attempts end after about 47 minutes).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Celery's consumer, except that a connection lost mid-task is torn down once: Celery 5.7.0
# closed it twice and the worker exited (ecomap/consumer.py says how).
CELERY_WORKER_CONSUMER = "ecomap.consumer:Consumer"
# A job keeps running while the broker is away (it needs the database, not Redis) and is
# acknowledged once Redis is back. Said here because Celery 6 turns the default around.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BEAT_SCHEDULE = {
    "recover-jobs": {"task": "evaluations.recover_jobs", "schedule": 60.0},
}
# Separate queues so a long report never delays a matrix refresh or an import.
CELERY_TASK_ROUTES = {
    "catalog.tasks.run_import": {"queue": "imports"},
    "catalog.tasks.compute_matrix_snapshot": {"queue": "matrix"},
    "evaluations.report_tasks.*": {"queue": "reports"},
    "evaluations.run_capacity": {"queue": "reports"},
}
# Issue 28 H1: the matrix job refuses a catalog of more rows (the snapshot fails with the reason,
# nothing is computed) and stops the engine past this many stored (non-independent) pairs.
# Defaults from bench/matrix, docs/benchmarks.md "Matrix at 100k rows".
MATRIX_MAX_ROWS = env.int("MATRIX_MAX_ROWS", default=20_000)
MATRIX_MAX_PAIRS = env.int("MATRIX_MAX_PAIRS", default=60_000_000)
# Issue 41 H1: pages draw, list or compute placement rows one by one up to this many (the map,
# its table, card and CSV, the matrix page and API, the coverage and express pages). Past it they
# show counts per layer and resource unit, or the focused view a filter selects, and say so.
# Measured (docs/benchmarks.md "Catalogs up to 100,000 rows"): the map of 2,000 rows is drawn in
# ~2 s and ~150 MB; of 5,000 rows in ~6 s and ~300 MB with a 5 MB figure, too big for a page.
CATALOG_PAGE_MAX_ROWS = env.int("CATALOG_PAGE_MAX_ROWS", default=2_000)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ecomap.accounts.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies bounded (depth, integer digits, finite numbers): a 400, never a 500 (issue 28).
    "DEFAULT_PARSER_CLASSES": [
        "ecomap.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # password_reset: the site's reset-by-e-mail form, per address (ecomap.account_views).
    # share_open: opens of share pages per client address (unknown keys included); share_link:
    # opens of one share link from any address (evaluations.sharing.views). A reader opens the
    # page, its PDF and ADR a few times; a burst is refused before it fills the access log.
    "DEFAULT_THROTTLE_RATES": {
        "catalog_write": "120/min",
        "import": "20/min",
        "password_reset": "5/hour",
        "share_open": "30/min",
        "share_link": "300/hour",
    },
    "EXCEPTION_HANDLER": "ecomap.api.api_exception_handler",
    "NUM_PROXIES": TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "EcoMap API",
    "DESCRIPTION": "Catalog of GPU-on-Kubernetes projects placed on the three-layer map.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The five verdicts appear in several fields; one schema component names them.
    "ENUM_NAME_OVERRIDES": {
        "VerdictEnum": "catalog.engine.oracle.VERDICTS",
        "ReviewVerdictEnum": "evaluations.review.models.Verdict",
        "LowMediumHighEnum": "catalog.engine.profile.JITTER_TOLERANCES",
        "IsolationLevelEnum": "catalog.engine.rows.ISOLATION_LEVELS",
        "TenantSharingEnum": "catalog.engine.fit.TENANT_SHARING",
        "WorkloadTypeEnum": "catalog.engine.profile.WORKLOAD_TYPES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "ecomap.api.empty_query_values",
        "ecomap.api.no_nul_parameters",
        "ecomap.api.every_operation_refuses_nul",
        "evaluations.api.schema.revision_links",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Where the built-in catalog's bundle files live.
CATALOG_DATA_DIR = BASE_DIR / "catalog" / "data"

# Imports: bodies up to this size are accepted (larger → 413); up to this many items are
# applied inside the request, larger ones by a Celery worker.
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=50 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = IMPORT_MAX_BYTES
# Every other body (forms, evaluation JSON) is small; ecomap.middleware.BodySizeMiddleware.
# API tokens expire; the account page shows when and lets the owner make a new one.
API_TOKEN_DAYS = env.int("API_TOKEN_DAYS", default=90)
REQUEST_MAX_BYTES = env.int("REQUEST_MAX_BYTES", default=1024 * 1024)
IMPORT_INLINE_MAX_ITEMS = env.int("IMPORT_INLINE_MAX_ITEMS", default=600)
# One editor's saves of an evaluation within this many seconds are one recorded revision
# (autosave saves every field as it is typed); submissions and verdicts always keep theirs.
REVISION_COALESCE_SECONDS = env.int("REVISION_COALESCE_SECONDS", default=60)

# The cache carries live job progress between worker and web; Redis in production.
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}
# Redis as the cache fails open (ecomap.outage.FailOpenRedisCache): an outage makes pages slower,
# never a 500.
REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"
FAIL_OPEN_REDIS_CACHE = "ecomap.outage.FailOpenRedisCache"
if CACHES["default"]["BACKEND"] == REDIS_CACHE:
    CACHES["default"]["BACKEND"] = FAIL_OPEN_REDIS_CACHE
# Sessions are written to the database and read from the cache first (one query less on every
# signed-in page); with the cache down or cold they are read from the database as before.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# E-mail (review notifications, invitations): one URL, e.g. smtp+tls://user:password@host:587,
# as django-environ reads it (EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS / EMAIL_USE_SSL). Without it, a local SMTP server.
vars().update(env.email_url("EMAIL_URL", default="smtp://localhost:25"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="EcoMap <ecomap@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# A worker waiting on a dead mail server gives up and retries instead of hanging.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
# Single sign-on with OpenID Connect (ecomap/accounts/oidc.py, mozilla-django-oidc). Unset
# OIDC_ISSUER: local accounts only. The provider's endpoints come from its discovery document.
OIDC_ISSUER = env.str("OIDC_ISSUER", default="").rstrip("/")
OIDC_RP_CLIENT_ID = env.str("OIDC_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env.str("OIDC_CLIENT_SECRET", default="")
OIDC_RP_SIGN_ALGO = env.str("OIDC_SIGN_ALGO", default="RS256")
OIDC_RP_SCOPES = env.str("OIDC_SCOPES", default="openid email profile")
# The claim listing the person's groups, and "group=team-slug:role, …" (evaluations/teams/sso.py).
OIDC_GROUPS_CLAIM = env.str("OIDC_GROUPS_CLAIM", default="groups")
OIDC_GROUP_TEAMS = env.str("OIDC_GROUP_TEAMS", default="")
# The sign-in button says "Sign in with <this>".
OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="single sign-on")
OIDC_USE_PKCE = True
OIDC_TIMEOUT = env.int("OIDC_TIMEOUT", default=10)
OIDC_VERIFY_SSL = env.bool("OIDC_VERIFY_SSL", default=True)
OIDC_AUTHENTICATE_CLASS = "ecomap.accounts.oidc.SignInRequestView"
OIDC_CALLBACK_CLASS = "ecomap.accounts.oidc.SignInCallbackView"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
# Off: nobody signs in with a password (site and admin); only through the provider.
LOCAL_LOGIN = env.bool("LOCAL_LOGIN", default=True)
# /readyz gives each dependency (database, broker, cache) this many seconds to answer.
READYZ_TIMEOUT = env.float("READYZ_TIMEOUT", default=2.0)
# Links in e-mails and webhook payloads are absolute: the address people reach the site at.
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
