"""'How this is computed' carries the user's own numbers (Qt-free)."""

import re

import pytest

from ftcost_gui.core import METHOD_LABELS, EstimateInputs, estimate
from ftcost_gui.core.units import GIB, fmt_pct
from ftcost_gui.gui.defaults import EXAMPLES, article_000
from ftcost_gui.present.explain import explain_html
from ftcost_gui.present.text import sci


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_sci():
    assert sci(3.30e18) == "3.30e18"
    assert sci(6.61e9) == "6.61e9"
    assert sci(9.999e5) == "1.00e6"


def test_article_000_numbers_are_in_the_text():
    inputs = article_000()
    r = estimate(inputs)
    text = _text(explain_html(inputs, r))
    assert sci(r.flops.total_flops) in text
    assert sci(r.tokens.tokens_processed) in text
    assert "(989 TFLOPS × 0.400)" in text
    assert "given: one MFU for every GPU" in text
    assert f"{r.time.compute_gpu_hours:,.2f} GPU-hours" in text
    assert "16 = 2 (bf16 weights) + 2 (bf16 grads) + 4 (fp32 master) + 8" in text
    # The three memory figures, each named by the tool that reports it, and the fit against the
    # GPU's whole memory (the allocator's 85% is the reserve step, not a second margin).
    assert "allocated × (1 ÷ 0.85 − 1)" in text and "torch.cuda.max_memory_reserved()" in text
    assert f"{r.memory.total_bytes / GIB:,.1f} GiB device total ≤ 79.6 GiB" in text
    assert f"= {r.memory.gpus_needed}" in text
    assert f"{r.cost.spot_factor:.3f}" in text and "F = 1 + λ(T/2 + R)" in text
    assert "12 B/param" in text
    assert "per 1e18 FLOPs" in text
    assert "project = runs × run + storage + engineering" in text
    assert "simple rules" in text.lower()
    assert sci(r.simple.flops) in text
    assert "[articles 000 §FLOPs per token, 001]" in text


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_example_and_method_explains(name):
    base = EXAMPLES[name]()
    for method in METHOD_LABELS:
        doc = base.model_dump()
        doc["training"]["method"] = method
        doc["efficiency"]["measured_tokens_per_s"] = 2500.0
        inputs = EstimateInputs.model_validate(doc)
        r = estimate(inputs)
        text = _text(explain_html(inputs, r))
        # This run's own figures, not only the section titles every explanation has.
        assert METHOD_LABELS[method] in text
        assert sci(r.flops.total_flops) in text
        assert f"× {r.memory.bytes_per_param:.2f} B" in text
        assert fmt_pct(r.measured_mfu) in text


def test_step_check_shown_for_article_004():
    inputs = EXAMPLES["article-004-7b-lora-a100.ftcost"]()
    r = estimate(inputs)
    text = _text(explain_html(inputs, r))
    assert r.step_check is not None
    assert f"{r.step_check.total_steps:,}" in text
    assert "article 004" in text


def test_tokens_mode_step_check_counts_one_pass():
    from ftcost_gui.core import EstimateInputs, estimate
    from ftcost_gui.present.explain import explain_html

    inputs = EstimateInputs.model_validate(
        {
            "data": {"mode": "tokens", "total_tokens": 6e7, "epochs": 3, "padding": "max_length"},
            "training": {"micro_batch": 4, "grad_accum": 4, "auto_gpu_count": False},
            "efficiency": {"step_time_s": 3.0},
        }
    )
    r = estimate(inputs)
    html = explain_html(inputs, r)
    assert f"× 1 = {r.step_check.total_steps:,}" in html
    assert "a token total counts as useful tokens" in html
    assert "padding to the max length" not in html


def test_recomputed_layer_peak_is_listed_and_its_formula_adds_up():
    """Llama-3.1-8B, LoRA on q, k, v, o (fp32), chunked loss, checkpointing: beside the
    recomputed layer (its saved tensors) the explanation lists what its peak adds, by hand:
    its output's gradient 2h = 8,192, the adapters' fp32 input-cast gradient and bf16 sum
    6h = 24,576, and the down projection's input gradient 2i = 28,672 B per token."""
    from tests.core.helpers import make

    inputs = make(
        "llama-3.1-8b", training__method="lora", training__checkpointing="full",
        training__loss="chunked",
    )  # fmt: skip
    r = estimate(inputs)
    text = re.sub(r"\s+", " ", _text(explain_html(inputs, r)))
    h, i = 4096, 14336
    beside = 2 * h + 6 * h + 2 * i
    assert "recomputed layer's peak: down projection's input gradient (bf16)28,672.0" in text
    tokens = r.memory.activations_working_bytes / (205_192 + beside)
    assert tokens == pytest.approx(inputs.training.micro_batch * inputs.data.max_seq_len)
    assert f"(205,192.0 B/token + {beside:,.1f} B/token beside it)" in text
