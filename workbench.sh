#!/usr/bin/env bash
# One-command setup: `./workbench.sh serve` (install, migrate, demo, run on localhost)
# and `./workbench.sh test` (install, run the whole test suite). Everything comes from pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")"

VENV=${WORKBENCH_VENV:-.venv}

find_python() {
  # Django 6 needs Python 3.12+; try the usual names, then pyenv's installs.
  local candidates=("${PYTHON:-}" python3.14 python3.13 python3.12 python3 python)
  local root
  root=$( (command -v pyenv >/dev/null && pyenv root) 2>/dev/null || echo "$HOME/.pyenv")
  for d in "$root"/versions/3.1[2-9]*/bin/python3; do candidates+=("$d"); done
  for c in "${candidates[@]}"; do
    [ -n "$c" ] || continue
    if "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
      echo "$c"; return 0
    fi
  done
  echo "error: Python 3.12 or newer is required (Django 6); set PYTHON=/path/to/python3.12" >&2
  return 1
}

setup() {
  local extras=$1
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then
    local py
    py=$(find_python)
    echo "setting up $VENV with $py" >&2
    rm -rf "$VENV"
    "$py" -m venv "$VENV"
  fi
  local stamp="$VENV/.installed-$extras"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e ".[$extras]"
    touch "$stamp"
  fi
}

cmd=${1:-serve}
shift || true
case "$cmd" in
  serve)
    setup test
    export WORKBENCH_DEBUG=${WORKBENCH_DEBUG:-1}
    "$VENV/bin/python" manage.py migrate --no-input
    "$VENV/bin/python" manage.py workbench_demo
    addr=${WORKBENCH_ADDR:-127.0.0.1:8000}
    echo "workbench on http://$addr/ (Ctrl-C stops it)"
    exec "$VENV/bin/python" manage.py runserver "$addr" "$@"
    ;;
  test)
    setup test
    "$VENV/bin/python" -m pytest "$@"
    ;;
  setup)
    setup test
    ;;
  *)
    echo "usage: ./workbench.sh serve|test|setup [args...]" >&2
    exit 2
    ;;
esac
