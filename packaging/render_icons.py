"""Render resources/icons/ftcost.svg to the PNG sizes and the Windows .ico.

    PYTHONPATH=. python packaging/render_icons.py [--check]

ftcost-16.svg, the same design redrawn on a 16 px grid, is used for SMALL_SIZES. Writes
resources/icons/hicolor/<N>x<N>/apps/ftcost.png for every N in SIZES and
resources/icons/ftcost.ico (PNG-compressed entries for ICO_SIZES; Windows Vista and later read
them). Runs offscreen with QtSvg only (QSvgRenderer + QImage); no Pillow needed. The outputs are
committed, so this runs only when the SVG changes. ``--check`` renders to memory and exits 1 if a
committed file differs (e.g. the SVG was edited without re-rendering).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "ftcost.svg"
SMALL_SVG = ICONS / "ftcost-16.svg"  # hand-tuned 16 px grid
SMALL_SIZES = (16,)
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 256)


def png_path(size: int) -> Path:
    return ICONS / "hicolor" / f"{size}x{size}" / "apps" / "ftcost.png"


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a transparent size x size image, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: cannot parse {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    buf.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO container holding PNG images (ICONDIR + ICONDIRENTRY per image + the PNG data)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))  # reserved, type 1 = icon, count
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def outputs() -> dict[Path, bytes]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    pngs = {
        size: render_png(SMALL_SVG if size in SMALL_SIZES else SVG, size)
        for size in sorted(set(SIZES) | set(ICO_SIZES))
    }
    files = {png_path(size): pngs[size] for size in SIZES}
    files[ICONS / "ftcost.ico"] = ico_bytes({size: pngs[size] for size in ICO_SIZES})
    return files


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    files = outputs()
    if "--check" in args:
        stale = [p for p, data in files.items() if not p.is_file() or p.read_bytes() != data]
        for p in stale:
            print(f"render_icons: out of date: {p.relative_to(ROOT)}")
        return 1 if stale else 0
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path.relative_to(ROOT)} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
