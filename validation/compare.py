"""The core against the measured records: one comparison per record, no torch needed.

Used by tests/core/test_measured.py (tolerances) and by ``python -m validation.report`` (the table
in docs/accuracy.md). Each record is turned into the inputs a user would give ftcost: the model
from the record's config.json numbers (``io.hf_config``, as the window imports a model), the
method, LoRA rank and targets, checkpointing, attention, micro-batch and sequence length.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ftcost_gui.core import EstimateInputs, ModelSpec, count_params, estimate
from ftcost_gui.io.hf_config import spec_from_hf_config

RECORDS = Path(__file__).resolve().parents[1] / "docs" / "data" / "measured"
FAMILY_ORDER = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3", "gpt2", "mixtral")
# PEFT's module names → ftcost's target names (GPT-2's c_proj is both the attention output and
# the MLP down projection; transformers >= 5 MoE experts are adapted as parameters).
PEFT_TO_FTCOST = {
    "c_attn": ("qkv_proj",),
    "c_fc": ("up_proj",),
    "c_proj": ("o_proj", "down_proj"),
    "mlp.experts.gate_up_proj": ("gate_up_proj",),
    "mlp.experts.down_proj": ("down_proj",),
}
# Attention FLOPs: the counter counts every s×s score; causal kernels (FlashAttention, Dao 2022)
# skip the masked half, which is what the core models (article 000: 6·L·s·d per token, causal).
CAUSAL = 0.5
ATTENTION_OPS = (
    "bmm",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention",
)


class Row(NamedTuple):
    family: str
    kind: str  # params | lora | flops | saved
    mode: str  # e.g. "full", "lora attn fp32 ckpt"
    measured: float
    ours: float

    @property
    def error(self) -> float:
        return self.ours / self.measured - 1.0 if self.measured else 0.0


def records() -> Iterator[dict[str, Any]]:
    for name in FAMILY_ORDER:
        path = RECORDS / f"{name}.json"
        if path.exists():
            yield json.loads(path.read_text())


def spec_of(record: dict[str, Any], size: str) -> ModelSpec:
    config = record["config"] if size == "full" else record["shrunk_config"]
    return spec_from_hf_config(dict(config), name=f"{record['family']} ({size})")


def ftcost_targets(record_lora: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for name in record_lora["target_modules"] + record_lora["target_parameters"]:
        out += PEFT_TO_FTCOST.get(name, (name,))
    return list(dict.fromkeys(out))


def _find_lora(record: dict[str, Any], label: str) -> dict[str, Any]:
    return next(x for x in record["lora_params"] if x["set"] == label)


def inputs_for(record: dict[str, Any], case: dict[str, Any]) -> EstimateInputs:
    spec = spec_of(record, case["config"])
    doc = EstimateInputs().model_dump()
    doc["model"] = spec.model_dump()
    doc["data"].update(max_seq_len=case["seq"], padding="pack")
    training = dict(
        method="full_bf16_adamw",
        checkpointing="full" if case["checkpointing"] else "none",
        attention="eager" if case["attention"] == "eager" else "flash",
        loss="standard",
        micro_batch=case["batch"],
        auto_gpu_count=False,
        num_gpus=1,
        sharding="none",
    )
    if case["mode"] == "lora":
        lo = case["lora"]
        training.update(
            method="lora",
            lora_rank=lo["rank"],
            lora_targets=ftcost_targets(_find_lora(record, lo["set"])),
        )
        if "adapter_dtype" in doc["training"]:
            training["adapter_dtype"] = lo["adapter_dtype"]
    doc["training"].update(training)
    return EstimateInputs.model_validate(doc)


def mode_label(case: dict[str, Any]) -> str:
    parts = [case["mode"]]
    if case["mode"] == "lora":
        parts += [case["lora"]["set"], case["lora"]["adapter_dtype"]]
    if case["attention"] == "eager":
        parts.append("eager")
    if case["checkpointing"]:
        parts.append("ckpt")
    return " ".join(parts)


def measured_flops(case: dict[str, Any]) -> float:
    by_op = case["by_op"]
    # PEFT's merged expert weights run bmm in backward too: not attention (harness.py).
    attention = sum(v for k, v in by_op.items() if k in ATTENTION_OPS)
    attention -= case.get("merge_backward_bmm", 0)
    return sum(by_op.values()) - attention + CAUSAL * attention


def compare(record: dict[str, Any]) -> list[Row]:
    fam = record["family"]
    full_spec = spec_of(record, "full")
    rows = [Row(fam, "params", "total", record["params"]["total"], count_params(full_spec).total)]
    for lo in record["lora_params"]:
        total, _ = full_spec.lora_params(lo["rank"], tuple(ftcost_targets(lo)))
        rows.append(Row(fam, "lora", lo["set"], lo["trainable"], total))
    for case in record["flops"]:
        r = estimate(inputs_for(record, case))
        tokens = case["batch"] * case["seq"]
        ours = r.flops.per_token * tokens
        rows.append(Row(fam, "flops", mode_label(case), measured_flops(case), ours))
    for case in record["saved"]:
        r = estimate(inputs_for(record, case))
        vocab = spec_of(record, case["config"]).vocab_size
        ours = saved_bytes(r.memory, case["batch"] * case["seq"], vocab)
        rows.append(Row(fam, "saved", mode_label(case), case["total_bytes"], ours))
        if case.get("allocator"):
            peak = backward_peak_bytes(r.memory, inputs_for(record, case))
            measured = case["allocator"]["backward_peak"]
            rows.append(Row(fam, "peak", mode_label(case), measured, peak))
    return rows


def backward_peak_bytes(mem: Any, inputs: EstimateInputs) -> float:
    """The core's allocated bytes above the weights at the backward's peak: what the forward
    saved, plus the larger of the loss path's transient and one recomputed layer (memory.py)."""
    from ftcost_gui.core.memory_step import MemoryInputs, activations, logits_bytes

    mi = MemoryInputs.of(inputs)
    act = activations(mi)
    recompute = act.working_bytes - act.loss_freed_bytes if act.working_bytes else 0.0
    if recompute > logits_bytes(mi):
        recompute += cpu_promotion_bytes(mi)
    return float(mem.activations_saved_bytes + max(recompute, logits_bytes(mi)))


