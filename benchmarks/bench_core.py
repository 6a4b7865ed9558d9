"""Core speed: one complete estimate including validation, and a 10,000-scenario sweep.

Targets (core issue): one estimate ≤ 100 µs median; a 10,000-point sweep ≤ 0.2 s.
Run: python benchmarks/bench_core.py

The estimate remembers its last few memory steps (core/estimate.py ``_memory_step``): estimating
the same inputs again, or inputs that differ where memory does not depend on them (MFU, prices,
data size: the window's usual edit), skips them. "memory new" forgets them before each estimate:
what an edit of memory, a new model or a new GPU costs. Wall-clock medians and the
least process CPU time per estimate (steadier on a loaded machine) are both printed.
"""

from __future__ import annotations

import importlib
import statistics
import time

from ftcost_gui.core import EstimateInputs, estimate, sweep_mfu


def median_us(fn, repeats: int = 2000) -> float:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def cpu_us(fn, repeats: int = 300, rounds: int = 9) -> float:
    """The least process CPU time per call over a few rounds."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(repeats):
            fn()
        best = min(best, (time.process_time() - t0) / repeats)
    return best * 1e6


def main() -> None:
    doc = EstimateInputs().model_dump(mode="json")

    def one() -> None:
        estimate(EstimateInputs.model_validate(doc))

    for _ in range(200):
        one()
    print(f"one estimate incl. validation: median {median_us(one):.1f} µs (target ≤ 100 µs)")
    inputs = EstimateInputs.model_validate(doc)
    print(f"estimate only:                 median {median_us(lambda: estimate(inputs)):.1f} µs")
    memo = importlib.import_module("ftcost_gui.core.estimate")._MEMORY_MEMO

    def memory_new() -> None:  # the same inputs, nothing remembered: memory computed again
        memo.clear()
        estimate(inputs)

    print(f"estimate only, memory new:     median {median_us(memory_new):.1f} µs")
    print(
        f"least CPU per estimate:        {cpu_us(lambda: estimate(inputs)):.1f} µs; memory new "
        f"{cpu_us(memory_new):.1f} µs; incl. validation {cpu_us(one):.1f} µs"
    )

    mfus = [0.05 + 0.55 * i / 9999 for i in range(10_000)]
    runs = []
    for _ in range(7):
        t0 = time.perf_counter()
        sweep_mfu(inputs, mfus)
        runs.append(time.perf_counter() - t0)
    print(
        f"10,000-scenario MFU sweep:     median {statistics.median(runs) * 1e3:.1f} ms"
        " (target ≤ 200 ms)"
    )


if __name__ == "__main__":
    main()
