"""Core speed: one complete estimate including validation, and MFU sweeps.

Targets (core issue, issue 17): one estimate ≤ 100 µs median; a 10,000-point sweep ≤ 0.2 s; a
1,000,000-point sweep ≤ 1.5 s, linear from 10,000 (the same time per point).
Run: python benchmarks/bench_core.py

The estimate remembers its last few memory steps, jobs and plans (core/remembered.py): inputs
that differ where memory does not depend on them skip the memory steps; an MFU or price edit
(the window's usual edit) takes the remembered plan, the MFU-free part (estimate.plan), and
computes the rest (estimate.finish); an edit of the epochs plans again on remembered memory.
Nothing remembers a whole estimate, and the "one estimate" rows never repeat their inputs: each
call validates a document whose MFU (price, epochs) differs from the call before, as an edit in
the window does (validation takes the sections a document repeats from the inputs validated
before it, core/validated.py; the finish copies what it made once for the remembered plan,
core/finishing.py). "memory new" forgets everything remembered before each estimate: what a new
model or GPU costs. Wall-clock medians and the least process CPU time per estimate (steadier on
a loaded machine) are printed.
"""

from __future__ import annotations

import statistics
import time

from ftcost_gui.core import EstimateInputs, estimate, remembered, sweep_columns, sweep_mfu
from ftcost_gui.core.estimate import plan


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


def edited_docs(section: str, field: str, values: list[float]) -> list[dict]:
    """Input documents that differ from the defaults in one field, one value each."""
    docs = []
    for v in values:
        doc = EstimateInputs().model_dump(mode="json")
        node = doc["hardware"]["gpu"] if section == "gpu" else doc[section]
        node[field] = v
        docs.append(doc)
    return docs


def cycling(docs: list[dict]):
    """An estimate of the next document each call (validated first): never the same inputs twice
    in a row."""
    at = [0]

    def one() -> None:
        at[0] = (at[0] + 1) % len(docs)
        estimate(EstimateInputs.model_validate(docs[at[0]]))

    return one


def main() -> None:
    mfu_edit = cycling(edited_docs("efficiency", "mfu", [0.30 + i * 0.001 for i in range(200)]))
    price_edit = cycling(
        edited_docs("gpu", "on_demand_usd_per_hour", [2.0 + i * 0.01 for i in range(200)])
    )
    data_edit = cycling(edited_docs("data", "epochs", [2.0 + i * 0.01 for i in range(200)]))
    for _ in range(200):
        mfu_edit()
        price_edit()
        data_edit()
    print(
        f"one estimate incl. validation: median {median_us(mfu_edit):.1f} µs an MFU edit, "
        f"{median_us(price_edit):.1f} µs a price edit (target ≤ 100 µs); "
        f"{median_us(data_edit):.1f} µs an epochs edit (plans again)"
    )
    inputs = EstimateInputs()
    print(f"estimate only (same inputs):   median {median_us(lambda: estimate(inputs)):.1f} µs")

    def memory_new() -> None:  # the same inputs, nothing remembered: memory computed again
        remembered.clear()
        estimate(inputs)

    print(f"estimate only, memory new:     median {median_us(memory_new):.1f} µs")
    print(
        f"least CPU per estimate:        MFU edit incl. validation {cpu_us(mfu_edit):.1f} µs; "
        f"price edit {cpu_us(price_edit):.1f} µs; epochs edit {cpu_us(data_edit):.1f} µs; "
        f"memory new {cpu_us(memory_new):.1f} µs"
    )

    mfus = [0.05 + 0.55 * i / 9999 for i in range(10_000)]
    runs = []
    for _ in range(7):
        t0 = time.perf_counter()
        sweep_mfu(inputs, mfus)
        runs.append(time.perf_counter() - t0)
    print(
        f"10,000-scenario MFU sweep:     median {statistics.median(runs) * 1e3:.1f} ms"
        " (target ≤ 200 ms; sweep_mfu: a plan and a point object each)"
    )
    p = plan(inputs)
    for n, repeats in ((10_000, 21), (1_000_000, 3)):
        mfus = [0.05 + 0.55 * i / (n - 1) for i in range(n)]
        wall, cpu = [], []
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            sweep_columns(p, mfus)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(
            f"{n:>9,}-point sweep (columns): median {statistics.median(wall) * 1e3:8.1f} ms, "
            f"least CPU {min(cpu) * 1e3:8.1f} ms = {min(cpu) / n * 1e6:.3f} µs a point"
            + (" (target ≤ 1.5 s)" if n == 1_000_000 else "")
        )


if __name__ == "__main__":
    main()
