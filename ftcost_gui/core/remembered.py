"""The last few memory steps, parameter counts and adapters, remembered (issue 17).

An edit in the window changes one section; the others stay the same objects. The estimate asks
for the same memory steps (each checkpointing setting, the count rented, the ranges' shortest
rows), counts and adapters again, and most edits (MFU, prices, data size, overheads…) leave them
alone: equal arguments give the same object back, with the same warnings. Comparing costs little
(the sections are the same objects), computing costs a memory model each.
Nothing here is a figure: each function returns what its source step would
(tests/core/test_estimate_memo.py compares warm estimates with cold ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from operator import itemgetter
from typing import Any, Protocol, TypeVar

from .architecture import ModelSpec, ParamCounts, effective_counts
from .inputs import EfficiencySpec, EstimateInputs, GpuSpec, HardwareSpec, TrainingSpec
from .memory import RECIPES, MemoryModel
from .memory_step import (
    Fit,
    MemoryInputs,
    MemoryStep,
    fit_on,
    memory_fit,
    memory_model,
    memory_per_gpu,
    reads_gpu_memory,
)
from .params import NO_ADAPTERS, Adapters, lora_adapters

# Auto checkpointing: both settings, the count rented and the ranges' rows, for one inputs and
# the one before it (an edit compares with what it replaced).
SIZE = 8
_K = TypeVar("_K")
_V = TypeVar("_V")
_Memo = list[tuple[tuple[object, ...], MemoryStep, list[str]]]
_EVERY_MEMO: list[list[object]] = []  # what ``clear`` forgets


def new_memo() -> list[Any]:
    """An empty memo that ``clear`` forgets too (every memo of the core is made here)."""
    memo: list[Any] = []
    _EVERY_MEMO.append(memo)
    return memo


MEMORY_MEMO: _Memo = new_memo()
COUNTS_MEMO: list[tuple[ModelSpec, ParamCounts]] = new_memo()
ADAPTERS_MEMO: list[tuple[tuple[object, ...], Adapters]] = new_memo()
MODELS_MEMO: list[tuple[tuple[object, ...], MemoryModel]] = new_memo()
# estimate.plan's last few plans, keyed by ``plan_key``.
PLAN_MEMO: list[tuple[tuple[object, ...], object]] = new_memo()
RESOLVED_MEMO: list[tuple[TrainingSpec, bool, int | None, TrainingSpec]] = new_memo()
# The MemoryInputs fields ``model_of`` keys on: all (tests/core/test_estimate_memo.py).
MODEL_KEY_FIELDS = frozenset(
    {"model", "training", "seq_len", "gpu_memory_gib", "usable_memory_fraction",
     "framework_overhead_gib", "objective"}
)  # fmt: skip


def recall(memo: list[tuple[_K, _V]], key: _K, make: Callable[[], _V], size: int = SIZE) -> _V:
    """The value remembered for an equal key, else ``make()``, remembered first (the last
    ``size`` keys are kept)."""
    for known, value in memo:
        if known == key:
            return value
    value = make()
    memo.insert(0, (key, value))
    del memo[size:]
    return value


def same(a: object, b: object) -> bool:
    """``a == b`` for two input sections (frozen pydantic models without extras or private
    attributes, fields only in ``__dict__``): the same type and field values, without
    BaseModel.__eq__'s own checks (an edit compares the sections it left alone, each estimate)."""
    return a is b or (a.__class__ is b.__class__ and a.__dict__ == b.__dict__)


def clear() -> None:
    """Forget everything (benchmarks: what a new model or GPU costs): every memo made by
    ``new_memo``, the jobs (core/estimate.py) and memory bands (core/ranges.py) included."""
    for memo in _EVERY_MEMO:
        memo.clear()


