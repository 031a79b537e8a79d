"""The one settings module: SQLite by default, PostgreSQL when DATABASE_URL is set."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from judging.llm.endpoints import EndpointError, endpoints_from_environment
from workbench.env import env_bool as _env_bool
from workbench.env import env_int as _env_int
from workbench.secret_key import secret_key_load

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Safe by default: DEBUG (the debug pages show the environment and every URL) only when asked for.
DEBUG = _env_bool("WORKBENCH_DEBUG", False)
# WORKBENCH_ENV=production is production mode (README "Deploying"): it refuses to start with DEBUG on,
# without WORKBENCH_ALLOWED_HOSTS, or with a known key, and turns on the HTTPS settings below.
PRODUCTION = os.environ.get("WORKBENCH_ENV", "development").strip().lower() == "production"
# WORKBENCH_SECRET_KEY, else a key file outside the repository, generated (0600) on first start.
SECRET_KEY = secret_key_load(production=PRODUCTION)
ALLOWED_HOSTS = _env_list("WORKBENCH_ALLOWED_HOSTS", "" if PRODUCTION else "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = _env_list("WORKBENCH_CSRF_TRUSTED_ORIGINS", "")
if PRODUCTION:
    if DEBUG:
        raise ImproperlyConfigured("WORKBENCH_ENV=production refuses WORKBENCH_DEBUG: debug pages leak")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "WORKBENCH_ENV=production needs WORKBENCH_ALLOWED_HOSTS (judge.example.org)"
        )
    # Browsers reach the site over HTTPS only (check --deploy's list); each can be relaxed by its variable.
    SECURE_SSL_REDIRECT = _env_bool("WORKBENCH_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = _env_int("WORKBENCH_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("WORKBENCH_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_bool("WORKBENCH_HSTS_PRELOAD", True)
    if _env_bool("WORKBENCH_BEHIND_PROXY", False):
        # the TLS-terminating proxy says the original scheme; trust it only when told it is there
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served as static files (the API reference)
    "metrics",
    "campaigns",
    "pooling",
    "judging",
    "jobs",
    "django_tasks_db",
    "campaigns.accounts",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # the Content-Security-Policy header (SECURE_CSP below) on every response
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # static files without DEBUG, from the app folders in development, from STATIC_ROOT in production
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # last: turns a locked-out login (django-axes) into the lockout answer
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "workbench.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "workbench" / "templates"],
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

# Content-Security-Policy: scripts and styles come only from the workbench's own static files (no
# inline <script>, style="" or event handler; data for a script travels in data- attributes or
# json_script), nothing may frame a page, and forms post only to the workbench. Charts are inline
# SVG (no data: images); the admin and the API's browsable pages work under the same policy.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

WSGI_APPLICATION = "workbench.wsgi.application"
ASGI_APPLICATION = "workbench.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{os.environ.get('WORKBENCH_SQLITE_PATH', BASE_DIR / 'workbench.sqlite3')}",
    )
}
# Connection reuse (docs/speed.md "Judging"): in production on PostgreSQL each gunicorn thread keeps
# its connection for WORKBENCH_CONN_MAX_AGE seconds (default 60), checked before reuse after a
# request that failed or an idle spell (CONN_HEALTH_CHECKS), instead of connecting anew for every
# request. Elsewhere 0 (the development server starts a thread per request, which would leak them).
# WORKBENCH_DB_POOL=N uses psycopg's pool of at most N connections per process instead (needs
# psycopg-pool).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _pool = os.environ.get("WORKBENCH_DB_POOL", "").strip()
    if _pool:
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": _env_int("WORKBENCH_DB_POOL", 4),
            "timeout": 30,
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
    else:
        # whole seconds; 0 is a connection per request
        DATABASES["default"]["CONN_MAX_AGE"] = _env_int(
            "WORKBENCH_CONN_MAX_AGE", 60 if PRODUCTION else 0, minimum=0
        )
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers proceed while an assessor's write commits; IMMEDIATE avoids upgrade deadlocks.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            # a long import or pool build holds the write lock: wait for it rather than fail at 5 s
            "timeout": 60,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes counts failed logins (the login form, the admin, API basic auth) per username and
# address, and refuses that pair, even with the right password, for the cool-off.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = _env_int("WORKBENCH_LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=_env_int("WORKBENCH_LOGIN_COOLOFF_MINUTES", 15))
# per username and address together: a typo-prone lab behind one address is not locked as a whole,
# and nobody can lock a colleague out from elsewhere
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "workbench.errors.login_locked_out"
# A second, higher limit per address across usernames (password spraying: one guess for many
# accounts), counted by workbench.throttling's handler on the login form, the admin, API basic auth
# and API tokens: that many failures from one address within the cool-off refuse every login and
# token from it, right credentials too, until fewer fall within it. Not reset by a successful login.
AXES_HANDLER = "workbench.throttling.AddressThrottlingHandler"
WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT = _env_int("WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT", 50)
if WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT < AXES_FAILURE_LIMIT:
    raise ImproperlyConfigured(
        f"WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT ({WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT}) must be at least "
        f"WORKBENCH_LOGIN_FAILURE_LIMIT ({AXES_FAILURE_LIMIT}): one address counts every username's failures"
    )
AXES_CLIENT_IP_CALLABLE = "workbench.errors.client_address"
# Behind a reverse proxy (README "Deploying") REMOTE_ADDR is the proxy's: the client's address is
# the X-Forwarded-For entry the proxy appended (the last one; earlier ones are the client's say).
WORKBENCH_BEHIND_PROXY = _env_bool("WORKBENCH_BEHIND_PROXY", False)

# Argon2id at OWASP's recommended cost (m=19 MiB, t=2, p=1: ~20 ms of one core per login here, where
# PBKDF2 took 0.3-0.7 s); older hashes are still checked and become Argon2id at the next login. At
# most WORKBENCH_PASSWORD_CHECKS hashes at once per process: further logins wait in line, and the
# process's other threads keep serving saves (workbench/hashers.py, README "Deploying").
PASSWORD_HASHERS = [
    "workbench.hashers.Argon2idPasswordHasher",
    "workbench.hashers.QueuedPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
WORKBENCH_PASSWORD_CHECKS = _env_int("WORKBENCH_PASSWORD_CHECKS", 1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "workbench" / "static"]  # the site's own stylesheet and scripts (base.html)
# WhiteNoise serves them: in production from STATIC_ROOT (`manage.py collectstatic`), compressed and
# with hashed names cached for ever; elsewhere straight from the apps' folders, nothing to collect
# (no STATIC_ROOT then, unless WORKBENCH_STATIC_ROOT names one: WhiteNoise warns of a missing folder).
_static_root = os.environ.get("WORKBENCH_STATIC_ROOT") or (BASE_DIR / "staticfiles" if PRODUCTION else None)
STATIC_ROOT = Path(_static_root) if _static_root else None
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Sessions live where every process (each gunicorn worker, each machine) reads the same copy, so
# logging out, a password change or reset ends a session everywhere at once: in the database by
# default (one indexed read a request); when the operator names a shared cache, WORKBENCH_CACHE_URL
# (redis://127.0.0.1:6379/0), reads are answered by it and the database still keeps them across
# restarts. Never a per-process cache: each worker would keep its own copy of a logged-out session.
WORKBENCH_CACHE_URL = os.environ.get("WORKBENCH_CACHE_URL", "").strip()
if WORKBENCH_CACHE_URL:
    if not WORKBENCH_CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            "WORKBENCH_CACHE_URL must be a Redis URL (redis://host:6379/0, rediss://... or unix://...)"
        )
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": WORKBENCH_CACHE_URL,
            "KEY_PREFIX": os.environ.get("WORKBENCH_CACHE_PREFIX", "workbench"),
        }
    }
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    SESSION_ENGINE = "django.contrib.sessions.backends.db"
# A login lasts WORKBENCH_SESSION_DAYS (default 14: a campaign's judging, one login a person), counted
# from the login, not renewed by each request (SESSION_SAVE_EVERY_REQUEST stays off: no write per
# request). It ends earlier when revoked in the store: logout, "Log out everywhere else", a password
# change or reset, an organizer's "End sessions" or deactivation (docs/accounts.md).
SESSION_COOKIE_AGE = _env_int("WORKBENCH_SESSION_DAYS", 14) * 24 * 3600
# An organizer's one-time login link for a new account works this many days, once (docs/accounts.md).
WORKBENCH_LOGIN_LINK_DAYS = _env_int("WORKBENCH_LOGIN_LINK_DAYS", 7)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# A password-reset link is good for this long (and only until it is used or the password changes).
PASSWORD_RESET_TIMEOUT = _env_int("WORKBENCH_PASSWORD_RESET_SECONDS", 3 * 24 * 3600, minimum=60)

# E-mail (password-reset links), Django's MAILERS: SMTP to WORKBENCH_EMAIL_HOST when the operator
# names one (README "Deploying"); otherwise printed on the console outside production, and in
# production handed to the machine's own mail server (localhost:25), never to the console, which
# nobody reads (check --deploy refuses it). A message that cannot be sent is logged, and the page
# answers the same.
_email_host = os.environ.get("WORKBENCH_EMAIL_HOST", "").strip()
if _email_host or PRODUCTION:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _email_host or "localhost",
                "port": _env_int("WORKBENCH_EMAIL_PORT", 587 if _email_host else 25, maximum=65535),
                "username": os.environ.get("WORKBENCH_EMAIL_HOST_USER", ""),
                "password": os.environ.get("WORKBENCH_EMAIL_HOST_PASSWORD", ""),
                "use_tls": _env_bool("WORKBENCH_EMAIL_USE_TLS", bool(_email_host)),
                "timeout": 30,
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("WORKBENCH_DEFAULT_FROM_EMAIL", "workbench@localhost")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "workbench.authentication.ApiTokenAuthentication",
        "workbench.authentication.ScriptBasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON for scripts; in a browser DRF's pages, under the CSP with one allowance (browsable_api.py)
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "workbench.browsable_api.BrowsableAPIRenderer",
    ],
    # ?format= names file formats (qrels, prel, mq, csv...), not DRF renderers
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_SCHEMA_CLASS": "campaigns.api_errors.ErrorsSchema",  # every operation documents its refusals
    "EXCEPTION_HANDLER": "campaigns.api_errors.api_exception_handler",  # one error shape: {"errors": [...]}
}

# The OpenAPI 3 schema of every API endpoint, served at /api/schema/ (drf-spectacular).
SPECTACULAR_SETTINGS = {
    "TITLE": "Relevance workbench API",
    "DESCRIPTION": "Campaigns, pools, judging, background jobs and evaluation of runs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # separate request and response components, so read-only fields do not appear in request bodies
    "COMPONENT_SPLIT_REQUEST": True,
    # one enum for a campaign role wherever a field names it (``role``, ``roles``); a new role makes
    # `check --deploy` warn again (tests/test_deploy.py) until it is added here
    "ENUM_NAME_OVERRIDES": {"RoleEnum": ["organizer", "assessor", "adjudicator"]},
    # the API reference (workbench/api_reference.py): Swagger UI's files from the installed
    # drf-spectacular-sidecar package, served as the site's static files (never a CDN)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # an operation's address in the page's URL (#/campaigns/...), to link to one; the token typed
    # into "Authorize" stays in the page's memory only (not persisted to the browser's storage)
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "persistAuthorization": False, "tryItOutEnabled": False},
}

# Background work (imports, pool builds, evaluations) is a django.tasks task. The database backend
# (django-tasks-db) keeps the queue in the workbench's own database, so no broker is needed:
# `manage.py jobs_worker` processes run it (`./workbench.sh serve` starts one beside the web server;
# with PostgreSQL any number, on any number of machines). WORKBENCH_TASKS=immediate runs each task
# inside the request that enqueues it instead (what the tests do; no worker needed).
_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
}
TASKS = {"default": {"BACKEND": _TASK_BACKENDS[os.environ.get("WORKBENCH_TASKS", "database")]}}
# jobs_worker lowers its CPU priority by this many nice levels (0-19; its --nice option): background
# work takes the CPU the web processes leave, so saves keep their pace beside an evaluation.
WORKBENCH_WORKER_NICE = _env_int("WORKBENCH_WORKER_NICE", 10, minimum=0, maximum=19)
# A campaign's evaluation is shared among workers in parts of this many runs (one task each).
WORKBENCH_EVALUATION_PART_RUNS = _env_int("WORKBENCH_EVALUATION_PART_RUNS", 10)
WORKBENCH_UPLOAD_DIR = Path(os.environ.get("WORKBENCH_UPLOAD_DIR", BASE_DIR / "uploads"))
DATA_UPLOAD_MAX_NUMBER_FILES = 1000  # a campaign's runs arrive in one form
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # larger uploads go to a temporary file, never all in memory
# ... in a folder of the workbench's own (0700, made when missing), not the system's: what a process
# killed during an upload leaves there is removed when a server or worker starts, once nothing has
# written to it for WORKBENCH_UPLOAD_STALE_SECONDS (jobs/uploads.py; also the age after which job
# folders of finished or deleted jobs go). Keep it longer than any request lasts (gunicorn --timeout).
FILE_UPLOAD_TEMP_DIR = str(WORKBENCH_UPLOAD_DIR / "incoming")
try:  # Django's checks refuse a FILE_UPLOAD_TEMP_DIR that does not exist
    Path(FILE_UPLOAD_TEMP_DIR).mkdir(mode=0o700, parents=True, exist_ok=True)
except OSError as exc:
    raise ImproperlyConfigured(
        f"WORKBENCH_UPLOAD_DIR: cannot create {FILE_UPLOAD_TEMP_DIR} ({exc.strerror or exc})"
    ) from exc
FILE_UPLOAD_HANDLERS = [
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "jobs.uploads.TemporaryFileUploadHandler",
]
WORKBENCH_UPLOAD_STALE_SECONDS = _env_int("WORKBENCH_UPLOAD_STALE_SECONDS", 3600, minimum=60)

# The endpoints machine assessors may ask (docs/machine_judges.md, "Judge endpoints"): a JSON object
# in WORKBENCH_JUDGE_ENDPOINTS or in the file WORKBENCH_JUDGE_ENDPOINTS_FILE names, by name:
# {"name": {"base_url": "https://…/v1", "key_env": "VARIABLE", "allow_private": false}}. Organizers
# pick one by name; none declared, machine assessors cannot judge. Read at call time, not import time.
try:
    WORKBENCH_JUDGE_ENDPOINTS = endpoints_from_environment(os.environ)
except EndpointError as _exc:
    raise ImproperlyConfigured(str(_exc)) from _exc

# Where the demo collection lives (loaded by `manage.py workbench_demo`).
WORKBENCH_DEMO_DIR = BASE_DIR / "demo"
