"""pyqtgraph loaded with the modules the charts use, the rest on first use (charts/pg_lite.py;
issue 17: start-up). In fresh processes (pyqtgraph loads once per process): a full load as
pyqtgraph does it, and the light one — each name the light load has is the same object as in
the full one, before and after the rest is asked for, and the rest comes on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

DESCRIBE = r"""
import json, sys, types
def describe(value):
    if isinstance(value, types.ModuleType):
        return ["module", value.__name__]
    if isinstance(value, (str, int, float, bool, type(None))):
        return [type(value).__name__, repr(value)]
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str) and (isinstance(value, type) or callable(value)):
        return [type(value).__name__, getattr(value, "__module__", None), name]
    return [type(value).__name__]
def names(module):
    skip = ("__getattr__", "__builtins__")
    return {k: describe(v) for k, v in vars(module).items() if k not in skip}
def ours(prefix):
    return sorted(m for m in sys.modules if m == prefix or m.startswith(prefix + "."))
"""

FULL = (
    DESCRIBE
    + r"""
import pyqtgraph as pg
print(json.dumps({"names": names(pg), "modules": ours("pyqtgraph")}))
"""
)

LITE = (
    DESCRIBE
    + r"""
from ftcost_gui.charts import pg_lite  # the charts package installs it on import
installed = pg_lite._finder in sys.meta_path
import pyqtgraph as pg
light = {"names": names(pg), "modules": ours("pyqtgraph"), "on_use": "__getattr__" in vars(pg),
         "curve": "PlotCurveItem" in vars(pg)}
from ftcost_gui.charts import CostPlot, MemoryPlot  # every chart module: their names resolve
from ftcost_gui.charts import scenario_plots, export, plan_plot  # noqa
charts = {"on_use": "__getattr__" in vars(pg), "modules": len(ours("pyqtgraph"))}
image_view = pg.ImageView  # not used by the charts: the rest of the namespace loads now
print(json.dumps({
    "installed": installed, "removed": pg_lite._finder not in sys.meta_path,
    "light": light, "charts": charts, "after": {"names": names(pg), "modules": ours("pyqtgraph"),
    "on_use": "__getattr__" in vars(pg)}, "image_view": image_view.__module__,
    "again": pg_lite.install(),
}))
"""
)


def _run(code: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


@pytest.fixture(scope="module")
def loads() -> tuple[dict, dict]:
    return _run(FULL), _run(LITE)


def test_the_light_load_has_the_same_objects_and_the_rest_on_first_use(loads):
    full, lite = loads
    assert lite["installed"] and lite["removed"]  # one load, then the finder is gone
    light = lite["light"]
    assert light["on_use"]
    # A module the charts' modules load anyway has its names bound (PlotDataItem loads
    # PlotCurveItem): asking for them runs nothing more.
    assert light["curve"]
    # Every name of the light load is what the full load binds it to (classes, functions,
    # modules by qualified name; constants by value).
    differ = {
        k: (v, full["names"].get(k)) for k, v in light["names"].items() if full["names"].get(k) != v
    }
    assert differ == {}
    # The light load skips most of pyqtgraph: the image views, parameter trees, the
    # multiprocess remote view… (0.14: 55 of 145 modules with the charts; checked in
    # benchmarks/bench_gui.py, ~100 ms CPU less when the plots first load).
    assert "pyqtgraph.parametertree" not in light["modules"]
    assert "pyqtgraph.multiprocess" not in light["modules"]
    assert "pyqtgraph.imageview" not in light["modules"]
    assert len(light["modules"]) < 0.75 * len(full["modules"])
    # The chart modules use only names the light load has: none asks for the rest.
    assert lite["charts"]["on_use"]
    assert lite["charts"]["modules"] < 0.75 * len(full["modules"])
    # Asking for any other name runs the whole namespace: then it is the full load's, name for name.
    after = lite["after"]
    assert not after["on_use"]
    assert {k: after["names"].get(k) for k in full["names"]} == full["names"]
    extra = {k: v for k, v in after["names"].items() if k not in full["names"]}
    assert extra == {}  # charts/export imports pyqtgraph.exporters only to export a PNG
    assert lite["image_view"] == "pyqtgraph.imageview.ImageView"
    assert set(full["modules"]) <= set(after["modules"])
    assert lite["again"] is False  # pyqtgraph loaded: nothing to install


def test_another_init_loads_as_usual():
    from ftcost_gui.charts import pg_lite

    assert pg_lite.split_init("import os\nfrom .colormap import *\n") is None
    assert (
        pg_lite.split_init("from .widgets.VerticalLabel import *\nfrom .colormap import *") is None
    )
    odd = "x = 1\nfrom .colormap import *\nx = 2\nfrom .widgets.VerticalLabel import *\n"
    assert pg_lite.split_init(odd) is None  # a statement inside the block: not cut
    head, rest, tail = pg_lite.split_init(
        "a = 1\nfrom .colormap import *\nfrom .functions import *\n# note\n"
        "from .widgets.VerticalLabel import *\ndef f(): pass\n"
    )
    # Lines stay in place (tracebacks keep their numbers); the block's EAGER lines run at once.
    assert head.split("\n") == ["a = 1", "", "from .functions import *", "", ""]
    assert rest.split("\n")[1:5] == [
        "from .colormap import *",
        "from .functions import *",
        "# note",
        "from .widgets.VerticalLabel import *",
    ]
    assert tail.split("\n")[5] == "def f(): pass" and tail.split("\n")[:5] == [""] * 5
