"""The optimizer step's temporaries: torch AdamW, as it runs on GPUs by default (foreach).

Method: the allocator timeline (harness.allocator_timeline) around ``optimizer.step()`` on a set
of parameters whose gradients are already there; the peak above the level before the step,
minus the moments created at the first step, divided by the parameter count, is the transient
bytes per parameter of one step. ``foreach=True`` is forced because that is the CUDA default (on
the CPU torch defaults to the per-parameter loop); ``fused=True`` is recorded beside it.
"""

from __future__ import annotations

from typing import Any

import torch

from .harness import allocator_timeline

SHAPES = [(512, 512), (1024, 512), (512, 2048), (2048,), (4096, 64)]


def _run(dtype: torch.dtype, impl: str) -> dict[str, Any]:
    g = torch.Generator().manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(*s, generator=g).to(dtype)) for s in SHAPES]
    for p in params:
        p.grad = torch.randn(p.shape, generator=g).to(dtype)
    n = sum(p.numel() for p in params)
    opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01, **{impl: True})
    opt.step()  # creates the moments
    timeline = allocator_timeline(opt.step)  # a steady-state step
    return {
        "dtype": str(dtype).removeprefix("torch."),
        "impl": impl,
        "params": n,
        "peak_bytes": max(timeline, default=0),
        "temporary_bytes_per_param": max(timeline, default=0) / n,
    }


def measure_optimizer() -> dict[str, Any]:
    runs = [
        _run(dt, impl) for dt in (torch.bfloat16, torch.float32) for impl in ("foreach", "fused")
    ]
    return {
        "kind": "optimizer_step",
        "optimizer": "torch.optim.AdamW",
        "method": __doc__.split("Method: ", 1)[1].split("\n\n", 1)[0].replace("\n", " "),
        "runs": runs,
    }