def cpu_promotion_bytes(mi: Any) -> float:
    """A CPU-only temporary the records include and a GPU does not allocate: PEFT adds the fp32
    LoRA output to the bf16 base output, and on the CPU TensorIterator promotes the bf16 input
    through a temporary fp32 copy (ATen TensorIterator compute_types: 'Creates temporaries for
    CPU operations ... Promotes inputs by creating temporaries of the correct dtype'; CUDA
    kernels cast while loading). At the up station (core/recompute.py) that is 4 B per token per
    output column of the adapted up projection (validation/backward_trace.py)."""
    from ftcost_gui.core.memory_step import activation_inventory, lora_acts
    from ftcost_gui.core.recompute import up_width

    lora = lora_acts(mi.training)
    inv = activation_inventory(mi)
    tokens = mi.rows * mi.seq_len
    if lora is None or lora.adapter_bytes == 2 or not inv.recompute:
        return 0.0
    peak = max(inv.recompute, key=lambda st: sum(s.bytes_per_token * tokens + s.fixed_bytes
                                                  for s in st))  # fmt: skip
    if not any(s.name.startswith("up projection's base output") for s in peak):
        return 0.0
    return 4.0 * up_width(mi.model, lora) * tokens


def saved_bytes(mem: Any, tokens: int, vocab: int) -> float:
    """The core's bytes saved for backward after the forward (what the hooks count): every
    activation kept, the loss's log-softmax output included (activations.py)."""
    return float(mem.activations_saved_bytes)


ACCURACY_DOC = Path(__file__).resolve().parents[1] / "docs" / "accuracy.md"


def column(row: Row, pool_eager: bool = False) -> str:
    """The table column a comparison falls in (mode without shapes, LoRA sets pooled)."""
    words = [w for w in row.mode.split() if not (pool_eager and w == "eager")]
    mode = words[0]
    if mode == "lora":
        mode = "LoRA bf16" if "bf16" in words else "LoRA"
    else:
        mode = "full"
    if "eager" in words:
        mode += " eager"
    if "ckpt" in words:
        mode += " ckpt"
    return mode
