"""Result models: frozen, every figure with its unit in its name.

Built with ``build`` by the estimator (the numbers are computed, not user input), which keeps one
estimate well under 100 µs.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

_FROZEN = ConfigDict(frozen=True, defer_build=True)  # built on first validation, not at import

_M = TypeVar("_M", bound=BaseModel)
_new = object.__new__
# BaseModel's four slots, set through their descriptors (what object.__setattr__ finds, sooner).
_SET_DICT = BaseModel.__dict__["__dict__"].__set__
_SET_FIELDS = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__


def build(cls: type[_M], **values: Any) -> _M:
    """``cls.model_construct(**values)`` for a result model given every field, in field order.

    The same object pydantic's ``model_construct`` makes for a model without aliases, defaults in
    use, extras or private attributes (tests/core/test_steps.py compares them; test_results.py
    validates every result of a spread of estimates from its own dump), at a fifth of the cost:
    an estimate builds some twenty results (benchmarks/bench_core.py).
    """
    return made(cls, values)


# One set of field names per result model, shared by the models ``made`` makes: each is a
# model_construct given every field (pydantic never changes a frozen model's set: model_copy
# copies it first, as ``copied`` does).
_FIELDS_SET: dict[type[BaseModel], set[str]] = {}


def made(cls: type[_M], values: dict[str, Any]) -> _M:
    """``build(cls, **values)`` of a dict of every field in field order, which the model keeps
    as its own (results.build; the finish copies its templates of a plan's fixed figures)."""
    m = _new(cls)
    _SET_DICT(m, values)
    fields = _FIELDS_SET.get(cls)
    if fields is None:
        fields = _FIELDS_SET[cls] = set(cls.model_fields)
    _SET_FIELDS(m, fields)
    _SET_EXTRA(m, None)
    _SET_PRIVATE(m, None)
    return m


def copied(m: _M, name: str, value: Any) -> _M:
    """``m.model_copy(update={name: value})`` (a shallow copy, ``value`` not validated), in
    ``build``'s way: the same object (tests/core/test_steps.py compares them)."""
    values = dict(m.__dict__)
    values[name] = value
    copy = _new(type(m))
    _SET_DICT(copy, values)
    _SET_FIELDS(copy, {*m.__pydantic_fields_set__, name})
    _SET_EXTRA(copy, None if m.__pydantic_extra__ is None else dict(m.__pydantic_extra__))
    _SET_PRIVATE(copy, None if m.__pydantic_private__ is None else dict(m.__pydantic_private__))
    return copy


class ParamSummary(BaseModel):
    model_config = _FROZEN
    total: float
    active: float
    embedding: float
    lm_head: float
    non_embedding: float
    decoder_linear: float
    trainable: float
    adapter: float
    adapter_active: float


class TokenSummary(BaseModel):
    model_config = _FROZEN
    useful_tokens: float
    useful_fraction: float
    tokens_processed: float  # D
    seq_len: int
    sequences_per_epoch: float
    # Why that fraction: 'given' (override), 'tokens' (a token total counts as useful),
    # 'packing' (no padding), 'longest' (each micro-batch padded to its longest row) or
    # 'max_length' (every row padded to the max length).
    fraction_source: str
    row_tokens: float  # tokens one micro-batch row holds, padding included (s when packed)
    useful_per_example: float  # E[min(length, s)]: an example's tokens after truncation


class FlopBreakdown(BaseModel):
    """Per-token coefficients (FLOPs per processed token) and totals."""

    model_config = _FROZEN
    base_per_token: float
    recompute_per_token: float
    attention_per_token: float
    adapters_per_token: float
    per_token: float
    total_flops: float
    attention_share: float  # attention ÷ parameter matmul terms
    adapter_share: float  # adapters ÷ all
    matmul_params: float  # N of the per-token terms: parameters in matrix multiplies per token
    base_coefficient: float  # 6 (full) or 4 (frozen base): FLOPs per matmul parameter
    attention_coefficient: float  # 6, or 8 with recomputation: × L·s·d per token


MEMORY_PART_LABELS: dict[str, str] = {
    "weights": "Weights",
    "gradients": "Gradients",
    "master": "fp32 master weights",
    "optimizer": "Optimizer moments",
    "adapters": "Adapters (w + grad + opt)",
    "activations": "Activations",
    "logits": "Logits & loss",
    "buffers": "Work buffers",
    "reference": "Reference model",
    "critic": "Reward & value models",
    "rollout_weights": "Rollout weights (vLLM)",
    "kv_cache": "KV cache (rollouts)",
    "reserve": "Allocator reserve",
    "overhead": "CUDA context",
}
# The parts only DPO/GRPO/PPO runs have: views list them when a run has them.
OBJECTIVE_MEMORY_PARTS = frozenset({"reference", "critic", "rollout_weights", "kv_cache"})


class MemoryBreakdown(BaseModel):
    """Peak memory of one GPU, in bytes, by part.

    Three figures, each what one tool reports: ``peak_allocated_bytes`` (every tensor at the
    backward peak: ``torch.cuda.max_memory_allocated``), ``peak_reserved_bytes`` (with the caching
    allocator's reserve: ``max_memory_reserved``) and ``total_bytes``, the device total (plus the
    CUDA context and library workspaces: what nvidia-smi shows). ``fits``: device total ≤ memory.
    """

    model_config = _FROZEN
    weights_bytes: float
    gradients_bytes: float
    master_bytes: float
    optimizer_bytes: float
    adapters_bytes: float
    activations_bytes: float
    activations_saved_bytes: float  # checkpointed layer inputs (001's 2·L·b·s·h) or all layers
    activations_working_bytes: float  # one layer recomputed during backward, at its peak
    logits_bytes: float
    buffers_bytes: float
    reserve_bytes: float  # allocator reserve: reserved − allocated at the peak
    overhead_bytes: float  # CUDA context, cuBLAS/NCCL workspaces: outside the allocator
    peak_allocated_bytes: float  # max_memory_allocated
    peak_reserved_bytes: float  # max_memory_reserved = allocated ÷ allocator efficiency
    peak_phase: str  # when the peak happens: "backward" or "optimizer step" (memory.py)
    total_bytes: float  # device total = reserved + CUDA context (nvidia-smi)
    capacity_bytes: float
    usable_bytes: float  # what the device total may use: the GPU's memory
    fits: bool
    headroom_bytes: float  # usable − total (negative: short by)
    gpus_needed: int | None  # fewest GPUs that fit with the chosen sharding; None: none does
    cpu_offloaded_bytes: float
    bytes_per_param: float  # persistent state per parameter, unsharded
    state_bytes: float  # persistent state (weights, grads, master, moments, adapters), unsharded
    reference_bytes: float  # DPO/RL: a frozen reference copy (alignment.py)
    critic_bytes: float  # reward model + PPO's value model
    rollout_weights_bytes: float  # a colocated vLLM engine's weight copy
    kv_cache_bytes: float  # its KV cache (or the policy's generation peak beyond training's)

    def parts(self) -> list[tuple[str, float]]:
        return [(key, getattr(self, f"{key}_bytes")) for key in MEMORY_PART_LABELS]


class CollectiveResult(BaseModel):
    """One collective of a data-parallel step (core/comm.py), per GPU."""

    model_config = _FROZEN
    name: str
    payload_bytes: float  # S, the tensor moved
    ring_factor: float  # 2(n−1)/n or (n−1)/n
    per_step: float  # times per optimizer step
    bytes_per_step: float  # S × ring factor × times


class TimeBreakdown(BaseModel):
    model_config = _FROZEN
    num_gpus: int  # GPUs that train
    nodes: int
    rented_gpus: int  # GPUs billed
    peak_flops_per_s: float
    achieved_flops_per_s: float  # per GPU, model FLOPs, communication and slowdowns included
    effective_mfu: float  # achieved ÷ peak
    # The MFU of the compute (throughput.py): achievable × stack, or the user's.
    mfu: float
    mfu_source: str  # "default", "stack" (the user's stack efficiency) or "given"
    mfu_default: float  # what the default would be on this GPU for this method and data shape
    achievable_fraction: float  # the GPU's sustained matmul ÷ its vendor peak
    stack_efficiency: float  # mfu ÷ achievable: what the stack reaches of the GPU's achievable
    stack_method: float  # the default's stack efficiency by method, long sequences
    stack_method_key: str  # "full", "lora" or "qlora"
    shape_factor: float  # the default's busy fraction of a micro-batch spent in matmuls
    tokens_per_microbatch: float
    matmul_s_per_microbatch: float
    fixed_s_per_microbatch: float
    dequant_s_per_microbatch: float  # QLoRA, timed from bytes and bandwidth
    steps: float  # optimizer steps of the run
    communication: str  # "links" (bytes over the link), "table" (articles' flat) or "given"
    comm_overhead: float  # exposed communication ÷ compute time
    comm_exposed_s: float  # communication not hidden behind compute, whole run
    comm_bytes_per_step: float  # per GPU, all collectives
    comm_s_per_step: float  # before overlap
    comm_overlap: float  # share of a step's compute that hides communication
    comm_overlap_given: bool
    comm_link: str  # the slowest hop: "NVLink/NVSwitch", "InfiniBand", ...
    comm_link_gb_s: float  # per GPU, one direction
    comm_between_nodes: bool
    comm_collectives: tuple[CollectiveResult, ...]
    qlora_slowdown: float  # a flat factor the user gave (1 unless given and QLoRA)
    offload_slowdown: float  # applied factor (1 unless the optimizer is offloaded)
    slowdown: float  # training wall ÷ (FLOPs ÷ (peak × MFU) ÷ GPUs)
    tokens_per_s_per_gpu: float
    compute_gpu_hours: float
    train_wall_s: float
    provisioning_s: float
    download_s: float
    warmup_s: float
    nccl_s: float
    checkpoint_writes_s: float
    eval_s: float
    rl_generation_s: float
    idle_s: float
    held_wall_s: float
    held_gpu_hours: float  # rented GPUs × held wall-clock


class CostBreakdown(BaseModel):
    model_config = _FROZEN
    on_demand_usd_per_hour: float
    spot_usd_per_hour: float | None
    compute_only_usd: float  # compute GPU-hours × on-demand price (the FLOP bill)
    training_usd: float
    startup_usd: float  # provisioning, download, warm-up, NCCL
    checkpoint_usd: float
    evaluation_usd: float
    rl_generation_usd: float
    idle_usd: float
    on_demand_usd: float  # per run
    spot_factor: float  # F
    job_interruptions_per_hour: float
    spot_price_ratio: float | None  # (spot ÷ on-demand) × F
    spot_usd: float | None
    take_spot: bool | None
    usd_per_1e18_flops: float
    low_usd: float  # at the high end of the MFU band
    high_usd: float


class CheckpointSummary(BaseModel):
    model_config = _FROZEN
    params: float  # parameters whose state is saved (all, or the adapters)
    resumable_bytes: float
    bytes_per_param: float
    write_s: float
    writes_per_run: int
    storage_bytes: float


class ProjectSummary(BaseModel):
    model_config = _FROZEN
    runs: int
    run_usd: float
    runs_usd: float
    evaluation_usd: float  # the evaluation share of the runs
    storage_usd: float
    engineering_usd: float
    total_usd: float
    low_usd: float
    high_usd: float


class StepCheck(BaseModel):
    """Article 004's step-based estimate."""

    model_config = _FROZEN
    effective_batch: int
    steps_per_epoch: int
    passes: float  # epochs in 'examples' mode; 1 for a token total (it covers every epoch)
    total_steps: int
    step_time_s: float
    wall_s: float
    gpu_hours: float
    implied_mfu: float


class SimpleRules(BaseModel):
    """The articles' napkin figures, kept beside the detailed model."""

    model_config = _FROZEN
    flop_coefficient: float  # 6, 4 or 8 (+2 with checkpointing)
    flops: float  # coefficient × N × D (article 001's one-line skeleton)
    gpu_hours: float
    attention_coefficient: float  # 6, or 8 with recomputation (article 000)
    flops_with_attention: float  # (coef·N + attn_coef·L·s·h) × D: article 000's cost table
    gpu_hours_with_attention: float
    bytes_per_param: float  # 16 / 10 / 8 / 2 / 0.52 (+ 003's 2.5 and 0.75 in the help)
    state_bytes: float
    activations_bytes: float  # 2·L·b·s·h with recomputation (001)
    usable_bytes: float  # article 001: 85% of the reported memory
    gpus_needed: int  # ceil(state ÷ usable)
    attention_share: float  # L·s·d ÷ N (001)


class AlignmentSummary(BaseModel):
    """What DPO/GRPO/PPO add (alignment.py, rollout.py); zeros and 'sft' for SFT."""

    model_config = _FROZEN
    objective: str
    policy_flops: float  # the policy update (SFT on the trained tokens, × updates per batch)
    reference_flops: float  # reference forwards (DPO pairs, RL rollouts at β > 0)
    old_logprob_flops: float  # the policy's log-probs at sampling (vLLM correction, μ > 1)
    reward_flops: float
    value_flops: float  # PPO's value model: forward + training
    steps: float  # RL optimizer steps (0 for SFT/DPO)
    trained_tokens_per_step: float
    generated_tokens_per_step: float
    generated_tokens: float  # whole run
    placement: str  # colocated / separate / policy ('' without rollouts)
    engines: int
    tp: int  # GPUs per rollout engine
    rollout_gpus: int  # GPUs held beside the trainer's (separate placement)
    rollout_gpu_bytes: float  # what vLLM reserves on each of its GPUs (0: colocated or none)
    decode_batch: float  # sequences decoded at once per engine
    kv_bytes_per_token: float
    decode_step_s: float  # one decoding step at that batch
    generation_tokens_per_s_per_gpu: float
    generation_mfu: float  # generated tokens × 2N ÷ (time × peak × generating GPUs)
    generation_s_per_step: float  # decode + prefill (wall)
    prefill_s_per_step: float
    sync_s_per_step: float  # weight sync trainer → engines
    training_s_per_step: float  # the trainer's compute (update + extra forwards), wall
    step_s: float  # generation + sync + training (synchronous, as TRL runs)
    sft_step_s: float  # an SFT step on the same trained tokens, same GPUs and MFU
    rl_to_sft_step: float  # step_s ÷ sft_step_s
    eval_tokens_per_s_per_gpu: float
    eval_generation_mfu: float
    # Trainer GPUs the memory forces with each rollout placement (None: none fits; 0: SFT/DPO).
    gpus_colocated: int | None
    gpus_separate: int | None  # the trainer alone; the rollout GPUs come on top
    gpus_policy: int | None


class LayoutSummary(BaseModel):
    """GPUs needed, rented and trained on; checkpointing as chosen; the memory verdict.

    See core/layout.py.
    """

    model_config = _FROZEN
    gpus_needed: int | None  # the memory floor (None: no count fits)
    num_gpus: int  # GPUs that train
    rented_gpus: int  # GPUs billed
    nodes: int
    node_size: int  # GPUs per node used for the layout (the GPU's, or the user's)
    rent_unit_gpus: int
    rounded_up: bool  # more GPUs rented than needed
    # GPUs billed for rollout engines beside the trainer's (separate placement): whole-node
    # renting rounds trainer + rollout GPUs together (core/layout.rollout_rented).
    rollout_rented_gpus: int
    checkpointing_mode: str  # what was asked: "auto", "full" or "none"
    checkpointing: bool  # whether the run recomputes
    checkpointing_reason: str  # why, for "auto"
    # The road not taken under "auto" (None otherwise): the other checkpointing setting.
    alt_checkpointing: bool | None
    alt_gpus_needed: int | None
    alt_rented_gpus: int | None
    alt_fits: bool | None
    alt_near_limit: bool | None  # it fits only within the near-limit margin
    alt_on_demand_usd: float | None
    alt_held_wall_s: float | None
    memory_status: str  # "fits", "near_limit" or "does_not_fit"
    near_limit_fraction: float  # the margin that flags "near_limit"
    headroom_fraction: float  # free ÷ usable memory per GPU
    price_origin: str  # where the prices come from ("built-in", "user:<catalog>", "typed by hand")
    price_as_of: str
    price_source: str


class Band(BaseModel):
    model_config = _FROZEN
    low: float
    expected: float
    high: float


class RangeSummary(BaseModel):
    """Low / expected / high of the figures a decision rests on, and what each end assumed
    (core/ranges.py)."""

    model_config = _FROZEN
    memory_bytes: Band  # device total per GPU
    memory_row_tokens: float  # the row length the low end is at (the max length: no length band)
    memory_efficiency_high: float  # allocator efficiency at the high end
    memory_high_fits: bool  # the high end still fits the GPU
    mfu: Band
    mfu_band: float  # the relative uncertainty given
    comm_band: bool  # communication over links, overlapped: the high end exposes all of it
    comm_exposed_s: float  # communication the estimate leaves exposed, whole run
    comm_exposed_high_s: float  # at the high end: none of it hidden
    price_usd_per_hour: Band
    compute_gpu_hours: Band
    held_wall_s: Band
    held_gpu_hours: Band
    on_demand_usd: Band
    spot_usd: Band | None
    project_usd: Band


class EstimateResult(BaseModel):
    model_config = _FROZEN
    params: ParamSummary
    tokens: TokenSummary
    flops: FlopBreakdown
    memory: MemoryBreakdown
    layout: LayoutSummary
    time: TimeBreakdown
    cost: CostBreakdown
    checkpoint: CheckpointSummary
    project: ProjectSummary
    step_check: StepCheck | None
    measured_mfu: float | None
    simple: SimpleRules
    alignment: AlignmentSummary
    ranges: RangeSummary
    warnings: tuple[str, ...]
