#!/usr/bin/env bash
# Install ftcost's desktop integration for the current user (no root needed):
# the .desktop launcher, the AppStream metainfo, the application/x-ftcost MIME type (*.ftcost) and
# the icons (hicolor PNG sizes + scalable SVG).
#
#   packaging/linux/install.sh [--prefix DIR] [--bundle DIR]
#
#   (default)      data into ${XDG_DATA_HOME:-~/.local/share}, programs into ~/.local/bin
#   --prefix DIR   data into DIR/share, programs into DIR/bin (for tests and staging)
#   --bundle DIR   also install a PyInstaller bundle (e.g. dist/ftcost): copied to
#                  <data>/ftcost/bundle, with ftcost-gui and ftcost linked into <bin>, and the
#                  launcher's Exec pointing at it. Without it, ftcost-gui must be on PATH
#                  (pip install . / pipx install .).
#
# Afterwards the caches are refreshed when the tools exist: update-mime-database,
# update-desktop-database, gtk-update-icon-cache. packaging/linux/uninstall.sh undoes all of it.
set -euo pipefail

APP_ID="io.github.ftcost.ftcost"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ICONS="$ROOT/resources/icons"

PREFIX=""
BUNDLE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="${2:?--prefix needs a folder}"; shift 2 ;;
        --bundle) BUNDLE="${2:?--bundle needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option: $1" >&2; exit 2 ;;
    esac
done

if [ -n "$PREFIX" ]; then
    mkdir -p "$PREFIX"
    PREFIX="$(cd "$PREFIX" && pwd)"
    DATA="$PREFIX/share"
    BIN="$PREFIX/bin"
else
    DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
    BIN="$HOME/.local/bin"
fi

say() { echo "install.sh: $*"; }
put() {  # put SRC DEST [MODE]
    install -D -m "${3:-0644}" "$1" "$2"
    say "  $2"
}

say "installing into $DATA"

# Programs (optional): a frozen bundle, linked into BIN.
EXEC="ftcost-gui"
if [ -n "$BUNDLE" ]; then
    [ -x "$BUNDLE/ftcost-gui" ] || { echo "install.sh: no ftcost-gui in $BUNDLE" >&2; exit 1; }
    dest="$DATA/ftcost/bundle"
    rm -rf "$dest"
    mkdir -p "$dest" "$BIN"
    cp -a "$BUNDLE/." "$dest/"
    ln -sfn "$dest/ftcost-gui" "$BIN/ftcost-gui"
    ln -sfn "$dest/ftcost" "$BIN/ftcost"
    say "  $dest (bundle), $BIN/ftcost-gui, $BIN/ftcost"
    EXEC="$BIN/ftcost-gui"
elif ! command -v ftcost-gui >/dev/null 2>&1; then
    say "note: ftcost-gui is not on PATH; install the app (pip install .) or pass --bundle dist/ftcost"
fi

# Launcher: Exec/TryExec point at the bundle when one was installed.
desktop="$DATA/applications/$APP_ID.desktop"
mkdir -p "$(dirname "$desktop")"
if [ "$EXEC" = ftcost-gui ]; then
    cp "$HERE/$APP_ID.desktop" "$desktop"
else
    sed -e "s|^Exec=ftcost-gui |Exec=\"$EXEC\" |" -e "s|^TryExec=.*|TryExec=$EXEC|" \
        "$HERE/$APP_ID.desktop" >"$desktop"
fi
chmod 0644 "$desktop"
say "  $desktop"

put "$HERE/$APP_ID.metainfo.xml" "$DATA/metainfo/$APP_ID.metainfo.xml"
put "$HERE/$APP_ID.mime.xml" "$DATA/mime/packages/$APP_ID.xml"

for png in "$ICONS"/hicolor/*/apps/ftcost.png; do
    size="$(basename "$(dirname "$(dirname "$png")")")"
    put "$png" "$DATA/icons/hicolor/$size/apps/$APP_ID.png"
done
put "$ICONS/ftcost.svg" "$DATA/icons/hicolor/scalable/apps/$APP_ID.svg"

# Caches (each tool is optional; a missing one only delays the change until the next login).
if command -v update-mime-database >/dev/null 2>&1; then
    update-mime-database "$DATA/mime" || say "update-mime-database failed (ignored)"
fi
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$DATA/applications" || say "update-desktop-database failed (ignored)"
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" || say "gtk-update-icon-cache failed (ignored)"
fi
say "done; .ftcost files now open with ftcost (log out and in if the menu does not show it yet)"
