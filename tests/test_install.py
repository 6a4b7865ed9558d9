"""Resources are found from a regular (non-editable) install, not only from the checkout."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest


def test_installed_package_finds_its_resources(tmp_path):
    try:
        dist = importlib.metadata.distribution("ftcost-gui")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("ftcost-gui is not installed in this environment")
    if any(str(f).endswith(".pth") for f in dist.files or []):
        pytest.skip("editable install: the source tree is used")
    code = (
        "import ftcost_gui, pathlib; from ftcost_gui.io.resources import resources_root, "
        "builtin_catalog; root = resources_root(); "
        "assert 'site-packages' in str(root), root; print(len(builtin_catalog().gpus))"
    )
    # Run outside the checkout so the installed copy, not the source tree, is imported.
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env={}
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 30
