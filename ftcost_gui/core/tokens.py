"""Steps: the work of a run, the tokens the GPUs process (D) and the training FLOPs.

Article 001 'Tokens and epochs': D = useful tokens × epochs ÷ useful fraction; padding follows the
batching rule and the length spread (lengths.py); packing leaves none padded; a token total is
taken as useful tokens. FLOPs = FLOPs per processed token × D (articles 000/001; flops.py).
"""

from __future__ import annotations

from .architecture import ModelSpec, ParamCounts
from .flops import LoraWork, flops_per_token, simple_coefficient
from .inputs import DataSpec
from .lengths import distribution, padded_rows
from .results import FlopBreakdown, TokenSummary, build


def count_tokens(data: DataSpec, micro_batch: int, warnings: list[str]) -> TokenSummary:
    """Useful and processed tokens of the whole run; appends a warning when examples truncate.

    Examples are truncated at the max length and padded by the batching rule (lengths.py): the
    useful-token fraction is E[min(X, s)] ÷ the tokens a row holds. A token total counts as
    useful tokens in full rows (the first release's rule).
    """
    s = data.max_seq_len
    if data.mode == "examples":
        lengths = distribution(data.mean_tokens_per_example, data.length_cv, data.length_histogram)
        rows = padded_rows(lengths, micro_batch, s, data.padding)
        useful_per_epoch = data.num_examples * rows.useful_per_example
        useful = useful_per_epoch * data.epochs
        natural, source = rows.fraction, PADDING_SOURCES[data.padding]
        row_tokens, per_example = rows.row_tokens, rows.useful_per_example
        if data.mean_tokens_per_example > s:
            warnings.append("Mean example length exceeds the max sequence length: truncated.")
    else:
        useful = data.total_tokens
        useful_per_epoch = useful
        natural, source = 1.0, "tokens"
        row_tokens = per_example = float(s)
    if data.useful_fraction_override:
        fraction, source = data.useful_fraction_override, "given"
    else:
        fraction = natural
    packed = data.mode == "tokens" or data.padding == "pack"
    sequences_per_epoch = data.num_examples if not packed else useful_per_epoch / fraction / s
    return build(
        TokenSummary,
        useful_tokens=useful,
        useful_fraction=fraction,
        tokens_processed=useful / fraction,
        seq_len=s,
        sequences_per_epoch=sequences_per_epoch,
        fraction_source=source,
        row_tokens=row_tokens,
        useful_per_example=per_example,
    )


# How the useful fraction came about (TokenSummary.fraction_source), by batching rule.
PADDING_SOURCES = {"pack": "packing", "longest": "longest", "max_length": "max_length"}


def count_flops(
    m: ModelSpec,
    counts: ParamCounts,
    adapter_params_active: float,
    full: bool,
    checkpointing: bool,
    tokens: TokenSummary,
    adapts_tail: bool = False,
    lora: LoraWork | None = None,
) -> FlopBreakdown:
    """Training FLOPs of the run and the per-token coefficients they came from."""
    matmul_params = counts.matmul_active
    fpt = flops_per_token(
        counts, full, checkpointing, m.num_layers, tokens.seq_len, m.q_dim,
        adapter_params_active, adapts_tail, lora,
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
