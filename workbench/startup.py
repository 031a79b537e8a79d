"""How every process that sets Django up does it: with the garbage collector paused, then the
objects of the start-up frozen out of its sight.

Setting Django up imports about 900 modules and leaves some 140,000 objects (classes, functions,
the model, URL and job registries) that live as long as the process. Python's cyclic garbage
collector, left running, walks them over and over while they are created (its full collections
grow with the heap: about 45 ms of a 0.3 s start-up), then at every full collection the process
makes later, and once more when it ends (about 0.1 s more for a command that runs a second).
Paused during the start-up and then ``gc.freeze()``: the objects alive at that point (and the few
cyclic leftovers of the imports, a fixed few megabytes) are never examined again; everything
created afterwards is collected as before. A process that forks also keeps those pages shared
with its children. Measured in docs/speed.md.

A web server process (WSGI, ASGI, and so ``runserver``, which loads the WSGI application) then
removes the stale upload files stopped processes left (:func:`web_server_started`).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_startup() -> Iterator[None]:
    """Run the block (a process's start-up) with the collector paused; then freeze what it made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def django_setup() -> None:
    """``django.setup()`` inside :func:`frozen_startup`."""
    import django

    with frozen_startup():
        django.setup()


def web_server_started() -> None:
    """Remove the stale request uploads (``jobs.uploads``); a failure is logged and the server starts."""
    from jobs.uploads import upload_temp_files_remove

    try:
        upload_temp_files_remove()
    except OSError:
        logging.getLogger(__name__).exception("could not remove stale uploads")
