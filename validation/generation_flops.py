"""Measure the FLOPs of generating with a KV cache on the CPU: the prefill and each decoding step.

Run from the repository root with torch and transformers installed:

    python validation/generation_flops.py     # writes docs/data/measured/generation_flops.json

A tiny random-weight Llama (2 layers, GQA) in fp32 generates a fixed number of tokens greedily
with ``model.generate`` (KV cache on, eager attention so the attention matmuls are counted),
batch 2. ``FlopCounterMode`` counts the prefill (the prompt's forward, which yields the first
token) and each decoding forward separately, through a forward pre-hook that opens a new counter
per call. The record is read by tests/core/test_generation_measured.py without torch.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tiny_llama import CONFIG, write_record  # run as a script: its folder is on sys.path
from torch.utils.flop_counter import FlopCounterMode
from transformers import LlamaConfig, LlamaForCausalLM

BATCH, PROMPT, NEW = 2, 32, 16
OUT = Path("docs/data/measured/generation_flops.json")


def main() -> None:
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**CONFIG, attn_implementation="eager")).eval()
    calls: list[dict] = []
    state: dict = {}

    def before(_module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        state["counter"] = FlopCounterMode(display=False)
        state["tokens"] = int(ids.shape[1])
        state["counter"].__enter__()

    def after(_module, _args, _output):
        fc = state.pop("counter")
        fc.__exit__(None, None, None)
        by_op = {str(op): int(n) for op, n in fc.get_flop_counts()["Global"].items()}
        calls.append(
            {"input_tokens": state["tokens"], "total": fc.get_total_flops(), "by_op": by_op}
        )

    model.register_forward_pre_hook(before, with_kwargs=True)
    model.register_forward_hook(after)
    prompt = torch.randint(0, CONFIG["vocab_size"], (BATCH, PROMPT))
    with torch.no_grad():
        out = model.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            max_new_tokens=NEW,
            min_new_tokens=NEW,
            do_sample=False,
            use_cache=True,
            pad_token_id=0,
        )
    record = {
        "what": "model.generate with a KV cache: one forward per call (prefill, then decoding)",
        "batch": BATCH,
        "prompt_tokens": PROMPT,
        "new_tokens": int(out.shape[1] - PROMPT),
        "attention": "eager (scores against the whole cache counted)",
        "forwards": calls,
    }
    write_record(OUT, record)
    print(OUT, len(calls), "forwards", [c["total"] for c in calls[:3]], "…")


if __name__ == "__main__":
    main()