def memory_step(
    mi: MemoryInputs, counts: ParamCounts, adapters: Adapters, warnings: list[str],
    checkpointing: bool | None = None, num_gpus: int | None = None, seq_len: int | None = None,
    fitted: Fit | None = None,
) -> MemoryStep:  # fmt: skip
    """``memory_per_gpu`` with checkpointing resolved (None: as the inputs set it), on
    ``num_gpus`` GPUs when given, with rows of ``seq_len`` tokens when given; its warnings are
    appended to ``warnings``. ``fitted``: its ``fit`` (checkpointing given), when computed."""
    key = (mi, checkpointing, num_gpus, seq_len, counts, adapters)
    known = _remembered(key)
    if known is not None:
        warnings += known[1]
        return known[0]
    if checkpointing is not None:
        mi = replace(mi, training=_resolved(mi.training, checkpointing, num_gpus))
    if seq_len is not None:
        mi = replace(mi, seq_len=seq_len)
    told: list[str] = []  # its own list: the memo keeps it
    step = memory_per_gpu(mi, counts, adapters, told, model_of(mi, counts, adapters), fitted)
    warnings += told
    MEMORY_MEMO.insert(0, (key, step, told))
    del MEMORY_MEMO[SIZE:]
    return step


def _remembered(key: tuple[object, ...]) -> tuple[MemoryStep, list[str]] | None:
    """The remembered step (and its warnings) of a ``memory_step`` key. The GPU's memory is
    compared first: "Which GPU" asks for thousands of GPUs that differ only there."""
    gib = key[0].gpu_memory_gib  # type: ignore[attr-defined]
    for known, step, told in MEMORY_MEMO:
        if known[0].gpu_memory_gib == gib and known == key:  # type: ignore[attr-defined]
            return step, told
    return None


def fit(
    mi: MemoryInputs, counts: ParamCounts, adapters: Adapters, checkpointing: bool | None,
    num_gpus: int | None = None,
) -> Fit:  # fmt: skip
    """``memory_step(mi, counts, adapters, [], checkpointing, num_gpus)``'s fit, without
    computing its breakdown (``memory_step.memory_fit``; the memory model is shared, as the
    step's): the remembered step's when there is one (an edit that leaves memory alone)."""
    known = _remembered((mi, checkpointing, num_gpus, None, counts, adapters))
    if known is not None:
        b, n = known[0]
        return Fit(b.gpus_needed, n, b.fits, b.headroom_bytes, b.usable_bytes, b.total_bytes)
    if checkpointing is not None:
        mi = mi.with_training(_resolved(mi.training, checkpointing, num_gpus))
    return memory_fit(mi, model_of(mi, counts, adapters))


class FitOf(Protocol):
    """``fit``'s signature (``GpuFits.fit`` is one)."""

    def __call__(
        self, mi: MemoryInputs, counts: ParamCounts, adapters: Adapters,
        checkpointing: bool | None, num_gpus: int | None = None,
    ) -> Fit: ...  # fmt: skip


class GpuFits:
    """``fit`` for one job on many GPUs ("Which GPU": 5,000 GPUs, one or two fits each): the
    training section resolved and the memory model found once per (checkpointing, GPU count),
    not looked up again for each GPU. Valid while everything of the memory inputs but the GPU's
    memory, the counts and the adapters stay the same: compare.GpuComparer makes one per plan
    key. Each fit is ``fit``'s (the same memory model, the same ``memory_fit``)."""

    def __init__(self) -> None:
        self._known: dict[tuple[bool | None, int | None], tuple[TrainingSpec, MemoryModel]] = {}
        self._per_gpu: bool | None = None  # reads_gpu_memory of the job's memory inputs

    def fit(
        self, mi: MemoryInputs, counts: ParamCounts, adapters: Adapters,
        checkpointing: bool | None, num_gpus: int | None = None,
    ) -> Fit:  # fmt: skip
        per_gpu = self._per_gpu
        if per_gpu is None:
            per_gpu = self._per_gpu = reads_gpu_memory(mi)
        if per_gpu:  # a model per GPU
            return fit(mi, counts, adapters, checkpointing, num_gpus)
        known = self._known.get((checkpointing, num_gpus))
        if known is None:
            tr = mi.training
            if checkpointing is not None:
                tr = _resolved(tr, checkpointing, num_gpus)
            model = model_of(mi.with_training(tr), counts, adapters)
            known = self._known[(checkpointing, num_gpus)] = (tr, model)
        tr, model = known
        # memory_fit(mi with training tr, model): what it reads of them
        return fit_on(mi.gpu_memory_gib, tr, model)


