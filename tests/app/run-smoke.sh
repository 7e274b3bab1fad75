#!/usr/bin/env bash
# Runs the desktop-app smoke test in a virtual display and a private D-Bus session.
# Usage: tests/app/run-smoke.sh [APP_BINARY] [SCREENSHOT]
set -euo pipefail
cd "$(dirname "$0")/../.."
APP=${1:-$PWD/target/debug/psebench-studio}
SHOT=${2:-$PWD/tests/e2e/test-results/app-window.png}
mkdir -p "$(dirname "$SHOT")"
APP=$(realpath "$APP")
exec xvfb-run -a -s "-screen 0 1400x950x24" dbus-run-session -- node tests/app/smoke.mjs "$APP" "$SHOT"
