"""Steps: the work of a run, the tokens the GPUs process (D) and the training FLOPs.

Article 001 'Tokens and epochs': D = useful tokens × epochs ÷ useful fraction; padding each example
to the bucket leaves mean ÷ max of every sequence useful; packing leaves none padded; a token total
is taken as useful tokens. FLOPs = FLOPs per processed token × D (articles 000/001; flops.py).
"""

from __future__ import annotations

from . import calibration as cal
from .architecture import ModelSpec
from .flops import flops_per_token, simple_coefficient
from .inputs import DataSpec
from .results import FlopBreakdown, TokenSummary, build


def count_tokens(data: DataSpec, warnings: list[str]) -> TokenSummary:
    """Useful and processed tokens of the whole run; appends a warning when examples truncate."""
    s = data.max_seq_len
    if data.mode == "examples":
        useful_per_epoch = data.num_examples * min(data.mean_tokens_per_example, s)
        useful = useful_per_epoch * data.epochs
        if data.packing:
            natural, source = 1.0, "packing"
        else:
            natural, source = cal.useful_token_fraction(data.mean_tokens_per_example, s), "padding"
        if data.mean_tokens_per_example > s:
            warnings.append("Mean example length exceeds the max sequence length: truncated.")
    else:
        useful = data.total_tokens
        useful_per_epoch = useful
        natural, source = 1.0, "tokens"
    if data.useful_fraction_override:
        fraction, source = data.useful_fraction_override, "given"
    else:
        fraction = natural
    sequences_per_epoch = (
        data.num_examples
        if data.mode == "examples" and not data.packing
        else useful_per_epoch / fraction / s
    )
    return build(
        TokenSummary,
        useful_tokens=useful,
        useful_fraction=fraction,
        tokens_processed=useful / fraction,
        seq_len=s,
        sequences_per_epoch=sequences_per_epoch,
        fraction_source=source,
    )


def count_flops(
    m: ModelSpec,
    matmul_params: float,
    adapter_params_active: float,
    full: bool,
    checkpointing: bool,
    tokens: TokenSummary,
) -> FlopBreakdown:
    """Training FLOPs of the run and the per-token coefficients they came from."""
    fpt = flops_per_token(
        matmul_params, full, checkpointing, m.num_layers, tokens.seq_len, m.q_dim,
        adapter_params_active,
    )  # fmt: skip
    return build(
        FlopBreakdown,
        base_per_token=fpt.base,
        recompute_per_token=fpt.recompute,
        attention_per_token=fpt.attention,
        adapters_per_token=fpt.adapters,
        per_token=fpt.total,
        total_flops=fpt.total * tokens.tokens_processed,
        attention_share=fpt.attention / (fpt.base + fpt.recompute),
        adapter_share=fpt.adapters / fpt.total,
        matmul_params=matmul_params,
        # The coefficients flops_per_token applied: 6N / 4N (without the +2N recompute) and
        # 6·L·s·d, 8·L·s·d when the forward is recomputed (article 000).
        base_coefficient=simple_coefficient(full, False),
        attention_coefficient=8.0 if checkpointing else 6.0,
    )
