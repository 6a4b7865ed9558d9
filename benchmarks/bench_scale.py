"""Scale benchmarks (prints figures; not a test). Run from the repo root:

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_scale.py [--rows 5000]

Scenarios (issue 17): a document of 200 and 1,000 scenarios that all differ, generated here. One
edit of the selected scenario (the baseline; and one that is not) with the Compare tab on
screen, and with the "All scenarios" charts on screen; opening those charts; beside them the
same edit in a one-scenario document (the bare window: forms, headline, by-method plots),
measured in the same run, and the ratio.

"Which GPU" with a large user catalog (issue 17), generated here in a temporary config folder:

- ``offers``: what a real 5,000-row catalog is, every built-in GPU rented from many providers,
  regions and pricing tiers (rows of one GPU differ in price and provider only);
- ``distinct``: the worst case, 5,000 GPUs that all differ in their specs.

For each: the first show of the tab (switch to it → the ranked table complete), one edit with the
tab visible (the edit path: the store's edit and everything connected to it, which includes the
first slice of the comparison; then edit → table complete), one edit with the tab hidden, and
adopting a GPU from the table. The estimates each step ran are counted as well (plans: whole
GPU plans; finishes: one per offer). Times are medians over repeats; absolute times vary with the
machine's load (the bare edit, same window with the tab hidden, is printed beside them).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PROVIDERS = (
    "AWS", "Azure", "GCP", "Lambda", "CoreWeave", "RunPod", "Nebius", "Vast.ai", "Hyperstack",
    "Together", "Akash", "Crusoe", "Paperspace", "OCI", "Vultr", "Jarvislabs",
)  # fmt: skip
REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1", "ap-south-1")
TIERS = ("on_demand", "spot", "committed_1y", "committed_3y")
TIER_FACTOR = {"on_demand": 1.0, "spot": 1.0, "committed_1y": 0.72, "committed_3y": 0.55}


def offers_catalog(n: int):
    """n rows: built-in GPUs × providers × regions × tiers, prices spread deterministically."""
    from ftcost_gui.core.catalog import GpuCatalog
    from ftcost_gui.io.resources import builtin_catalog

    gpus = builtin_catalog().gpus
    rows = []
    i = 0
    while len(rows) < n:
        g = gpus[i % len(gpus)]
        k = i // len(gpus)
        provider = PROVIDERS[k % len(PROVIDERS)]
        region = REGIONS[(k // len(PROVIDERS)) % len(REGIONS)]
        tier = TIERS[(k // (len(PROVIDERS) * len(REGIONS))) % len(TIERS)]
        spread = 0.8 + 0.4 * ((i * 7919) % 101) / 100  # 0.8 … 1.2
        od = round(g.on_demand_usd_per_hour * spread * TIER_FACTOR[tier], 4)
        spot = g.spot_usd_per_hour if g.spot_usd_per_hour is not None else round(od * 0.6, 4)
        rows.append(
            g.model_copy(
                update={
                    "id": f"{g.id}-{provider}-{region}-{tier}".lower().replace(".", ""),
                    "provider": provider,
                    "region": region,
                    "pricing_tier": tier,
                    "on_demand_usd_per_hour": od,
                    "spot_usd_per_hour": spot,
                }
            )
        )
        i += 1
    return GpuCatalog(name="Offers", gpus=tuple(rows))


def distinct_catalog(n: int):
    """n GPUs that all differ in their specs (memory and TFLOPS): nothing can be shared."""
    from ftcost_gui.core.catalog import GpuCatalog
    from ftcost_gui.io.resources import builtin_catalog

    gpus = builtin_catalog().gpus
    rows = []
    for i in range(n):
        g = gpus[i % len(gpus)]
        rows.append(
            g.model_copy(
                update={
                    "id": f"{g.id}-v{i}",
                    "memory_gib": round(g.memory_gib * (0.9 + (i % 97) / 480), 3),
                    "bf16_tflops": round(g.bf16_tflops * (0.8 + (i % 89) / 220), 3),
                }
            )
        )
    return GpuCatalog(name="Distinct", gpus=tuple(rows))


def _ms(f: Callable[[], object]) -> float:
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1e3


def _line(label: str, ms: float, work: tuple[int, int] | None = None, extra: str = "") -> None:
    counted = f"   ({work[0]:,} plans, {work[1]:,} finishes)" if work is not None else ""
    print(f"{label:<34}{ms:8.1f} ms{counted}{extra}")


def which_gpu(catalog, repeats: int) -> None:
    from PySide6.QtWidgets import QApplication

    from ftcost_gui.gui.app import build_window
    from ftcost_gui.io.catalog_store import CatalogStore

    app = QApplication.instance() or QApplication([])
    store = CatalogStore()
    store.save(catalog)
    store.set_active(catalog.name)
    w = build_window(build_plots_now=True)
    w.resize(1600, 1000)
    w.show()
    app.processEvents()
    # What the app does once its plots are drawn (gui/app._collect_once_settled), before a user
    # can reach the tab: one collection, and what survives it (modules, models, widgets) left
    # out of later ones. Without it the comparison's objects set off full collections that scan
    # the whole window's (~0.1 s of a first show) as no started window does.
    gc.collect()
    gc.freeze()
    ui = w.addons["catalogs"]
    tab = ui.which_gpu
    n = len(ui.service.offers)

    def done() -> None:
        while tab.stale or tab._job is not None:
            app.processEvents()

    def work() -> tuple[int, int]:
        return tab.comparer.plans, tab.comparer.finishes

    def since(before: tuple[int, int]) -> tuple[int, int]:
        now = work()
        return now[0] - before[0], now[1] - before[1]

    mfu = iter(0.30 + i * 0.001 for i in range(10_000))

    def edit() -> None:
        w.store.set_field("efficiency", "mfu", next(mfu))
        w.store.recompute_now()

    print(f"\n## Which GPU, catalog '{catalog.name}': {n:,} rows")
    # First show: switch to the tab, until the ranked table is complete.
    before = work()
    first = _ms(lambda: (ui.show_compare(), done()))
    _line("first show → table complete", first, since(before))
    # One edit, tab visible: the edit path (first slice included), then until complete.
    path, total = [], []
    for _ in range(repeats):
        before = work()
        t = time.perf_counter()
        edit()
        path.append((time.perf_counter() - t) * 1e3)
        done()
        total.append((time.perf_counter() - t) * 1e3)
    last = since(before)
    _line("one edit, visible: edit path", statistics.median(path), extra=f" (max {max(path):.1f})")
    _line("one edit, visible: table complete", statistics.median(total), last)
    # Adopt a GPU from the table: only the estimate's own GPU changes.
    view = tab.view
    before = work()
    adopt = _ms(lambda: (view._adopt(5), w.store.recompute_now(), done()))
    _line("adopt a GPU → table complete", adopt, since(before))
    # Hidden: the same edit costs what the window costs without the tab.
    w.results.tabs.setCurrentIndex(0)
    app.processEvents()
    hidden = []
    before = work()
    for _ in range(repeats):
        hidden.append(_ms(edit))
    per_edit = since(before)
    _line("one edit, hidden (bare window)", statistics.median(hidden), per_edit)
    w.store.set_dirty(False)
    w.close()
    w.deleteLater()
    app.processEvents()
    store.set_active(None)
    gc.unfreeze()  # the next window's run starts as this one did


def which_gpu_core(catalog, repeats: int) -> None:
    """The same comparison without the window: ``GpuComparer.rows`` for every offer (core only),
    first for new inputs, then after an MFU edit (every plan again: the MFU is an input)."""
    from ftcost_gui.core import EstimateInputs, remembered
    from ftcost_gui.core.compare import GpuComparer, offer

    offers = [offer(g) for g in catalog.gpus]
    inputs = EstimateInputs()
    print(f"\n## Which GPU, core only, catalog '{catalog.name}': {len(offers):,} rows")
    first, cpu = [], []
    for i in range(repeats):
        remembered.clear()
        comparer = GpuComparer()
        edited = inputs.edited("efficiency", mfu=0.30 + i * 0.001)
        t, c = time.perf_counter(), time.process_time()
        comparer.rows(edited, offers)
        first.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    work = (comparer.plans, comparer.finishes)
    least = f"   least CPU {min(cpu):.1f} ms"
    _line("every row, new inputs", statistics.median(first), work, least)


def _scaled(field: str, value: float, factor: float) -> float | int:
    v = value * factor
    return round(v) if field == "num_examples" else v


def scenario_document(inputs, n: int):
    """n scenarios that all differ in their figures (none shares another's estimate)."""
    from ftcost_gui.core.document import EstimateDocument, Scenario

    field = "total_tokens" if inputs.data.mode == "tokens" else "num_examples"
    size = getattr(inputs.data, field)
    return field, EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"Scenario {i + 1}",
                inputs=inputs.edited("data", **{field: _scaled(field, size, 1 + i / 997)}),
            )
            for i in range(n)
        )
    )


