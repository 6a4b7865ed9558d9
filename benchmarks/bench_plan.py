"""Plan search speed: a full search over the built-in catalog × 4 methods × counts × batches.

Target (issue 14): ≤ 0.5 s on the 2-core CI machine. Prints the search time (median of 7), the
candidates judged per second, and the estimates the bounds left to run.
Run: python benchmarks/bench_plan.py
"""

from __future__ import annotations

import statistics
import time

from ftcost_gui.core.catalog import merge_catalogs
from ftcost_gui.core.compare import offer
from ftcost_gui.core.defaults import new_inputs
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.plan_space import PlanConstraints
from ftcost_gui.core.planner import search_plans
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

TARGET_S = 0.5


def scenario():
    """Llama-3.1-8B on 200M tokens of 2,048-token rows, an effective batch of 128 sequences."""
    rows = merge_catalogs(builtin_catalog())
    doc = new_inputs(rows).model_dump()
    preset = builtin_presets().find("llama-3.1-8b")
    assert preset is not None
    doc["model"] = preset.spec.model_dump()
    doc["data"].update(mode="tokens", total_tokens=2e8, max_seq_len=2048)
    doc["training"].update(method="lora", micro_batch=4, grad_accum=4, num_gpus=8)
    doc["training"]["auto_gpu_count"] = False
    return EstimateInputs.model_validate(doc), [offer(r) for r in rows]


def timed(fn, repeats: int = 7) -> tuple[float, object]:
    runs, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), out


def main() -> None:
    inputs, offers = scenario()
    t_est, _ = timed(lambda: estimate(inputs), 200)
    cases = {
        "4 methods, no constraint": PlanConstraints(),
        "4 methods, deadline 24 h, budget $500": PlanConstraints(deadline_h=24, budget_usd=500),
        "4 methods, spot": PlanConstraints(billing="spot"),
        "LoRA only, deadline 24 h": PlanConstraints(deadline_h=24, methods=("lora",)),
    }
    print(f"built-in catalog: {len(offers)} GPUs; one estimate: {t_est * 1e6:.0f} µs")
    for name, c in cases.items():
        t, s = timed(lambda c=c: search_plans(inputs, offers, c))
        per_s = s.candidates / t  # type: ignore[attr-defined]
        print(
            f"{name:40s} {t * 1e3:6.0f} ms (target ≤ {TARGET_S * 1e3:.0f} ms)  "
            f"{s.candidates:6d} plans judged = {per_s:9,.0f} plans/s; "  # type: ignore[attr-defined]
            f"{s.plans_run} estimates run; front {len(s.ranked)}"  # type: ignore[attr-defined]
        )


if __name__ == "__main__":
    main()
