"""Step: the memory one GPU needs, how many GPUs that forces, and whether the run fits.

The per-tensor terms are named here, one function each; their bytes-per-element formulas live in
memory.py (article 001 'Memory sets the floor'; Korthikanti et al. 2023; Rajbhandari et al. 2020).
The step depends on ``MemoryInputs`` only, so a caller can reuse a memory figure for any edit that
leaves those unchanged (an MFU, price, token or project edit).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from . import alignment, rollout
from .activations import LoraActs, Saved, layer_inventory, outside_inventory
from .activations import fixed as fixed_bytes
from .activations import total as total_bytes
from .architecture import ModelSpec, ParamCounts
from .inputs import EstimateInputs, TrainingSpec
from .memory import (
    ADAPTER_STATE_BYTES,
    BF16_BYTES,
    CHUNKED_LOSS_TOKENS,
    FP32_BYTES,
    LOGITS_CHUNKED_BYTES,
    LOGITS_STANDARD_BYTES,
    OPTIMIZER_TEMP_BYTES,
    RECIPES,
    ZERO_BUCKET_BYTES,
    MemoryModel,
    base_weight_bytes,
    layer_stored_bytes,
)
from .objective import ObjectiveSpec
from .params import Adapters
from .recompute import loss_freed, recompute_stations, station_bytes
from .results import MemoryBreakdown, build
from .units import GIB

SFT = ObjectiveSpec()


@dataclass(frozen=True, slots=True)
class MemoryInputs:
    """Everything the memory per GPU depends on, and nothing else."""

    model: ModelSpec
    training: TrainingSpec
    seq_len: int
    gpu_memory_gib: float
    usable_memory_fraction: float
    framework_overhead_gib: float
    objective: ObjectiveSpec = SFT  # DPO/GRPO/PPO: extra models, rollout memory (alignment.py)

    @classmethod
    def of(cls, inputs: EstimateInputs, sections: tuple[object, ...] | None = None) -> MemoryInputs:
        """``sections``: (model, data, training, objective) equal to the inputs' to hold instead
        (the estimate's job: memo keys holding the same objects compare by identity)."""
        hw = inputs.hardware
        model, training, objective = inputs.model, inputs.training, inputs.objective
        if sections is not None:
            model, _, training, objective = sections  # type: ignore[assignment]
        return cls(
            model, training, alignment.trained_seq_len(inputs), hw.gpu.memory_gib,
            hw.usable_memory_fraction, hw.framework_overhead_gib, objective,
        )  # fmt: skip

    def with_training(self, training: TrainingSpec) -> MemoryInputs:
        """``dataclasses.replace(self, training=training)``, sooner (a fit per GPU and setting:
        "Which GPU" asks 10,000 of these)."""
        return MemoryInputs(
            self.model, training, self.seq_len, self.gpu_memory_gib, self.usable_memory_fraction,
            self.framework_overhead_gib, self.objective,
        )  # fmt: skip

    def with_gpu_memory(self, gpu_memory_gib: float) -> MemoryInputs:
        """``dataclasses.replace(self, gpu_memory_gib=…)``, sooner (row_plans.RowPlanner: one
        job's memory inputs on each GPU of a catalog)."""
        return MemoryInputs(
            self.model, self.training, self.seq_len, gpu_memory_gib, self.usable_memory_fraction,
            self.framework_overhead_gib, self.objective,
        )  # fmt: skip

    @property
    def rows(self) -> int:
        """Sequences one micro-batch holds (DPO: chosen and rejected of each pair)."""
        return self.training.micro_batch * alignment.rows_per_micro_batch_factor(self.objective)


class MemoryStep(NamedTuple):
    breakdown: MemoryBreakdown
    num_gpus: int  # the GPUs of the job: the fewest that fit (auto) or the count given


class Activations(NamedTuple):
    saved_bytes: float  # kept for backward after the forward: checkpointed inputs or every tensor
    working_bytes: float  # one layer recomputed during backward, at its peak (checkpointing only)
    loss_freed_bytes: float = 0.0  # saved by the loss path, freed before a layer is recomputed


def lora_acts(tr: TrainingSpec) -> LoraActs | None:
    """What activations need of the adapters; None when the base trains (full fine-tuning)."""
    if RECIPES[tr.method].full:
        return None
    adapter_bytes = FP32_BYTES if tr.adapter_dtype == "fp32" else BF16_BYTES
    return LoraActs(frozenset(tr.lora_targets), tr.lora_rank, adapter_bytes)


class Inventory(NamedTuple):
    layer: tuple[Saved, ...]  # one decoder layer whose input needs a gradient, bytes per token
    outside: tuple[Saved, ...]  # outside the layers, bytes per token
    layer_bytes: float
    outside_bytes: float
    # The first layer: the same as the others, except under LoRA without checkpointing, where
    # its input (the frozen embedding's output) needs no gradient (activations.py).
    first: tuple[Saved, ...] = ()
    first_bytes: float = 0.0
    layer_fixed_bytes: float = 0.0  # per layer whatever the tokens (merged expert weights)
    first_fixed_bytes: float = 0.0
    # Checkpointing: beside the recomputed layer's saved tensors at its peak (recompute.py), and
    # the outside tensors the loss path frees before the first layer is recomputed.
    recompute: tuple[tuple[Saved, ...], ...] = ()  # one per station
    loss_freed_bytes: float = 0.0


@lru_cache(maxsize=512)
def _inventory(
    m: ModelSpec, attention: str, seq_len: int, full: bool, lora: LoraActs | None, ckpt: bool,
    loss: str,
) -> Inventory:  # fmt: skip
    layer = layer_inventory(m, attention, seq_len, full, lora)
    first = layer if full or ckpt else layer_inventory(m, attention, seq_len, full, lora, False)
    outside = outside_inventory(m, seq_len, full, lora, loss)
    stations = recompute_stations(m, full, lora, layer) if ckpt else ()
    return Inventory(
        tuple(layer), tuple(outside), total_bytes(layer), total_bytes(outside),
        tuple(first), total_bytes(first), fixed_bytes(layer), fixed_bytes(first),
        stations, loss_freed(outside),
    )  # fmt: skip


def activation_inventory(mi: MemoryInputs) -> Inventory:
    """Every saved tensor of one decoder layer and outside the layers, bytes per token (cached:
    a sweep or an edit elsewhere reuses it)."""
    tr = mi.training
    return _inventory(
        mi.model, tr.attention, mi.seq_len, RECIPES[tr.method].full, lora_acts(tr),
        tr.checkpointing == "full", tr.loss,
    )  # fmt: skip


def inventory_for(inputs: EstimateInputs, checkpointing: bool) -> tuple[Inventory, float]:
    """The saved-tensor inventory of a run with checkpointing resolved (the layout's choice),
    and the tokens of one micro-batch it is multiplied by: what the explanation lists."""
    mi = MemoryInputs.of(inputs)
    training = mi.training.model_copy(update={"checkpointing": "full" if checkpointing else "none"})
    mi = replace(mi, training=training)
    return activation_inventory(mi), float(mi.rows * mi.seq_len)


def activations(mi: MemoryInputs) -> Activations:
    """Activation memory of one micro-batch, tensor by tensor (activations.py, measured).

    With checkpointing each layer keeps only its input (article 001: 2·L·b·s·h) and one layer is
    recomputed, with all its tensors, during backward; beside them at that layer's peak live
    its output's gradient and one station's temporaries (recompute.py, measured op by op).
    """
    m, tr = mi.model, mi.training
    tokens_mb = mi.rows * mi.seq_len
    inv = activation_inventory(mi)
    one_layer = inv.layer_bytes * tokens_mb + inv.layer_fixed_bytes
    saved: float
    working = freed = 0.0
    if tr.checkpointing == "full":
        saved = m.num_layers * BF16_BYTES * m.hidden_size * tokens_mb
        working = one_layer + station_bytes(inv.recompute, tokens_mb)
        freed = inv.loss_freed_bytes * tokens_mb
    else:
        first = inv.first_bytes * tokens_mb + inv.first_fixed_bytes
        saved = first + (m.num_layers - 1) * one_layer
    return Activations(saved + inv.outside_bytes * tokens_mb, working, freed)


def logits_bytes(mi: MemoryInputs) -> float:
    """The loss path's backward peak beyond what the forward keeps: all tokens, or one chunk."""
    tokens_mb = mi.rows * mi.seq_len
    if mi.training.loss == "standard":
        return LOGITS_STANDARD_BYTES * tokens_mb * mi.model.vocab_size
    return LOGITS_CHUNKED_BYTES * min(tokens_mb, CHUNKED_LOSS_TOKENS) * mi.model.vocab_size


def grad_bucket_bytes(sharding: str, trainable_grad_bytes: float) -> float:
    """Gradient communication buffers (multi-GPU only; MemoryModel.split applies that)."""
    if sharding == "none":
        # DDP's reducer keeps a bucket copy of all gradients (PyTorch DDP docs,
        # gradient_as_bucket_view: 'saved memory size will be equal to the total gradients size').
        return trainable_grad_bytes
    if sharding in ("zero1", "zero2"):
        return min(trainable_grad_bytes, ZERO_BUCKET_BYTES)
    return 0.0


def memory_model(mi: MemoryInputs, counts: ParamCounts, adapters: Adapters) -> MemoryModel:
    """Every tensor of the run, unsharded (part A) or sharded over the GPUs (part B)."""
    tr = mi.training
    recipe = RECIPES[tr.method]
    act = activations(mi)
    a_weight, a_grad, a_moments = ADAPTER_STATE_BYTES[tr.adapter_dtype]
    trainable_grad_bytes = (
        counts.total * recipe.gradients if recipe.full else adapters.total * a_grad
    )
    state = (
        base_weight_bytes(tr.method, counts)
        + counts.total * (recipe.gradients + recipe.master + recipe.moments)
        + adapters.total * (a_weight + a_grad + a_moments)
    )
    extra = alignment_memory(mi, counts, state)
    return MemoryModel(
        weights=base_weight_bytes(tr.method, counts),
        gradients=counts.total * recipe.gradients,
        master=counts.total * recipe.master,
        optimizer=counts.total * recipe.moments,
        adapters_weights=adapters.total * a_weight,
        adapters_grads=adapters.total * a_grad,
        adapters_moments=adapters.total * a_moments,
        activations_saved=act.saved_bytes,
        activations_working=act.working_bytes,
        activations_loss_freed=act.loss_freed_bytes,
        logits=logits_bytes(mi),
        # QLoRA dequantises one linear at a time into a bf16 buffer.
        qlora_buffer=BF16_BYTES * counts.largest_linear if tr.method == "qlora" else 0.0,
        layer_gather=2 * layer_stored_bytes(tr.method, counts, mi.model.num_layers),
        grad_buckets=grad_bucket_bytes(tr.sharding, trainable_grad_bytes),
        overhead=mi.framework_overhead_gib * GIB,
        sharding=tr.sharding,
        offload=tr.cpu_offload_optimizer,
        allocator_efficiency=mi.usable_memory_fraction,
        # Fused AdamW (HF Trainer's default) steps without temporaries (memory.py, measured).
        optimizer_temporaries=counts.total * OPTIMIZER_TEMP_BYTES.get(tr.method, 0.0),
        accumulating=tr.grad_accum > 1,
        gradients_at_recompute=gradients_at_recompute(tr, counts),
        **extra,
    )


def gradients_at_recompute(tr: TrainingSpec, counts: ParamCounts) -> float:
    """Full fine-tuning with checkpointing: the parameter gradients that exist while the first
    layer is recomputed — all but layer 0's and the untied input embedding's (a tied one is the
    head's, made first). Measured with validation/backward_trace.py (no --warm): the fresh
    step's peak is there, in layer 0's down projection backward."""
    recipe = RECIPES[tr.method]
    if not recipe.full or tr.checkpointing != "full":
        return 0.0
    embedding = counts.embedding if counts.lm_head else 0.0
    return (counts.total - counts.layer - embedding) * recipe.gradients


def alignment_memory(
    mi: MemoryInputs, counts: ParamCounts, policy_state: float
) -> dict[str, float]:
    """The MemoryModel fields of DPO/GRPO/PPO: extra models and the rollout engine's memory."""
    ob = mi.objective
    if ob.objective == "sft":
        return {}
    models = alignment.extra_models(ob, mi.training.method, counts, policy_state)
    out = {
        "reference": models.reference,
        "reward": models.reward,
        "critic_ratio": ob.critic_size_ratio if ob.objective == "ppo" else 0.0,
    }
    if not alignment.is_rl(ob):
        return out
    seq_kv = rollout.kv_bytes_per_token(mi.model) * (
        ob.mean_prompt_tokens + ob.mean_completion_tokens
    )
    if ob.rollout_placement == "colocated":
        reserve = ob.rollout_memory_share * mi.gpu_memory_gib * GIB
        weights = counts.total * BF16_BYTES
        out["rollout_weights"] = min(weights, reserve)
        out["rollout_kv"] = max(0.0, reserve - weights)
    elif ob.rollout_placement == "policy":
        out["gen_gather"] = base_weight_bytes(mi.training.method, counts)
        out["gen_kv_per_seq"] = seq_kv
        out["gen_seqs"] = ob.prompts_per_step * ob.completions_per_prompt / ob.kept_fraction
        out["gen_max_seqs"] = float(mi.training.micro_batch * mi.training.grad_accum)
    return out


def reads_gpu_memory(mi: MemoryInputs) -> bool:
    """Whether ``memory_model(mi, …)`` depends on the GPU's memory: only a colocated rollout
    engine's reservation does (a share of it, ``alignment_memory``)."""
    return alignment.is_rl(mi.objective) and mi.objective.rollout_placement == "colocated"


class Fit(NamedTuple):
    """What a memory step says of the fit, the same figures as its breakdown's."""

    gpus_needed: int | None
    num_gpus: int  # the GPUs of the job: the fewest that fit (auto) or the count given
    fits: bool
    headroom_bytes: float
    usable_bytes: float
    total_bytes: float  # the device total per GPU (the breakdown's total)


def memory_fit(mi: MemoryInputs, mem: MemoryModel) -> Fit:
    """``memory_per_gpu(mi, …, mem)``'s fit without its breakdown ("Which GPU" weighs both
    checkpointing settings of 5,000 GPUs and shows one): ``MemoryModel.total(n)`` is the
    breakdown's total (the same parts summed in the same order, ``phase_totals``)."""
    return fit_on(mi.gpu_memory_gib, mi.training, mem)


def fit_on(gpu_memory_gib: float, tr: TrainingSpec, mem: MemoryModel) -> Fit:
    """``memory_fit`` of memory inputs with this GPU memory and training section (what it
    reads of them: "Which GPU" fits one model on thousands of GPU memories)."""
    usable = gpu_memory_gib * GIB  # the device total (allocated + reserve + context) must fit
    gpus_needed = mem.gpus_needed(usable)
    n = gpus_needed if tr.auto_gpu_count and gpus_needed is not None else tr.num_gpus
    total = mem.total(n)
    return Fit(gpus_needed, n, total <= usable, usable - total, usable, total)


def fit_warnings(fits: bool, gpus_needed: int | None, n: int, warnings: list[str]) -> None:
    """The warning of a memory step on n GPUs that does not fit (``memory_per_gpu``'s)."""
    if fits:
        return
    if gpus_needed is None:
        warnings.append(
            "Does not fit on any number of these GPUs with this sharding: shard more "
            "(ZeRO-3), offload the optimizer, cut the micro-batch or sequence length, or use "
            "a bigger GPU."
        )
    else:
        warnings.append(f"Does not fit on {n} GPU(s): needs {gpus_needed}.")


def memory_per_gpu(
    mi: MemoryInputs, counts: ParamCounts, adapters: Adapters, warnings: list[str],
    mem: MemoryModel | None = None, f: Fit | None = None,
) -> MemoryStep:  # fmt: skip
    """Per-GPU memory on the job's GPUs; appends a warning when it does not fit. ``mem``: the
    run's ``memory_model(mi, counts, adapters)`` when the caller has it; ``f``: its
    ``memory_fit``, likewise."""
    if mem is None:
        mem = memory_model(mi, counts, adapters)
    if f is None:
        f = memory_fit(mi, mem)
    capacity = usable = f.usable_bytes
    gpus_needed, n = f.gpus_needed, f.num_gpus
    phase = mem.peak_phase(n)
    parts = mem.phase_parts(n, phase)
    total = sum(parts.values())
    reserved = total - parts["overhead"]
    fits = total <= usable
    fit_warnings(fits, gpus_needed, n, warnings)
    state = (
        mem.weights + mem.gradients + mem.master + mem.optimizer
        + mem.adapters_weights + mem.adapters_grads + mem.adapters_moments
    )  # fmt: skip
    breakdown = build(
        MemoryBreakdown,
        weights_bytes=parts["weights"],
        gradients_bytes=parts["gradients"],
        master_bytes=parts["master"],
        optimizer_bytes=parts["optimizer"],
        adapters_bytes=parts["adapters"],
        activations_bytes=parts["activations"],
        activations_saved_bytes=mem.activations_saved,
        activations_working_bytes=mem.activations_working,
        logits_bytes=parts["logits"],
        buffers_bytes=parts["buffers"],
        reserve_bytes=parts["reserve"],
        overhead_bytes=parts["overhead"],
        peak_allocated_bytes=reserved - parts["reserve"],
        peak_reserved_bytes=reserved,
        peak_phase=phase,
        total_bytes=total,
        capacity_bytes=capacity,
        usable_bytes=usable,
        fits=fits,
        headroom_bytes=usable - total,
        gpus_needed=gpus_needed,
        cpu_offloaded_bytes=mem.offloaded_bytes(),
        bytes_per_param=state / counts.total,
        state_bytes=state,
        reference_bytes=parts["reference"],
        critic_bytes=parts["critic"],
        rollout_weights_bytes=parts["rollout_weights"],
        kv_cache_bytes=parts["kv_cache"],
    )
    return MemoryStep(breakdown, n)
