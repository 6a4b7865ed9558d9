#!/usr/bin/env bash
# Remove what packaging/linux/install.sh installed (same --prefix), then refresh the caches.
#
#   packaging/linux/uninstall.sh [--prefix DIR]
#
# Removes only ftcost's own files: the launcher, metainfo, MIME package, icons, and the bundle and
# its ftcost-gui/ftcost links if install.sh --bundle put them there. Your .ftcost files are untouched.
set -euo pipefail

APP_ID="io.github.ftcost.ftcost"
PREFIX=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="${2:?--prefix needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "uninstall.sh: unknown option: $1" >&2; exit 2 ;;
    esac
done

if [ -n "$PREFIX" ]; then
    [ -d "$PREFIX" ] || { echo "uninstall.sh: no such folder: $PREFIX" >&2; exit 1; }
    PREFIX="$(cd "$PREFIX" && pwd)"
    DATA="$PREFIX/share"
    BIN="$PREFIX/bin"
else
    DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
    BIN="$HOME/.local/bin"
fi

say() { echo "uninstall.sh: $*"; }
gone() {  # gone PATH: remove a file if present
    if [ -e "$1" ] || [ -L "$1" ]; then
        rm -f "$1"
        say "  removed $1"
    fi
}

say "removing from $DATA"
gone "$DATA/applications/$APP_ID.desktop"
gone "$DATA/metainfo/$APP_ID.metainfo.xml"
gone "$DATA/mime/packages/$APP_ID.xml"
for icon in "$DATA"/icons/hicolor/*/apps/"$APP_ID".png "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"; do
    gone "$icon"
done

# The bundle, and the links only if they point into it (never a pip-installed ftcost-gui).
bundle="$DATA/ftcost/bundle"
for exe in ftcost-gui ftcost; do
    if [ -L "$BIN/$exe" ] && [ "$(readlink "$BIN/$exe")" = "$bundle/$exe" ]; then
        gone "$BIN/$exe"
    fi
done
if [ -d "$bundle" ]; then
    rm -rf "$bundle"
    rmdir "$DATA/ftcost" 2>/dev/null || true
    say "  removed $bundle"
fi

if command -v update-mime-database >/dev/null 2>&1 && [ -d "$DATA/mime" ]; then
    update-mime-database "$DATA/mime" || say "update-mime-database failed (ignored)"
fi
if command -v update-desktop-database >/dev/null 2>&1 && [ -d "$DATA/applications" ]; then
    update-desktop-database -q "$DATA/applications" || say "update-desktop-database failed (ignored)"
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -d "$DATA/icons/hicolor" ]; then
    gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" || say "gtk-update-icon-cache failed (ignored)"
fi
say "done"
