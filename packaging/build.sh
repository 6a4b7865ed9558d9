#!/usr/bin/env bash
# Build the one-folder desktop bundle dist/ftcost/ from a fresh virtual environment.
#
#   packaging/build.sh [--venv DIR] [--reuse-venv] [--keep-all]
#
#   --venv DIR     where to create the build environment (default: build/pyi-venv)
#   --reuse-venv   keep an existing environment instead of recreating it (faster rebuilds)
#   --keep-all     build without the Qt exclusions (FTCOST_PYI_KEEP_ALL=1), to compare sizes
#
# Environment: PYTHON (default python3, >= 3.11).
# Prints the bundle size at the end. Runs on Linux, macOS and Windows (Git Bash).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/build/pyi-venv"
REUSE=0
KEEP_ALL=0
while [ $# -gt 0 ]; do
    case "$1" in
        --venv) VENV="$2"; shift 2 ;;
        --reuse-venv) REUSE=1; shift ;;
        --keep-all) KEEP_ALL=1; shift ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option: $1" >&2; exit 2 ;;
    esac
done

PYTHON="${PYTHON:-python3}"
cd "$ROOT"

if [ "$REUSE" = 0 ] || [ ! -d "$VENV" ]; then
    echo "== fresh virtual environment: $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
if [ -x "$VENV/bin/python" ]; then VPY="$VENV/bin/python"; else VPY="$VENV/Scripts/python.exe"; fi

echo "== pip install . pyinstaller"
"$VPY" -m pip install --quiet --upgrade pip
"$VPY" -m pip install --quiet . "pyinstaller>=6.6"

echo "== pyinstaller packaging/ftcost.spec"
rm -rf "$ROOT/dist/ftcost" "$ROOT/dist/ftcost.app"
start=$(date +%s)
FTCOST_PYI_KEEP_ALL="$KEEP_ALL" "$VPY" -m PyInstaller --noconfirm --clean \
    --workpath "$ROOT/build/pyinstaller" --distpath "$ROOT/dist" packaging/ftcost.spec
echo "== built in $(( $(date +%s) - start )) s"

BUNDLE="$ROOT/dist/ftcost"
if [ ! -d "$BUNDLE" ]; then
    echo "build.sh: $BUNDLE was not created" >&2
    exit 1
fi

# Every shared library in the bundle must find its dependencies (catches an over-eager exclusion).
if command -v ldd >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
    missing=$(find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' \) -print0 \
        | xargs -0 -n 50 env LD_LIBRARY_PATH="$BUNDLE/_internal:$BUNDLE/_internal/PySide6/Qt/lib" \
            ldd 2>/dev/null | grep 'not found' | grep -E 'libQt6|libpyside|libshiboken' | sort -u || true)
    if [ -n "$missing" ]; then
        echo "build.sh: bundled libraries miss Qt dependencies:" >&2
        echo "$missing" >&2
        exit 1
    fi
fi

"$BUNDLE/ftcost" --version
size=$(du -sh "$BUNDLE" | cut -f1)
echo "== bundle: $BUNDLE ($size)"
