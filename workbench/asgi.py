"""ASGI entry point."""

import os

from django.core.asgi import get_asgi_application

from workbench.startup import frozen_startup, web_server_started

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workbench.settings")
with frozen_startup():  # see workbench/startup.py
    application = get_asgi_application()
web_server_started()
