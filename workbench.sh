#!/usr/bin/env bash
# One-command setup: `./workbench.sh serve` (install, migrate, demo, run the web server and a
# background worker on localhost)
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
  # pyproject.toml lists what to install; trec/_kernels.c is compiled by the install (an edit to it
  # needs the install again, as a changed dependency does)
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ trec/_kernels.c -nt "$stamp" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e ".[$extras]"
    touch "$stamp"
  fi
  # Byte-compile the project as an installed package would be: an editable install is not, and
  # where PYTHONDONTWRITEBYTECODE is set every command would recompile ~40 modules (0.1 s) first.
  "$VENV/bin/python" -m compileall -q workbench relevance_workbench trec engine jobs campaigns pooling \
    judging metrics manage.py >/dev/null || true
}

ensure_chromium() {
  # The browser tests (tests/browser) drive Debian's Chromium through Playwright; Playwright's own
  # browser download needs internet access that developers' machines and CI do not have, so the
  # browser comes from apt. Fast no-op once installed; never fatal (the tests skip or, under CI, fail
  # with the reason).
  if [ -n "${WORKBENCH_CHROMIUM:-}" ] || [ -x /usr/bin/chromium ]; then return 0; fi
  local why="" sudo=()
  if ! command -v apt-get >/dev/null 2>&1; then
    why="apt-get not found"
  elif [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then sudo=(sudo -n); else why="not root and no passwordless sudo"; fi
  fi
  if [ -z "$why" ]; then
    echo "installing Debian's chromium for the browser tests (once; ~10-20 s)" >&2
    local start=$SECONDS
    # --no-install-recommends skips udev, mesa, printer tools...; fonts-liberation (a recommend) is
    # kept so pages render text with real metrics. The lock timeout waits out a concurrent apt run.
    local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq
      -o DPkg::Lock::Timeout=300 --no-install-recommends install chromium fonts-liberation)
    if "${apt[@]}" >/dev/null 2>&1 \
      || { "${sudo[@]}" apt-get -qq -o DPkg::Lock::Timeout=300 update >/dev/null 2>&1 && "${apt[@]}" >/dev/null; }; then
      echo "chromium installed in $((SECONDS - start))s" >&2
      return 0
    fi
    why="apt-get install chromium failed"
  fi
  echo "warning: /usr/bin/chromium is missing ($why): the browser tests will skip (under CI=true they fail)." >&2
  echo "         Install it with 'sudo apt-get install chromium', or set WORKBENCH_CHROMIUM=/path/to/chromium." >&2
}

usage_error() {
  echo "error: $1" >&2
  echo "usage: ./workbench.sh serve [--port PORT] [--addr HOST:PORT] [runserver options...]" >&2
  exit 2
}

# serve's address: WORKBENCH_ADDR (default 127.0.0.1:8000), then --addr HOST:PORT, then --port PORT
# (which keeps the host); every other argument goes to runserver. Sets $addr and $runserver_args.
serve_address() {
  addr=${WORKBENCH_ADDR:-127.0.0.1:8000}
  local port="" value
  runserver_args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --port|--addr)
        [ $# -ge 2 ] || usage_error "$1 needs a value"
        value=$2; set -- "${1}=$value" "${@:3}"; continue ;;
      --port=*)
        port=${1#--port=}
        [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] \
          || usage_error "--port takes a port number from 1 to 65535, not '$port'" ;;
      --addr=*)
        addr=${1#--addr=}
        [[ $addr =~ ^.+:[0-9]+$ ]] || usage_error "--addr takes HOST:PORT (e.g. 0.0.0.0:8000), not '$addr'" ;;
      *) runserver_args+=("$1") ;;
    esac
    shift
  done
  if [ -n "$port" ]; then addr="${addr%:*}:$port"; fi
}

cmd=${1:-serve}
shift || true
case "$cmd" in
  serve)
    serve_address "$@"
    setup test
    # DEBUG stays off unless asked for (WORKBENCH_DEBUG=1): its pages show the environment and every URL;
    # WhiteNoise serves the static files without it
    "$VENV/bin/python" manage.py migrate --no-input
    # creates the demo organizer (its password only then) and loads the demo campaign once
    "$VENV/bin/python" manage.py workbench_demo
    # The web server and one background worker (imports, pool builds, evaluations), each in a process
    # group of its own (set -m), so stopping the script stops both with their children (runserver's
    # autoreloader); a worker or server that dies takes the other down too. A job a killed worker
    # was running is marked failed when a worker starts again.
    set -m
    "$VENV/bin/python" manage.py jobs_worker &
    worker=$!
    "$VENV/bin/python" manage.py runserver "$addr" ${runserver_args[@]+"${runserver_args[@]}"} &
    web=$!
    stop() {
      trap - INT TERM EXIT
      kill -TERM -- "-$web" "-$worker" 2>/dev/null || true
      wait "$web" "$worker" 2>/dev/null || true
    }
    trap 'stop; exit 130' INT
    trap 'stop; exit 143' TERM
    trap stop EXIT
    echo "workbench on http://$addr/ with a background worker (Ctrl-C stops both)"
    wait -n "$web" "$worker" || true
    ;;
  test)
    setup test
    ensure_chromium
    "$VENV/bin/python" -m pytest "$@"
    ;;
  setup)
    setup test
    ensure_chromium
    ;;
  *)
    echo "usage: ./workbench.sh serve [--port PORT] [--addr HOST:PORT]|test [pytest args]|setup" >&2
    exit 2
    ;;
esac
