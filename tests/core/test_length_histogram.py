"""The measured length histogram (core/histogram.py) as the padding model's distribution
(core/lengths.py), every expectation computed by hand."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest
from pydantic import ValidationError

from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.histogram import (
    MAX_EDGE,
    LengthHistogram,
    bin_index,
    from_counts,
    standard_edges,
)
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.lengths import HistogramLengths, LogNormalLengths, distribution, padded_rows
from ftcost_gui.io.estimate_file import dumps_estimate, loads_document, loads_estimate

DATA = Path(__file__).resolve().parents[1] / "data"

# Half the examples spread evenly over 100–200 tokens, half over 200–400: mean 0.5·150 + 0.5·300.
TWO_BINS = LengthHistogram(edges=(100, 200, 400), counts=(7, 7), source="hand")


def test_standard_edges_are_unit_bins_then_sixteen_per_octave():
    edges = standard_edges()
    assert edges[:33] == tuple(range(33))
    assert edges[-1] == MAX_EDGE
    assert all(b > a for a, b in itertools.pairwise(edges))
    # 32 · 2^(k/16) rounded: 33, 35, 36, … and an octave later 64
    assert edges[33:36] == (33, 35, 36)
    assert 64 in edges and 128 in edges and 1024 in edges
    # past the unit bins (edge 0 has no ratio); the last bin is cut at MAX_EDGE
    ratios = [b / a for a, b in itertools.pairwise(edges[32:])][:-1]
    assert max(ratios) < 1.065 and min(ratios) > 1.02  # 2^(1/16) = 1.0443, rounded to tokens
    assert ratios[100:] == pytest.approx([2 ** (1 / 16)] * len(ratios[100:]), rel=1e-3)


@pytest.mark.parametrize("length", [0, 1, 31, 32, 33, 34, 1000, 1023, 1024, 10**6, MAX_EDGE - 1])
def test_bin_index_finds_the_bin_that_holds_the_length(length):
    edges = standard_edges()
    i = bin_index(length)
    assert edges[i] <= length < edges[i + 1]


def test_a_length_past_the_last_edge_goes_to_the_last_bin():
    assert bin_index(MAX_EDGE * 5) == len(standard_edges()) - 2


def test_from_counts_trims_to_the_bins_used():
    h = from_counts({bin_index(40): 2, bin_index(5): 1, bin_index(700): 0}, "f")
    assert h.edges[0] == 5 and h.counts[0] == 1 and h.counts[-1] == 2
    assert h.edges[-1] > 40 >= h.edges[-2]
    assert h.examples == 3


@pytest.mark.parametrize(
    "edges, counts, needle",
    [
        ((0, 1, 2), (1,), "one more edge"),
        ((0, 5, 5), (1, 1), "increase strictly"),
        ((10, 5), (1,), "increase strictly"),
        ((0, 1), (0,), "at least one example"),
        ((-1, 1), (1,), "greater than or equal"),
    ],
)
def test_an_inconsistent_histogram_is_refused(edges, counts, needle):
    with pytest.raises(ValidationError, match=needle):
        LengthHistogram(edges=edges, counts=counts)


def test_histogram_mean_and_longest_by_hand():
    assert TWO_BINS.mean == 0.5 * 150 + 0.5 * 300 == 225
    assert TWO_BINS.longest == 400
    assert LengthHistogram(edges=(1, 2, 3, 9), counts=(3, 1, 0)).longest == 3


def test_expected_capped_by_hand():
    d = HistogramLengths(TWO_BINS, 225.0)
    assert d.scale == 1.0
    # E[min(X, 300)] = 0.5·150 + 0.5·(0.5·250 + 0.5·300) = 212.5
    assert d.expected_capped(300) == pytest.approx(212.5, rel=1e-12)
    assert d.expected_capped(1000) == pytest.approx(225.0, rel=1e-12)  # nothing truncated
    assert d.expected_capped(50) == 50.0  # every example is longer than the cap
    assert d.expected_capped(150) == pytest.approx(100 + 50 * (1 - 0.125), rel=1e-12)


def test_expected_capped_max_by_hand():
    d = HistogramLengths(TWO_BINS, 225.0)
    # Two draws: both short (1/4): E[max of 2 U(100,200)] = 166.67; one of each (1/2): the long
    # one, 300; both long (1/4): 200 + 2/3 · 200.
    by_hand = 0.25 * (100 + 200 / 3) + 0.5 * 300 + 0.25 * (200 + 400 / 3)
    assert by_hand == pytest.approx(275.0)
    assert d.expected_capped_max(2, 400) == pytest.approx(by_hand, rel=1e-12)
    assert d.expected_capped_max(1, 300) == d.expected_capped(300)
    # Many draws: the maximum reaches the top edge.
    assert d.expected_capped_max(4096, 400) == pytest.approx(400, rel=1e-3)
    assert d.expected_capped_max(4096, 350) == pytest.approx(350, rel=1e-9)


def test_the_histogram_is_scaled_to_the_mean():
    d = HistogramLengths(TWO_BINS, 450.0)  # twice the measured mean: twice every length
    assert d.scale == 2.0
    assert d.expected_capped(600) == pytest.approx(2 * 212.5, rel=1e-12)
    assert d.expected_capped_max(2, 800) == pytest.approx(2 * 275.0, rel=1e-12)
    assert d.quantile(0.5) == pytest.approx(400.0)
    assert d.quantile(0.75) == pytest.approx(600.0)
    assert d.quantile(1.0) == 800.0
    assert d.cdf(300) == pytest.approx(0.25)


def test_expected_capped_max_matches_sampled_batches():
    """The bin-by-bin formula against a fine Riemann sum of ∫(1 − F⁴) over the CDF (to 1e-4)
    and against 200,000 sampled micro-batches of 4 rows (to 1.5%: the long tail is noisy)."""
    rng = random.Random(7)
    h = LengthHistogram(edges=(3, 40, 41, 300, 900, 5000), counts=(50, 200, 10, 30, 5))
    d = HistogramLengths(h, h.mean)
    weights = [c / sum(h.counts) for c in h.counts]

    def draw() -> float:
        i = rng.choices(range(len(h.counts)), weights)[0]
        return rng.uniform(h.edges[i], h.edges[i + 1])

    for cap in (500, 6000):
        step = 0.05
        riemann = sum((1 - d.cdf((i + 0.5) * step) ** 4) * step for i in range(int(cap / step)))
        assert d.expected_capped_max(4, cap) == pytest.approx(riemann, rel=1e-4)
        sampled = sum(min(max(draw() for _ in range(4)), cap) for _ in range(200_000)) / 200_000
        assert d.expected_capped_max(4, cap) == pytest.approx(sampled, rel=0.015)


def test_a_narrow_histogram_is_the_flat_model():
    """Every example in one 1-token bin: no padding at any micro-batch, as the log-normal at 0."""
    h = LengthHistogram(edges=(1000, 1001), counts=(5,))
    flat = LogNormalLengths(1000.5, 0.0)
    d = HistogramLengths(h, 1000.5)
    for rows in (1, 8, 64):
        assert padded_rows(d, rows, 2048, "longest").fraction == pytest.approx(
            padded_rows(flat, rows, 2048, "longest").fraction, rel=1e-3
        )


def test_distribution_picks_the_histogram_when_held():
    assert isinstance(distribution(500.0, 0.5, None), LogNormalLengths)
    assert isinstance(distribution(500.0, 0.5, TWO_BINS), HistogramLengths)


def _with_histogram(h: LengthHistogram | None, **data) -> EstimateInputs:
    base = EstimateInputs()
    return base.model_copy(
        update={"data": base.data.model_copy(update={"length_histogram": h, **data})}
    )


def test_the_estimates_padding_follows_the_histogram():
    """Micro-batch 2 padded to the longest, max length 400: useful 225 of 275 tokens a row."""
    inputs = _with_histogram(
        TWO_BINS, mean_tokens_per_example=225.0, max_seq_len=400, padding="longest", length_cv=3.0
    )
    inputs = inputs.model_copy(
        update={"training": inputs.training.model_copy(update={"micro_batch": 2})}
    )
    r = estimate(inputs)
    assert r.tokens.useful_per_example == pytest.approx(225.0)
    assert r.tokens.row_tokens == pytest.approx(275.0)
    assert r.tokens.useful_fraction == pytest.approx(225 / 275)
    # the spread field is not read while a histogram is held
    other = inputs.model_copy(update={"data": inputs.data.model_copy(update={"length_cv": 0.1})})
    assert estimate(other).tokens.useful_fraction == r.tokens.useful_fraction


def test_a_histogram_survives_the_estimate_file():
    inputs = _with_histogram(TWO_BINS)
    again = loads_estimate(dumps_estimate(inputs))
    assert again.data.length_histogram == TWO_BINS
    text = dumps_estimate(inputs)
    assert '"edges": [\n' in text and '"source": "hand"' in text


def test_an_estimate_file_with_a_broken_histogram_is_refused():
    doc = json.loads(dumps_estimate(_with_histogram(TWO_BINS)))
    doc["scenarios"][0]["inputs"]["data"]["length_histogram"]["counts"] = [1]
    with pytest.raises(Exception, match="one more edge than counts"):
        loads_document(json.dumps(doc))
    del doc["scenarios"][0]["inputs"]["data"]["length_histogram"]["counts"]
    with pytest.raises(Exception, match=r"data\.length_histogram\.counts is missing"):
        loads_document(json.dumps(doc))


def test_format_2_files_hold_no_histogram_and_keep_their_padding():
    """A version-2 file had no measured lengths: the migration adds none, and its examples are
    padded to the max length at their mean length, as before (700 of 2,048 tokens a row)."""
    doc = json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    for s in doc["scenarios"]:
        s["inputs"]["data"].update(
            mode="examples", num_examples=20000, mean_tokens_per_example=700.0, packing=False,
            max_seq_len=2048,
        )  # fmt: skip
    document = loads_document(json.dumps(doc))
    for scenario in document.scenarios:
        assert scenario.inputs.data.length_histogram is None
        assert estimate(scenario.inputs).tokens.useful_fraction == pytest.approx(700 / 2048)


def test_histogram_quantile_and_lognormal_quantile():
    ln = LogNormalLengths(1000.0, 0.5)
    sigma = math.sqrt(math.log(1.25))
    mu = math.log(1000.0) - sigma**2 / 2
    assert ln.quantile(0.5) == pytest.approx(math.exp(mu))
    assert ln.quantile(0.975) == pytest.approx(math.exp(mu + 1.959964 * sigma), rel=1e-6)
    assert LogNormalLengths(700.0, 0.0).quantile(0.99) == 700.0