def scenarios(sizes: list[int], repeats: int) -> None:
    from PySide6.QtWidgets import QApplication

    from ftcost_gui.core.document import EstimateDocument
    from ftcost_gui.gui.app import build_window

    app = QApplication.instance() or QApplication([])
    w = build_window(build_plots_now=True)
    w.resize(1600, 1000)
    w.show()
    app.processEvents()
    base = w.store.inputs
    factor = iter(1.0 + i / 9973 for i in range(1, 100_000))

    def edit(field: str) -> float:
        inputs = w.store.inputs
        t = time.perf_counter()
        w.store.set_field("data", field, _scaled(field, getattr(inputs.data, field), next(factor)))
        w.store.recompute_now()
        app.processEvents()  # painted
        return (time.perf_counter() - t) * 1e3

    def median_edit(field: str) -> float:
        return statistics.median(edit(field) for _ in range(repeats))

    print("\n## Scenarios: one edit of the selected scenario (painted), medians")
    field, _ = scenario_document(base, 1)
    w.store.set_document(EstimateDocument.single(base))
    w.results.show_tab(w.charts)
    w.charts.set_mode("method")
    app.processEvents()
    bare = median_edit(field)
    _line("bare window (1 scenario, by method)", bare)
    for n in sizes:
        field, doc = scenario_document(base, n)
        w.store.set_document(doc)
        w.results.show_tab(w.results.compare)
        app.processEvents()
        ms = median_edit(field)
        _line(f"{n:,} scenarios, Compare tab", ms, extra=f"   ratio {ms / bare:.1f}× bare")
        # The baseline's edit changes every delta on screen; another scenario's, its column.
        w.store.select_scenario(n // 2)
        app.processEvents()
        ms = median_edit(field)
        _line("  the same, not the baseline", ms, extra=f"   ratio {ms / bare:.1f}× bare")
        w.store.select_scenario(0)
        w.results.show_tab(w.charts)
        w.charts.set_mode("method")
        app.processEvents()
        t = time.perf_counter()
        w.charts.set_mode("scenarios")
        app.processEvents()
        opened = (time.perf_counter() - t) * 1e3
        _line(
            f"{n:,} scenarios, open 'All scenarios'", opened, extra=f"   ratio {opened / bare:.1f}×"
        )
        ms = median_edit(field)
        _line(
            f"{n:,} scenarios, 'All scenarios' charts", ms, extra=f"   ratio {ms / bare:.1f}× bare"
        )
        w.charts.set_mode("method")
    w.store.set_dirty(False)
    w.close()
    w.deleteLater()
    app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scenarios", default="200,1000", help="sizes, comma-separated")
    parser.add_argument("--only", choices=("scenarios", "offers", "distinct"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cfg:
        os.environ["FTCOST_CONFIG_DIR"] = cfg
        print(
            f"# bench_scale: scenarios, Which GPU with {args.rows:,}-row catalogs "
            f"(python {sys.version[:6]})"
        )
        if args.only in (None, "scenarios"):
            sizes = [int(x) for x in args.scenarios.split(",") if x]
            scenarios(sizes, args.repeats)
        if args.only in (None, "offers"):
            which_gpu_core(offers_catalog(args.rows), args.repeats)
            which_gpu(offers_catalog(args.rows), args.repeats)
        if args.only in (None, "distinct"):
            which_gpu_core(distinct_catalog(args.rows), args.repeats)
            which_gpu(distinct_catalog(args.rows), args.repeats)


if __name__ == "__main__":
    main()
