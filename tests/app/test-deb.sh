#!/usr/bin/env bash
# Installs the built .deb with apt (which also installs its dependencies), checks what it put on
# the system (program, desktop entry, icons), starts the installed app in a real window (the smoke
# test), and removes the package again. Usage: tests/app/test-deb.sh [release|debug] (the build
# profile whose package to test, as scripts/build-deb [--debug] made it; release by default).
set -euo pipefail
cd "$(dirname "$0")/../.."
PROFILE=${1:-release}
DEB=$(ls -t "target/$PROFILE/bundle/deb/"*.deb | head -n 1)
echo "package: $DEB"
dpkg-deb --field "$DEB" Package Version Depends
PKG=$(dpkg-deb --field "$DEB" Package)
SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "./$DEB" >/dev/null
trap '$SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$PKG" >/dev/null || true' EXIT
BIN=$(dpkg -L "$PKG" | grep -E '^/usr/bin/' | head -n 1)
DESKTOP=$(dpkg -L "$PKG" | grep -E '\.desktop$' | head -n 1)
ICONS=$(dpkg -L "$PKG" | grep -cE '/icons/.*\.png$' || true)
[[ -x "$BIN" ]] || { echo "the package installs no program in /usr/bin"; exit 1; }
[[ -n "$DESKTOP" ]] || { echo "the package installs no desktop entry"; exit 1; }
grep -q "^Name=PSEBench Studio" "$DESKTOP" || { echo "the desktop entry does not name PSEBench Studio"; exit 1; }
[[ "$ICONS" -ge 1 ]] || { echo "the package installs no icon"; exit 1; }
echo "installed: $BIN, $DESKTOP, $ICONS icon(s)"
tests/app/run-smoke.sh "$BIN" "$PWD/tests/e2e/test-results/app-window-deb.png"
