"""A measured dataset in words: the rows the dialog and ``ftcost data`` show, and its lengths as
coarse bars. Names from the file are returned raw; each output escapes them (io/names.py)."""

from __future__ import annotations

from ..core.histogram import LengthHistogram
from ..core.inputs import EstimateInputs
from ..io.dataset import DatasetMeasure
from ..io.dataset_stream import MAX_RECORD_BYTES

FORMAT_LABELS = {
    "jsonl": "JSON Lines",
    "json": "JSON",
    "csv": "CSV",
    "tsv": "TSV",
    "text": "plain text (one example a line)",
}
PERCENTILES = (0.5, 0.9, 0.99)


def fmt_bytes(n: float) -> str:
    for div, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n:.0f} B"


def percentiles(m: DatasetMeasure) -> list[tuple[float, int]]:
    """(q, length) at the module's percentiles, from the exact lengths counted (nearest rank)."""
    return [(q, m.percentile(q)) for q in PERCENTILES]


def tokens_text(m: DatasetMeasure) -> str:
    """How the tokens were counted, exact or approximate."""
    return m.tokenizer if m.exact else f"{m.tokenizer} — an approximation"


def template_text(m: DatasetMeasure) -> str:
    """The chat template's tokens added to the content's."""
    return f"+ {m.per_message:g} tokens a message, {m.per_sequence:g} a sequence"


def summary_rows(m: DatasetMeasure) -> list[tuple[str, str]]:
    """(label, value) of the measurement, in reading order."""
    fmt = FORMAT_LABELS.get(m.format, m.format) + (", gzip" if m.compressed else "")
    rate = f" in {m.seconds:.1f} s ({m.mb_per_s:.0f} MB/s)" if m.seconds >= 0.05 else ""
    rows = [
        ("File", f"{m.name} — {fmt}, {fmt_bytes(m.bytes_total)}{rate}"),
        ("Records", f"{m.records:,}" + (f" ({m.shape_text()})" if m.shapes else "")),
    ]
    if m.pairs:
        rows.append(("Sequences", f"{m.sequences:,} (a preference pair trains two)"))
    rows.append(("Tokens", tokens_text(m)))
    rows.append(("Chat template", template_text(m)))
    if m.sequences:
        rows += [
            ("Mean tokens / sequence", f"{m.mean_tokens:,.1f}"),
            ("Shortest / longest", f"{m.shortest:,} / {m.longest:,}"),
            (
                "Percentiles",
                " · ".join(f"p{q * 100:g} {v:,}" for q, v in percentiles(m)),
            ),
            (
                "Mean prompt / answer",
                f"{m.mean_prompt_tokens:,.1f} / {m.mean_answer_tokens:,.1f} tokens",
            ),
        ]
    rows.append(("Malformed", malformed_text(m)))
    return rows


def malformed_text(m: DatasetMeasure, shown: int = 3) -> str:
    if not m.malformed:
        return "none"
    where = "; ".join(f"line {n:,}: {why}" if n else why for n, why in m.malformed_examples[:shown])
    more = f"; … {m.malformed - shown:,} more" if m.malformed > shown else ""
    return f"{m.malformed:,} skipped ({where}{more})"


def octave_bars(h: LengthHistogram, width: int = 40) -> list[tuple[str, int, str]]:
    """(range, examples, bar) per power-of-two range of lengths: the histogram at a glance."""
    buckets: dict[int, int] = {}
    for (a, _), c in zip(zip(h.edges, h.edges[1:], strict=False), h.counts, strict=True):
        k = max(a, 1).bit_length() - 1  # 2^k ≤ a < 2^(k+1)
        buckets[k] = buckets.get(k, 0) + c
    top = max(buckets.values())
    out = []
    for k in range(min(buckets), max(buckets) + 1):
        c = buckets.get(k, 0)
        lo = 0 if k == 0 else 2**k
        label = f"{lo:>9,}–{2 ** (k + 1) - 1:<9,}"
        out.append((label, c, "█" * round(width * c / top) if c else ""))
    return out


def change_rows(old: EstimateInputs, new: EstimateInputs) -> list[tuple[str, str, str]]:
    """(what, before, after) of the fields a fill changed."""
    out: list[tuple[str, str, str]] = []
    od, nd = old.data, new.data
    if old.objective.objective != new.objective.objective:
        out.append(("Objective", old.objective.objective, new.objective.objective))
    if od.mode != nd.mode:
        out.append(("Data given as", od.mode, nd.mode))
    if od.num_examples != nd.num_examples:
        out.append(("Examples", f"{od.num_examples:,}", f"{nd.num_examples:,}"))
    if od.mean_tokens_per_example != nd.mean_tokens_per_example:
        out.append(
            (
                "Mean tokens",
                f"{od.mean_tokens_per_example:,.1f}",
                f"{nd.mean_tokens_per_example:,.1f}",
            )
        )
    if od.length_histogram != nd.length_histogram:
        before = "none (log-normal spread)" if od.length_histogram is None else "measured"
        after = "none" if nd.length_histogram is None else f"{nd.length_histogram.examples:,} seq."
        out.append(("Measured lengths", before, after))
    op, np_ = old.objective.mean_prompt_tokens, new.objective.mean_prompt_tokens
    if op != np_:
        out.append(("Mean prompt length", f"{op:,.1f}", f"{np_:,.1f}"))
    return out


RECORD_CAP_TEXT = f"records longer than {MAX_RECORD_BYTES >> 20} MiB are skipped as malformed"
