"""Building models and measuring them: parameter counts, FLOPs, saved tensors, allocator timeline.

Methods (also in validation/README.md):
- FLOPs: ``torch.utils.flop_counter.FlopCounterMode`` around one forward + loss + backward.
- Saved for backward: ``torch.autograd.graph.saved_tensors_hooks``; each storage counted once (by
  its data pointer), parameters and buffers excluded. A ``TorchDispatchMode`` notes which op
  created each storage and in which decoder layer (or outside the layers), so the record says
  what each saved tensor is.
- Live bytes and peaks: the profiler's allocator events (``profile_memory=True``): every CPU
  allocation and free, in order; their running sum is the allocated-bytes timeline, the CPU
  counterpart of ``torch.cuda.max_memory_allocated``.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
import transformers.masking_utils as masking_utils
from peft import LoraConfig, get_peft_model
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import (
    FlopCounterMode,
    register_flop_formula,
    sdpa_backward_flop_count,
    sdpa_flop_count,
)
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.utils import logging as hf_logging

warnings.filterwarnings("ignore")
hf_logging.set_verbosity_error()
# Meta tensors have no values: transformers' packed-sequence detection reads position ids
# (.item()); the runs here pass no position ids and pack nothing, so it has nothing to find.
masking_utils.find_packed_sequence_indices = lambda *a, **k: None

# Two ops FlopCounterMode has no formula for in torch 2.13, registered with the formulas it uses
# for their siblings: the CPU flash-attention kernel (as CUDA's flash attention: every score,
# causal or not) and torch._grouped_mm, which transformers >= 5 MoE experts use by default
# (each row of the stacked tokens meets one expert: 2 · rows · k · n).
aten = torch.ops.aten


@register_flop_formula(aten._scaled_dot_product_flash_attention_for_cpu)
def _cpu_flash_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    return sdpa_flop_count(query_shape, key_shape, value_shape)


@register_flop_formula(aten._scaled_dot_product_flash_attention_for_cpu_backward)
def _cpu_flash_backward_flop(
    grad_out_shape, query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs
) -> int:
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


@register_flop_formula(aten._grouped_mm)
def _grouped_mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    if len(a_shape) == 3 and len(b_shape) == 3:  # batched: one matrix per group
        return 2 * a_shape[0] * a_shape[1] * a_shape[2] * b_shape[2]
    # 2D x 3D (tokens grouped by expert), 2D x 2D (per-expert weight gradients), 3D x 2D
    rows_times_k = a_shape[-2] * a_shape[-1] * (a_shape[0] if len(a_shape) == 3 else 1)
    return 2 * rows_times_k * b_shape[-1]


def build(
    config: dict[str, Any],
    *,
    device: str,
    attn: str = "sdpa",
    ckpt: bool = False,
    lora: dict[str, Any] | None = None,
    seed: int = 0,
) -> torch.nn.Module:
    """A random-weight bf16 model, optionally checkpointed and wrapped in LoRA, in train mode.

    Checkpointing is switched on exactly as users do: ``model.gradient_checkpointing_enable()``
    (transformers' defaults: non-reentrant ``torch.utils.checkpoint``, inputs requiring grad).
    LoRA via ``peft.get_peft_model``; ``autocast_adapter_dtype=True`` (PEFT's default) keeps the
    adapters in fp32, False leaves them in the base dtype (bf16).
    """
    torch.manual_seed(seed)
    cfg = AutoConfig.for_model(**config)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(
            cfg, dtype=torch.bfloat16, attn_implementation=attn
        )
    if ckpt:
        model.gradient_checkpointing_enable()
    if lora is not None:
        lcfg = LoraConfig(
            r=lora["rank"],
            lora_alpha=2 * lora["rank"],
            lora_dropout=0.0,
            target_modules=lora.get("target_modules") or None,
            target_parameters=lora.get("target_parameters") or None,
        )
        model = get_peft_model(
            model, lcfg, autocast_adapter_dtype=lora.get("adapter_dtype", "fp32") == "fp32"
        )
    model.train()
    return model


def param_counts(model: torch.nn.Module) -> dict[str, int]:
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"total": total, "trainable": trainable}


def _inputs(batch: int, seq: int, vocab: int, device: str) -> torch.Tensor:
    if device == "meta":
        return torch.zeros(batch, seq, dtype=torch.long, device="meta")
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, vocab, (batch, seq), generator=g)


def _step(model: torch.nn.Module, ids: torch.Tensor) -> None:
    out = model(input_ids=ids, labels=ids, use_cache=False)
    out.loss.backward()


def count_flops(model: torch.nn.Module, batch: int, seq: int, vocab: int, device: str) -> dict:
    """FLOPs of one training step (forward, loss, backward), by aten op.

    SDPA runs its math path (two batched matmuls forward, four backward), as it does on the
    ``meta`` device where the dense families are counted: a fused CPU/CUDA flash kernel's backward
    also recomputes the scores inside the kernel (2.5× the forward instead of 2×), work that
    model-FLOP counts (and ftcost's, article 000) leave out."""
    ids = _inputs(batch, seq, vocab, device)
    fc = FlopCounterMode(display=False)
    merge = _MergeBackward()
    with fc, merge, sdpa_kernel(SDPBackend.MATH):
        _step(model, ids)
    counts = fc.get_flop_counts()["Global"].items()
    by_op = {str(op).removeprefix("aten."): int(n) for op, n in counts}
    out = {"total": int(fc.get_total_flops()), "by_op": by_op}
    if merge.bmm_flops:
        out["merge_backward_bmm"] = merge.bmm_flops
    return out


class _MergeBackward(TorchDispatchMode):
    """FLOPs of the ``bmm`` that PEFT's merged expert weights (W + B·A, one ``baddbmm``) run in
    backward, told apart from the attention's ``bmm`` by the autograd node running them."""

    def __init__(self) -> None:
        super().__init__()
        self.bmm_flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket is aten.bmm:
            node = torch._C._current_autograd_node()
            if node is not None and node.name().startswith("BaddbmmBackward"):
                (b, n, k), m = args[0].shape, args[1].shape[-1]
                self.bmm_flops += 2 * b * n * k * m
        return func(*args, **(kwargs or {}))


def decoder_layers(model: torch.nn.Module) -> list[torch.nn.Module]:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    inner = getattr(base, "model", None) or getattr(base, "transformer", None)
    layers = getattr(inner, "layers", None) or getattr(inner, "h", None)
    if layers is None:
        raise RuntimeError(f"no decoder layers found in {type(base).__name__}")
    return list(layers)


class _Creators(TorchDispatchMode):
    """Remembers, for each storage an op allocates, the op and the region (layer) it ran in."""

    def __init__(self, region: list[str]) -> None:
        super().__init__()
        self.region = region
        self.made: dict[int, tuple[str, str]] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.is_view or func._schema.is_mutable:
            return out
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                st = t.untyped_storage()
                if st.nbytes():
                    self.made[st.data_ptr()] = (self.region[-1], func.overloadpacket.__name__)
        return out


def _enter(region: list[str], i: int) -> None:
    region.append(f"layer{i}")


def _leave(region: list[str]) -> None:
    region.pop()


def saved_inventory(model: torch.nn.Module, batch: int, seq: int, vocab: int) -> dict:
    """Bytes saved for backward by one forward + loss, each storage once, by region and tensor."""
    ids = _inputs(batch, seq, vocab, "cpu")
    region = ["outside"]
    handles = []
    for i, layer in enumerate(decoder_layers(model)):
        handles.append(layer.register_forward_pre_hook(lambda m, a, i=i: _enter(region, i)))
        handles.append(layer.register_forward_hook(lambda m, a, o: _leave(region)))
    excluded = {p.untyped_storage().data_ptr() for p in model.parameters()}
    excluded |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    seen: dict[int, dict] = {}
    creators = _Creators(region)

    def pack(t: torch.Tensor) -> torch.Tensor:
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if st.nbytes() and ptr not in excluded and ptr not in seen:
            where, op = creators.made.get(ptr, (region[-1], "input"))
            seen[ptr] = {
                "region": where,
                "op": op,
                "dtype": str(t.dtype).removeprefix("torch."),
                "shape": list(t.shape),
                "bytes": st.nbytes(),
            }
        return t

    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), creators:
            out = model(input_ids=ids, labels=ids, use_cache=False)
        out.loss.backward()
    finally:
        for h in handles:
            h.remove()
    by_region: dict[str, int] = {}
    for rec in seen.values():
        by_region[rec["region"]] = by_region.get(rec["region"], 0) + rec["bytes"]
    return {"by_region": by_region, "tensors": list(seen.values())}


def allocator_timeline(fn) -> list[int]:
    """Running allocated bytes after each CPU allocator event while fn runs (starts at 0)."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    events.sort(key=lambda e: e.start_ns())
    level, out = 0, []
    for e in events:
        if str(e.device_type()).endswith("CPU"):
            level += e.nbytes()
            out.append(level)
    return out


def step_memory(model: torch.nn.Module, batch: int, seq: int, vocab: int) -> dict:
    """Allocator view of one step: bytes live after the forward (what backward needs) and the
    peak over forward + backward, both above the level before the step. Gradients of trainable
    parameters are allocated in backward and are part of that peak."""
    ids = _inputs(batch, seq, vocab, "cpu")
    marks: dict[str, int] = {}
    holder: dict[str, Any] = {}

    def forward() -> None:
        holder["loss"] = model(input_ids=ids, labels=ids, use_cache=False).loss

    fwd = allocator_timeline(forward)
    marks["after_forward"] = fwd[-1] if fwd else 0
    marks["forward_peak"] = max(fwd, default=0)
    bwd = allocator_timeline(lambda: holder.pop("loss").backward())
    base = marks["after_forward"]
    marks["backward_peak"] = base + max(bwd, default=0)
    marks["after_backward"] = base + (bwd[-1] if bwd else 0)
    model.zero_grad(set_to_none=True)
    return marks
