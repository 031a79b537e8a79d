"""The one settings module: SQLite by default, PostgreSQL when DATABASE_URL is set."""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("WORKBENCH_DEBUG", False)
# A development key is fine for the embedded default; deployments set WORKBENCH_SECRET_KEY.
SECRET_KEY = os.environ.get("WORKBENCH_SECRET_KEY", "dev-only-insecure-key-change-me-for-any-deployment")
ALLOWED_HOSTS = [
    h for h in os.environ.get("WORKBENCH_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if h
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "metrics",
    "campaigns",
    "pooling",
    "judging",
    "jobs",
    "django_tasks_db",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

WSGI_APPLICATION = "workbench.wsgi.application"
ASGI_APPLICATION = "workbench.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{os.environ.get('WORKBENCH_SQLITE_PATH', BASE_DIR / 'workbench.sqlite3')}",
        conn_max_age=int(os.environ.get("WORKBENCH_CONN_MAX_AGE", "0")),
    )
}
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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Sessions are read on every request (an assessor saves a judgment per keystroke): the per-process
# cache answers, the database keeps them across restarts.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "workbench.authentication.ScriptBasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # ?format= names file formats (qrels, prel, mq, csv...), not DRF renderers
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI 3 schema of every API endpoint, served at /api/schema/ (drf-spectacular).
SPECTACULAR_SETTINGS = {
    "TITLE": "Relevance workbench API",
    "DESCRIPTION": "Campaigns, pools, judging, background jobs and evaluation of runs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # separate request and response components, so read-only fields do not appear in request bodies
    "COMPONENT_SPLIT_REQUEST": True,
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
# A campaign's evaluation is shared among workers in parts of this many runs (one task each).
WORKBENCH_EVALUATION_PART_RUNS = int(os.environ.get("WORKBENCH_EVALUATION_PART_RUNS", "10"))
WORKBENCH_UPLOAD_DIR = Path(os.environ.get("WORKBENCH_UPLOAD_DIR", BASE_DIR / "uploads"))
DATA_UPLOAD_MAX_NUMBER_FILES = 1000  # a campaign's runs arrive in one form
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # larger uploads go to a temporary file, never all in memory

# Where the demo collection lives (loaded by `manage.py workbench_demo`).
WORKBENCH_DEMO_DIR = BASE_DIR / "demo"
