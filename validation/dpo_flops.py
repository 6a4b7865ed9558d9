"""Measure the FLOPs of one DPO step on the CPU: the reference forward and the policy's step.

Run from the repository root with torch and transformers installed (see validation/README.md when
it exists; any CPU torch ≥ 2.4 and transformers ≥ 4.45 do):

    python validation/dpo_flops.py            # writes docs/data/measured/dpo_flops.json

A tiny random-weight Llama (2 layers, GQA) in fp32, one preference pair of two sequences of equal
length, as TRL 1.16.0's DPOTrainer runs it: chosen and rejected concatenated into one batch, the
reference model's log-probs under ``no_grad``, then the policy's forward, the sigmoid DPO loss and
the backward. ``torch.utils.flop_counter.FlopCounterMode`` counts each part. Eager attention, so
the attention matmuls are counted (FlopCounterMode counts every s×s score; the comparison halves
them for causal masking, as the core counts). The record is read by tests/core/test_dpo_measured.py
without torch.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tiny_llama import CONFIG, write_record  # run as a script: its folder is on sys.path
from torch.utils.flop_counter import FlopCounterMode
from transformers import LlamaConfig, LlamaForCausalLM

SEQ = 128
BETA = 0.1  # TRL 1.16.0 DPOConfig.beta
OUT = Path("docs/data/measured/dpo_flops.json")


def _logps(model: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """Sum of the log-probabilities of each sequence's tokens (TRL's per-sequence log-prob)."""
    logits = model(input_ids=ids).logits[:, :-1]
    labels = ids[:, 1:]
    return torch.log_softmax(logits.float(), -1).gather(-1, labels[..., None]).squeeze(-1).sum(-1)


def _count(fn) -> dict[str, int]:
    fc = FlopCounterMode(display=False)
    with fc:
        fn()
    by_op = {str(op): int(n) for op, n in fc.get_flop_counts()["Global"].items()}
    return {"total": int(fc.get_total_flops()), "by_op": by_op}


def main() -> None:
    torch.manual_seed(0)
    config = LlamaConfig(**CONFIG, attn_implementation="eager")
    policy = LlamaForCausalLM(config)
    reference = LlamaForCausalLM(config).eval()
    pair = torch.randint(0, CONFIG["vocab_size"], (2, SEQ))  # chosen, rejected: one batch

    def reference_forward() -> None:
        with torch.no_grad():
            main.ref = _logps(reference, pair)  # type: ignore[attr-defined]

    def policy_step() -> None:
        pol = _logps(policy, pair)
        ref = main.ref  # type: ignore[attr-defined]
        margin = BETA * ((pol[0] - ref[0]) - (pol[1] - ref[1]))
        loss = -torch.nn.functional.logsigmoid(margin)
        loss.backward()

    record = {
        "what": "one DPO step: reference forward (no_grad) + policy forward, loss, backward",
        "seq_len": SEQ,
        "sequences": 2,
        "attention": "eager (every s x s score counted)",
        "reference": _count(reference_forward),
        "policy": _count(policy_step),
    }
    write_record(OUT, record)
    print(OUT, record["reference"]["total"], record["policy"]["total"])


if __name__ == "__main__":
    main()
