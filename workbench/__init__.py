"""Django configuration package of the relevance workbench (settings, URLs, WSGI/ASGI)."""