def _resolved(tr: TrainingSpec, checkpointing: bool, num_gpus: int | None) -> TrainingSpec:
    """The training section with checkpointing set (and the GPU count fixed, when given): the
    same object for the same arguments, so that the memory models keyed on it compare by
    identity ("Which GPU": thousands of plans of one job)."""
    for known, ckpt, n, copy in RESOLVED_MEMO:
        if ckpt is checkpointing and n == num_gpus and (known is tr or known == tr):
            return copy
    update: dict[str, object] = {"checkpointing": "full" if checkpointing else "none"}
    if num_gpus is not None:
        update.update(auto_gpu_count=False, num_gpus=num_gpus)
    copy = tr.model_copy(update=update)
    RESOLVED_MEMO.insert(0, (tr, checkpointing, num_gpus, copy))
    del RESOLVED_MEMO[SIZE:]
    return copy


def model_of(mi: MemoryInputs, counts: ParamCounts, adapters: Adapters) -> MemoryModel:
    """``memory_model(mi, counts, adapters)``, one for every GPU whose memory it does not read
    (``memory_step.reads_gpu_memory``): "Which GPU" plans thousands of GPUs for one job, and
    the model remembers its totals per GPU count (``MemoryModel.phase_totals``), which finding
    each GPU's count asks for again."""
    tr = mi.training
    # Cheap, telling fields first: an unequal training section compares all its fields.
    key = (
        tr.checkpointing, tr.num_gpus, mi.seq_len, mi.model, tr, mi.usable_memory_fraction,
        mi.framework_overhead_gib, mi.objective, reads_gpu_memory(mi) and mi.gpu_memory_gib,
        counts, adapters,
    )  # fmt: skip
    return recall(MODELS_MEMO, key, lambda: memory_model(mi, counts, adapters))


def counts_of(m: ModelSpec) -> ParamCounts:
    """``effective_counts(m)``."""
    return recall(COUNTS_MEMO, m, lambda: effective_counts(m))


def adapters_of(m: ModelSpec, counts: ParamCounts, tr: TrainingSpec) -> Adapters:
    """The run's LoRA adapters (``lora_adapters``); none when the base trains."""
    if RECIPES[tr.method].full:
        return NO_ADAPTERS
    key = (m, counts, tr.lora_rank, tr.lora_targets)
    return recall(ADAPTERS_MEMO, key, lambda: lora_adapters(m, counts, tr))


# What a plan never reads (estimate.plan computes everything that does not depend on the MFU or
# the prices; ``finish`` reads these): the efficiency's MFU fields and the measurements only the
# checks read, the GPU's prices and where they come from. The spot and project sections are not
# in the key at all. tests/core/test_estimate_memo.py edits each and compares with a new plan.
FINISH_ONLY_EFFICIENCY = (
    "mfu", "stack_efficiency", "mfu_band", "measured_tokens_per_s", "step_time_s",
)  # fmt: skip
PRICE_FIELDS = (
    "on_demand_usd_per_hour", "spot_usd_per_hour", "on_demand_low_usd_per_hour",
    "on_demand_high_usd_per_hour", "price_as_of", "price_source", "pricing_tier",
)  # fmt: skip


def _getter(fields: list[str]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The values of these fields of a section's ``__dict__``, in field order, as a tuple."""
    get = itemgetter(*fields)
    return get if len(fields) > 1 else lambda d: (get(d),)


# The fields a plan reads of the efficiency, hardware (but its GPU) and GPU sections.
_PLAN_EFFICIENCY = _getter(
    [n for n in EfficiencySpec.model_fields if n not in FINISH_ONLY_EFFICIENCY]
)
_PLAN_HARDWARE = _getter([n for n in HardwareSpec.model_fields if n not in ("gpu", "price_origin")])
_PLAN_GPU = _getter([n for n in GpuSpec.model_fields if n not in PRICE_FIELDS])


def plan_key(inputs: EstimateInputs) -> tuple[object, ...]:
    """What ``estimate.plan`` reads of ``inputs`` beyond its job (compared by value): the values
    of the efficiency, hardware and GPU fields it reads (tuples, in field order), the overheads."""
    sections = inputs.__dict__  # the fields, read at once
    hw = sections["hardware"].__dict__
    return (
        _PLAN_EFFICIENCY(sections["efficiency"].__dict__), _PLAN_HARDWARE(hw),
        _PLAN_GPU(hw["gpu"].__dict__), sections["overheads"],
    )  # fmt: skip


def same_plan_key(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """``a == b`` for two ``plan_key``s (the overheads compared as ``same`` does)."""
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2] and same(a[3], b[3])
