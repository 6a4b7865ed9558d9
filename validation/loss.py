"""The loss path's transient peak: logits -> cross-entropy -> backward, standard vs chunked.

Method: the profiler's CPU allocator events (harness.allocator_timeline) while one forward and
backward of the loss path run, starting from the last hidden state (bf16, requiring grad) and a
frozen bf16 output head. The peak above the starting level, divided by tokens x vocabulary, is the
bytes per token per vocabulary entry the core's logits term stands for. A small hidden size and a
large vocabulary make the vocabulary-sized tensors dominate; the hidden-sized remainder (the
gradient of the hidden state) is subtracted exactly.

- standard: transformers' own path: ``lm_head`` (bf16 logits), ``ForCausalLMLoss`` (fp32 upcast,
  ``cross_entropy``), backward.
- chunked: a fused linear + cross-entropy in plain torch, following the algorithm of Liger
  Kernel's FusedLinearCrossEntropy (Hsu et al. 2024, §3.1): per chunk of tokens, logits, fp32
  softmax, the logits gradient and the hidden-state gradient are computed in the forward; only
  the hidden-state gradient is kept. It is this repository's reference implementation of that
  algorithm (Liger itself needs Triton and a GPU), measured the same way.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers.loss.loss_utils import ForCausalLMLoss

from .harness import allocator_timeline

HIDDEN = 64
VOCAB = 32768
TOKENS = (256, 512)
CHUNK = 128


class _FusedLinearCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, weight, targets, chunk):  # type: ignore[override]
        n = hidden.shape[0]
        grad_hidden = torch.empty_like(hidden)
        loss = torch.zeros((), dtype=torch.float32)
        for start in range(0, n, chunk):
            h = hidden[start : start + chunk]
            logits = (h @ weight.t()).float()
            lse = torch.logsumexp(logits, dim=-1)
            t = targets[start : start + chunk]
            loss += (lse - logits.gather(1, t[:, None]).squeeze(1)).sum()
            grad = torch.softmax(logits, dim=-1)
            grad[torch.arange(len(t)), t] -= 1.0
            grad_hidden[start : start + chunk] = (grad / n).to(hidden.dtype) @ weight
            del logits, grad
        ctx.save_for_backward(grad_hidden)
        return loss / n

    @staticmethod
    def backward(ctx, grad_out):  # type: ignore[override]
        (grad_hidden,) = ctx.saved_tensors
        return grad_hidden * grad_out.to(grad_hidden.dtype), None, None, None


def _run(kind: str, tokens: int) -> dict[str, Any]:
    g = torch.Generator().manual_seed(0)
    hidden = torch.randn(tokens, HIDDEN, generator=g).to(torch.bfloat16).requires_grad_()
    weight = torch.randn(VOCAB, HIDDEN, generator=g).to(torch.bfloat16) * 0.02
    labels = torch.randint(0, VOCAB, (1, tokens), generator=g)

    def step() -> None:
        if kind == "standard":
            logits = torch.nn.functional.linear(hidden, weight)[None]
            loss = ForCausalLMLoss(logits, labels, VOCAB)
            del logits
        else:
            targets = labels[0].roll(-1)
            loss = _FusedLinearCE.apply(hidden, weight, targets, CHUNK)
        loss.backward()

    timeline = allocator_timeline(step)
    peak = max(timeline, default=0)
    hidden_grad = tokens * HIDDEN * 2  # the bf16 gradient of the hidden state, kept
    vocab_tokens = (tokens if kind == "standard" else min(tokens, CHUNK)) * VOCAB
    return {
        "kind": kind,
        "tokens": tokens,
        "chunk": None if kind == "standard" else CHUNK,
        "peak_bytes": peak,
        "bytes_per_token_vocab": (peak - hidden_grad) / vocab_tokens,
    }


def measure_loss() -> dict[str, Any]:
    runs = [_run(kind, n) for kind in ("standard", "chunked") for n in TOKENS]
    return {
        "kind": "loss_path",
        "hidden": HIDDEN,
        "vocab": VOCAB,
        "method": __doc__.split("Method: ", 1)[1].split("\n\n", 1)[0].replace("\n", " "),
        "runs": runs,
    }
