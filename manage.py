#!/usr/bin/env python
"""Django's command-line utility for the relevance workbench."""

import contextlib
import os
import sys

# Commands that only read files: run without setting Django up, which saves ~0.3 s per call
# (campaigns call `evaluate` in loops). They behave exactly as their management commands do.
PURE_COMMANDS = {
    "evaluate": ("engine.cli", "main"),
    "compare": ("engine.cli", "compare_main"),
    "build_pool": ("pooling.cli", "main"),
    "simulate_pool": ("pooling.cli", "main"),
    "agreement": ("judging.cli", "main"),
}


# Processes that live on: they keep glibc's default of giving freed memory back to the system.
LONG_RUNNING = {"runserver", "jobs_worker", "shell", "dbshell", "db_worker"}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workbench.settings")
    if len(sys.argv) > 1 and sys.argv[1] in PURE_COMMANDS:
        # These commands do no linear algebra worth a thread: without this, importing numpy starts
        # one OpenBLAS thread per core, which spins beside the evaluation's own workers.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if len(sys.argv) > 1 and sys.argv[1] not in LONG_RUNNING:
        # a command that reads files and ends: reuse freed pages rather than fault in new ones
        from trec.allocator import tune_allocator

        tune_allocator()
    if (
        len(sys.argv) > 1
        and sys.argv[1] in PURE_COMMANDS
        and os.environ.get("WORKBENCH_PURE_CLI", "1") == "1"
    ):
        from importlib import import_module

        module, function = PURE_COMMANDS[sys.argv[1]]
        run = getattr(import_module(module), function)
        sys.exit(run(sys.argv[2:], sys.stdout, sys.stderr, prog=f"manage.py {sys.argv[1]}"))
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    from workbench.startup import django_setup

    with contextlib.suppress(ImproperlyConfigured):  # execute_from_command_line reports it, as Django does
        django_setup()  # execute_from_command_line's own setup then finds it done
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
