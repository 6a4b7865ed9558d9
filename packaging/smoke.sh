#!/usr/bin/env bash
# Smoke-test the frozen app: build the bundle, open an example estimate offscreen, and wait for
# the window's first paint.
#
#   packaging/smoke.sh [--no-build] [--bundle DIR] [--file F.ftcost] [--timeout S]
#
#   --no-build     use the existing bundle instead of running packaging/build.sh
#   --bundle DIR   the one-folder bundle (default: dist/ftcost)
#   --file F       the estimate to open (default: the first resources/examples/*.ftcost)
#   --timeout S    seconds to wait for the window (default: 60)
#
# The app is started with QT_QPA_PLATFORM=offscreen and FTCOST_SMOKE_EXIT_AFTER_SHOW=1; with that
# variable set it prints exactly one line "ftcost: window shown after X.XX s" right after the first
# paint of the main window and exits with status 0. Exit status here: 0 only if that line was seen
# and the app then exited 0; 1 otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=1
BUNDLE="$ROOT/dist/ftcost"
FILE=""
TIMEOUT=60
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) BUILD=0; shift ;;
        --bundle) BUNDLE="$2"; shift 2 ;;
        --file) FILE="$2"; shift 2 ;;
        --timeout) TIMEOUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "smoke.sh: unknown option: $1" >&2; exit 2 ;;
    esac
done
if [ -z "$FILE" ]; then
    FILE="$(ls "$ROOT"/resources/examples/*.ftcost | head -n 1)"
fi

if [ "$BUILD" = 1 ]; then
    "$ROOT/packaging/build.sh"
fi
GUI="$BUNDLE/ftcost-gui"
[ -x "$GUI" ] || { echo "smoke.sh: no executable $GUI (build it first)" >&2; exit 1; }

LINE_RE='^ftcost: window shown after [0-9]+\.[0-9]{2} s$'
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "== smoke: $GUI $FILE"
t0=$(date +%s.%N)
QT_QPA_PLATFORM=offscreen FTCOST_SMOKE_EXIT_AFTER_SHOW=1 "$GUI" "$FILE" >"$log" 2>&1 &
pid=$!

seen=""
deadline=$(( $(date +%s) + TIMEOUT ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    if [ -z "$seen" ] && grep -Eq "$LINE_RE" "$log"; then
        seen=$(date +%s.%N)
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        break
    fi
    sleep 0.1
done

rc=0
if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rc=124
else
    wait "$pid" || rc=$?
fi
[ -z "$seen" ] && grep -Eq "$LINE_RE" "$log" && seen=$(date +%s.%N)

echo "== bundle size: $(du -sh "$BUNDLE" | cut -f1)"
if [ -n "$seen" ] && [ "$rc" = 0 ]; then
    grep -E "$LINE_RE" "$log"
    awk -v a="$t0" -v b="$seen" 'BEGIN { printf "== time to first window (seen by smoke.sh): %.2f s\n", b - a }'
    echo "== smoke: OK"
    exit 0
fi
echo "== app output:"
tail -n 40 "$log"
if [ "$rc" = 124 ]; then
    echo "smoke.sh: FAILED: no window line within ${TIMEOUT} s (app killed)" >&2
elif [ -z "$seen" ]; then
    echo "smoke.sh: FAILED: the app exited ($rc) without printing 'ftcost: window shown after X.XX s'" >&2
else
    echo "smoke.sh: FAILED: the window was shown but the app exited with status $rc" >&2
fi
exit 1
