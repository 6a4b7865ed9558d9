"""TokenSummary by hand: useful and processed tokens under each padding rule (article 001
'Utilization', 'Tokens and epochs').

Example lengths are log-normal with the given mean and spread cv: σ² = ln(1 + cv²),
μ = ln(mean) − σ²/2. Truncated at s, an example keeps E[min(X, s)] tokens: the partial expectation
mean·Φ(z − σ) + s·(1 − Φ(z)), z = (ln s − μ)/σ. Padding to the longest row of b makes a row
E[min(max of b, s)] = ∫_0^s (1 − F(x)^b) dx (David & Nagaraja §4.1) — integrated here with the
trapezoid rule on a fine grid in x, not with the core's Simpson rule in log-length.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .helpers import make


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def lognormal(mean, cv):
    sigma = math.sqrt(math.log(1 + cv * cv))
    return math.log(mean) - sigma**2 / 2, sigma


def capped_mean(mean, cv, s):
    mu, sigma = lognormal(mean, cv)
    z = (math.log(s) - mu) / sigma
    return mean * phi(z - sigma) + s * (1 - phi(z))


def capped_max(mean, cv, b, s, points=200_000):
    mu, sigma = lognormal(mean, cv)

    def tail(x):  # 1 − F(x)^b
        return 1.0 if x <= 0 else 1 - phi((math.log(x) - mu) / sigma) ** b

    h = s / points
    return h * (sum(tail(k * h) for k in range(1, points)) + (tail(0) + tail(s)) / 2)


def _tokens(**data):
    return estimate(make(**{f"data__{k}": v for k, v in data.items()}, training__micro_batch=4))


@pytest.mark.parametrize(("mean", "s"), [(400, 2048), (3000, 2048)])
def test_max_length_every_example_at_the_mean(mean, s):
    """cv = 0: every example keeps min(mean, s) tokens in a row of s (001's 400 of 2,048)."""
    t = _tokens(
        num_examples=10_000,
        mean_tokens_per_example=mean,
        length_cv=0.0,
        max_seq_len=s,
        padding="max_length",
        epochs=3,
    ).tokens
    kept = min(mean, s)
    assert t.useful_per_example == kept
    assert t.row_tokens == s
    assert t.useful_fraction == pytest.approx(kept / s)
    assert t.useful_tokens == pytest.approx(10_000 * kept * 3)
    assert t.tokens_processed == pytest.approx(10_000 * s * 3)
    assert (t.sequences_per_epoch, t.seq_len, t.fraction_source) == (10_000, s, "max_length")


@pytest.mark.parametrize(("mean", "cv", "s"), [(1000, 0.8, 2048), (1500, 1.5, 1024)])
def test_packing_keeps_every_truncated_token(mean, cv, s):
    r = _tokens(
        num_examples=50_000,
        mean_tokens_per_example=mean,
        length_cv=cv,
        max_seq_len=s,
        padding="pack",
        epochs=2,
    )
    t = r.tokens
    kept = capped_mean(mean, cv, s)
    assert t.useful_per_example == pytest.approx(kept, rel=1e-9)
    assert t.useful_fraction == 1.0 and t.row_tokens == s
    assert t.useful_tokens == pytest.approx(50_000 * kept * 2, rel=1e-9)
    assert t.tokens_processed == pytest.approx(50_000 * kept * 2, rel=1e-9)
    assert t.sequences_per_epoch == pytest.approx(50_000 * kept / s, rel=1e-9)
    assert t.fraction_source == "packing"


@pytest.mark.parametrize(("mean", "cv", "b", "s"), [(800, 0.6, 4, 4096), (1200, 1.2, 8, 2048)])
def test_longest_row_of_the_micro_batch(mean, cv, b, s):
    t = estimate(
        make(
            data__num_examples=20_000,
            data__mean_tokens_per_example=mean,
            data__length_cv=cv,
            data__max_seq_len=s,
            data__padding="longest",
            data__epochs=3,
            training__micro_batch=b,
        )
    ).tokens
    kept, row = capped_mean(mean, cv, s), capped_max(mean, cv, b, s)
    assert t.row_tokens == pytest.approx(row, rel=1e-4)
    assert t.useful_fraction == pytest.approx(kept / row, rel=1e-4)
    assert t.tokens_processed == pytest.approx(20_000 * row * 3, rel=1e-4)
    assert t.useful_tokens == pytest.approx(20_000 * kept * 3, rel=1e-9)
    assert t.fraction_source == "longest"


def test_longest_with_one_row_is_no_padding():
    t = _tokens(mean_tokens_per_example=900, length_cv=0.7, padding="longest").tokens
    one = estimate(
        make(
            data__mean_tokens_per_example=900,
            data__length_cv=0.7,
            data__padding="longest",
            training__micro_batch=1,
        )
    ).tokens
    assert one.useful_fraction == pytest.approx(1.0)
    assert t.useful_fraction < 1.0


def test_token_total_counts_as_useful_in_full_rows():
    t = _tokens(mode="tokens", total_tokens=6e7, max_seq_len=2048, epochs=3).tokens
    assert (t.useful_tokens, t.useful_fraction, t.tokens_processed) == (6e7, 1.0, 6e7)
    assert (t.row_tokens, t.useful_per_example) == (2048, 2048)
    assert t.sequences_per_epoch == pytest.approx(6e7 / 2048)
    assert t.fraction_source == "tokens"


def test_a_given_fraction_overrides_the_padding_rule():
    r = _tokens(
        num_examples=1000,
        mean_tokens_per_example=500,
        length_cv=0.0,
        useful_fraction_override=0.4,
        padding="max_length",
        epochs=2,
    )
    t = r.tokens
    assert (t.useful_fraction, t.fraction_source) == (0.4, "given")
    assert t.tokens_processed == pytest.approx(t.useful_tokens / 0.4)
    assert t.useful_tokens == pytest.approx(1000 * 500 * 2)


def test_truncation_warns():
    r = _tokens(mean_tokens_per_example=5000, max_seq_len=2048)
    assert any("exceeds the max sequence length" in w for w in r.warnings)
    assert not any("exceeds" in w for w in _tokens(mean_tokens_per_example=500).warnings)
