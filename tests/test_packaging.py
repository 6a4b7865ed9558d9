"""Desktop packaging: freedesktop files, icons, install scripts, PyInstaller spec, smoke.sh.

Fast and headless: no window is shown and nothing is frozen here (packaging/build.sh does that).
External validators run when installed (Debian: desktop-file-utils, appstream, shared-mime-info)
and are skipped otherwise.
"""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import stat
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"
LINUX = PKG / "linux"
ICONS = ROOT / "resources" / "icons"
APP_ID = "io.github.ftcost.ftcost"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
MIME_XML = LINUX / f"{APP_ID}.mime.xml"
SPEC = PKG / "ftcost.spec"
PNG_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 256)
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"

posix_only = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("bash") is None, reason="POSIX shell scripts"
)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def png_size(data: bytes) -> tuple[int, int, int]:
    """(width, height, colour type) from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height, _depth, colour = struct.unpack(">IIBB", data[16:26])
    return width, height, colour


# -- freedesktop files ----------------------------------------------------------------------------


def test_desktop_file_validates():
    out = subprocess.run(
        [_tool("desktop-file-validate"), str(DESKTOP)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "error:" not in out.stdout + out.stderr


def test_desktop_file_keys():
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str  # keys are case-sensitive
    cp.read(DESKTOP, encoding="utf-8")
    entry = cp["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "ftcost-gui %F"
    assert entry["Icon"] == APP_ID
    assert "application/x-ftcost" in entry["MimeType"].split(";")
    assert entry["Categories"] == "Development;Science;"
    assert entry["Terminal"] == "false"


def test_metainfo_validates():
    out = subprocess.run(
        [_tool("appstreamcli"), "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_metainfo_content():
    root = ET.parse(METAINFO).getroot()  # expands the PROJECT_URL entity
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("project_license") == "MIT"
    assert root.findtext("launchable") == DESKTOP.name
    image = root.find("screenshots/screenshot/image")
    assert image is not None and image.text.startswith("https://")
    assert image.text.endswith("/docs/screenshot.png")
    assert root.findtext("url[@type='homepage']").startswith("https://")
    release = root.find("releases/release")
    assert release.get("version") == "0.1.0" and release.get("date") == "2026-11-29"
    assert release.find("description") is not None
    assert root.findtext("provides/mediatype") == "application/x-ftcost"


def test_mime_xml_names_ftcost_and_magic_matches_examples():
    root = ET.parse(MIME_XML).getroot()
    (mime,) = root.findall(f"{MIME_NS}mime-type")
    assert mime.get("type") == "application/x-ftcost"
    assert [g.get("pattern") for g in mime.findall(f"{MIME_NS}glob")] == ["*.ftcost"]
    assert mime.find(f"{MIME_NS}sub-class-of").get("type") == "application/json"
    match = mime.find(f"{MIME_NS}magic/{MIME_NS}match")
    start, end = (int(x) for x in match.get("offset").split(":"))
    examples = sorted((ROOT / "resources" / "examples").glob("*.ftcost"))
    assert examples
    for path in examples:
        head = path.read_bytes()[start : end + len(match.get("value"))]
        assert match.get("value").encode() in head, path.name


# -- icons ----------------------------------------------------------------------------------------


def test_svg_sources_parse():
    for name in ("ftcost.svg", "ftcost-16.svg"):
        root = ET.parse(ICONS / name).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.get("viewBox")


@pytest.mark.parametrize("size", PNG_SIZES)
def test_png_icon_sizes(size):
    path = ICONS / "hicolor" / f"{size}x{size}" / "apps" / "ftcost.png"
    width, height, colour = png_size(path.read_bytes())
    assert (width, height) == (size, size)
    assert colour == 6, "RGBA expected (transparent corners)"


def test_ico_holds_the_windows_sizes():
    data = (ICONS / "ftcost.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        w, h, _c, _r, _planes, _bpp, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i : 22 + 16 * i]
        )
        width, height, _ = png_size(data[offset : offset + length])
        assert (width, height) == (w or 256, h or 256)
        sizes.append(width)
    assert sorted(sizes) == list(ICO_SIZES)


def test_ico_writer_round_trip():
    sys.path.insert(0, str(PKG))
    try:
        import render_icons
    finally:
        sys.path.remove(str(PKG))
    png16 = (ICONS / "hicolor" / "16x16" / "apps" / "ftcost.png").read_bytes()
    png256 = (ICONS / "hicolor" / "256x256" / "apps" / "ftcost.png").read_bytes()
    data = render_icons.ico_bytes({256: png256, 16: png16})
    assert struct.unpack("<HHH", data[:6]) == (0, 1, 2)
    assert data[6] == 16 and data[22] == 0  # 256 is written as 0
    assert data.endswith(png256)


# -- install.sh / uninstall.sh --------------------------------------------------------------------


def _run(*cmd: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def _files(top: Path) -> set[str]:
    return {str(p.relative_to(top)) for p in top.rglob("*") if p.is_file() or p.is_symlink()}


@posix_only
def test_install_uninstall_round_trip(tmp_path):
    prefix = tmp_path / "prefix"
    _run("bash", LINUX / "install.sh", "--prefix", prefix)
    share = prefix / "share"
    expected = {
        f"share/applications/{APP_ID}.desktop",
        f"share/metainfo/{APP_ID}.metainfo.xml",
        f"share/mime/packages/{APP_ID}.xml",
        f"share/icons/hicolor/scalable/apps/{APP_ID}.svg",
    } | {f"share/icons/hicolor/{n}x{n}/apps/{APP_ID}.png" for n in PNG_SIZES}
    assert expected <= _files(prefix)
    assert (share / "applications" / f"{APP_ID}.desktop").read_text() == DESKTOP.read_text()
    if shutil.which("update-mime-database"):
        assert "application/x-ftcost:*.ftcost" in (share / "mime" / "globs2").read_text()
    if shutil.which("update-desktop-database"):
        cache = (share / "applications" / "mimeinfo.cache").read_text()
        assert f"application/x-ftcost={APP_ID}.desktop;" in cache

    _run("bash", LINUX / "uninstall.sh", "--prefix", prefix)
    assert not (expected & _files(prefix))
    if shutil.which("update-mime-database"):
        assert "ftcost" not in (share / "mime" / "globs2").read_text()


@posix_only
def test_install_with_bundle_links_and_removes_it(tmp_path):
    bundle = tmp_path / "dist" / "ftcost"
    (bundle / "_internal").mkdir(parents=True)
    for exe in ("ftcost-gui", "ftcost"):
        (bundle / exe).write_text("#!/bin/sh\necho ftcost-fake\n")
        (bundle / exe).chmod(0o755)
    prefix = tmp_path / "prefix"
    _run("bash", LINUX / "install.sh", "--prefix", prefix, "--bundle", bundle)
    gui = prefix / "bin" / "ftcost-gui"
    assert gui.is_symlink() and os.readlink(gui).endswith("share/ftcost/bundle/ftcost-gui")
    assert subprocess.run([str(gui)], capture_output=True, text=True).stdout == "ftcost-fake\n"
    desktop = (prefix / "share" / "applications" / f"{APP_ID}.desktop").read_text()
    assert f'Exec="{prefix.resolve()}/bin/ftcost-gui" %F' in desktop
    if shutil.which("desktop-file-validate"):
        _run("desktop-file-validate", prefix / "share" / "applications" / f"{APP_ID}.desktop")

    _run("bash", LINUX / "uninstall.sh", "--prefix", prefix)
    assert not gui.exists() and not gui.is_symlink()
    assert not (prefix / "bin" / "ftcost").is_symlink()
    assert not (prefix / "share" / "ftcost").exists()
    assert bundle.is_dir()  # the source bundle is never touched


@posix_only
def test_uninstall_keeps_a_foreign_ftcost_gui(tmp_path):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    mine = prefix / "bin" / "ftcost-gui"
    mine.write_text("#!/bin/sh\n")  # e.g. pip's launcher
    _run("bash", LINUX / "uninstall.sh", "--prefix", prefix)
    assert mine.is_file()


# -- scripts and the PyInstaller spec -------------------------------------------------------------


SCRIPTS = [
    PKG / "build.sh",
    PKG / "smoke.sh",
    LINUX / "install.sh",
    LINUX / "uninstall.sh",
]


@posix_only
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_are_executable_bash(script):
    assert script.stat().st_mode & stat.S_IXUSR, f"chmod +x {script}"
    assert script.read_text().startswith("#!/usr/bin/env bash\n")
    _run("bash", "-n", script)
    assert f"packaging/{script.relative_to(PKG)}" in _run("bash", script, "--help").stdout


def _spec_excludes() -> list[str]:
    tree = ast.parse(SPEC.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXCLUDES":
            return ast.literal_eval(node.value)
    raise AssertionError("EXCLUDES not found in the spec")


def test_spec_bundles_resources_and_excludes_unused_qt():
    text = SPEC.read_text()
    assert '(RESOURCES, "ftcost_gui/resources")' in text
    assert 'RESOURCES = os.path.join(ROOT, "resources")' in text
    excludes = _spec_excludes()
    for mod in (
        "PySide6.QtNetwork",
        "PySide6.QtQml",
        "PySide6.QtQuick",
        "PySide6.QtSql",
        "tkinter",
    ):
        assert mod in excludes
    # pyqtgraph imports these at start-up (ecosystem-notes §3.1): excluding them breaks the app.
    for mod in (
        "pydoc",
        "PySide6.QtSvg",
        "PySide6.QtTest",
        "PySide6.QtOpenGL",
        "PySide6.QtOpenGLWidgets",
        "PySide6.QtWidgets",
        "PySide6.QtGui",
    ):
        assert mod not in excludes
    assert "translations/" in text and "libqgtk3" in text
    assert 'os.path.join(ICONS, "ftcost.ico")' in text
    for key in ("CFBundleDocumentTypes", "UTExportedTypeDeclarations", "public.json", '"ftcost"'):
        assert key in text
    assert 'if sys.platform == "darwin":' in text
    for entry in ("entry_gui.py", "entry_cli.py"):
        assert (PKG / entry).is_file() and entry in text


def test_spec_is_valid_python():
    compile(SPEC.read_text(), str(SPEC), "exec")


@posix_only
def test_smoke_script_accepts_the_window_line_and_rejects_silence(tmp_path):
    good = tmp_path / "good"
    bad = tmp_path / "bad"
    for folder, body in (
        (good, 'echo "ftcost: window shown after 0.87 s"\nexit 0\n'),
        (bad, 'echo "Traceback: boom" >&2\nexit 1\n'),
    ):
        folder.mkdir()
        exe = folder / "ftcost-gui"
        exe.write_text("#!/bin/sh\n" + body)
        exe.chmod(0o755)
    ok = subprocess.run(
        ["bash", PKG / "smoke.sh", "--no-build", "--bundle", good, "--timeout", "10"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ftcost: window shown after 0.87 s" in ok.stdout
    assert "bundle size:" in ok.stdout
    fail = subprocess.run(
        ["bash", PKG / "smoke.sh", "--no-build", "--bundle", bad, "--timeout", "10"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert fail.returncode == 1
    assert "boom" in fail.stdout


# -- About dialog ---------------------------------------------------------------------------------


def test_about_facts_show_version_licence_and_price_dates():
    from ftcost_gui import __version__
    from ftcost_gui.gui.about import about_facts
    from ftcost_gui.io.resources import builtin_catalog

    facts = about_facts()
    assert facts["version"] == __version__
    assert facts["license"] == "MIT"
    dates = sorted(g.price_as_of for g in builtin_catalog().gpus if g.price_as_of)
    assert dates[0] in facts["gpu_prices"] and dates[-1] in facts["gpu_prices"]
    assert "presets" in facts["model_presets"]


def test_about_dialog_builds_without_showing(qtbot):
    from ftcost_gui import __version__
    from ftcost_gui.gui.about import AboutDialog

    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    assert __version__ in dialog.text_label.text()
    assert "MIT" in dialog.text_label.text()
    assert not dialog.icon_label.pixmap().isNull()
    assert not dialog.isVisible()
