"""Write the measured-accuracy table into docs/accuracy.md: ``python -m validation.report``.

Median and worst relative error of the core against the records, per family × mode, for FLOPs
per step and bytes saved for backward (counts are exact and listed as such). No torch needed.
"""

from __future__ import annotations

import statistics
import sys

from . import compare as C

BEGIN = "<!-- measured-table:begin (python -m validation.report) -->"
END = "<!-- measured-table:end -->"
COLUMNS = {
    "flops": ["full", "full ckpt", "LoRA", "LoRA ckpt"],  # SDPA and eager pooled
    "saved": [
        "full", "full ckpt", "full eager", "LoRA", "LoRA ckpt", "LoRA eager", "LoRA bf16",
        "LoRA bf16 eager",
    ],
    "peak": ["full", "full ckpt", "full eager", "LoRA", "LoRA ckpt", "LoRA eager", "LoRA bf16"],
}  # fmt: skip
TITLES = {
    "flops": "FLOPs of one training step",
    "saved": "Bytes saved for backward",
    "peak": "Allocated peak of the backward, above the weights (CPU allocator timeline)",
}


def _cell(errors: list[float]) -> str:
    if not errors:
        return "—"
    worst = max(errors, key=abs)
    return f"{statistics.median(errors):+.1%} / {worst:+.1%}"


def table(rows: list[C.Row]) -> str:
    """The markdown tables (one per kind) for the given comparison rows."""
    families = list(dict.fromkeys(r.family for r in rows))
    counts = [r for r in rows if r.kind in ("params", "lora")]
    exact = sum(1 for r in counts if r.ours == r.measured)
    out = [
        f"Parameter and LoRA counts: {exact} of {len(counts)} exact "
        f"({len(families)} families, full-size configs).",
        "",
    ]
    for kind, cols in COLUMNS.items():
        out += [f"**{TITLES[kind]}** — median / worst error (ours ÷ measured − 1)", ""]
        out.append("| family | " + " | ".join(cols) + " |")
        out.append("|---" * (len(cols) + 1) + "|")
        for fam in families:
            cells = []
            for col in cols:
                errs = [
                    r.error
                    for r in rows
                    if r.family == fam and r.kind == kind and C.column(r, kind == "flops") == col
                ]
                cells.append(_cell(errs))
            out.append(f"| {fam} | " + " | ".join(cells) + " |")
        out.append("")
    n = sum(1 for r in rows if r.kind in COLUMNS)
    out.append(f"{n} comparisons in all.")
    return "\n".join(out)


def main() -> int:
    rows = [row for record in C.records() for row in C.compare(record)]
    text = C.ACCURACY_DOC.read_text()
    if BEGIN not in text or END not in text:
        print(f"{C.ACCURACY_DOC}: markers {BEGIN!r} … {END!r} not found", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    C.ACCURACY_DOC.write_text(f"{head}{BEGIN}\n{table(rows)}\n{END}{tail}")
    print(f"wrote the table to {C.ACCURACY_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
