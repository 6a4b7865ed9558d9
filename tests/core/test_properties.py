"""The property suite over the whole input space (issue 12).

Every input field is drawn within its declared range, bounds included (``strategies.py`` builds
the draw from the field metadata, so a field added tomorrow is drawn too). The inputs go through
``estimate``, the CLI table, the JSON document, the CSV rows and an estimate file round trip:
no exception, every figure finite and non-negative, and each output giving back exactly what
went in. Then the monotone properties the physics promises, each on inputs from anywhere.

Example counts follow the hypothesis profile (tests/conftest.py): the whole-input-space property
runs the profile's count (10,000 under ``HYPOTHESIS_PROFILE=ci``), each monotone property a
tenth of it.

Like with like: checkpointing "auto" turns recomputation off once memory allows (core/layout.py),
so a memory edit may change the recomputation and with it the activations and the GPUs needed.
The memory properties compare at the checkpointing the first estimate chose (``_resolved``).
"""

from __future__ import annotations

import json
import math
import re
import typing
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from ftcost_gui.cli.documents import estimate_document, to_json
from ftcost_gui.cli.estimate_text import format_estimate
from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.fields import field_spec
from ftcost_gui.core.results import EstimateResult
from ftcost_gui.core.rows import result_rows
from ftcost_gui.io.estimate_file import dumps_estimate, loads_estimate
from ftcost_gui.io.export_csv import read_results_csv, results_csv
from ftcost_gui.io.names import plain, storable

from .strategies import (
    BYTES_PER_FIELD,
    bounds,
    decode,
    examples,
    inputs_anywhere,
    layout,
    repair,
    replaced,
)

WHOLE = settings(max_examples=settings.default.max_examples)
MONOTONE = settings(max_examples=examples(0.1))
# Figures that are signed by meaning: free memory is negative when the run does not fit.
SIGNED = {".memory.headroom_bytes", ".layout.headroom_fraction"}
# Floating-point slack for "never less": a product computed in another order.
SLACK = 1e-9


def figures(result: BaseModel) -> list[tuple[str, float]]:
    """Every number of a result, by path (bools, texts and None left out)."""
    out: list[tuple[str, float]] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list | tuple):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")
        elif type(node) is float or type(node) is int:
            out.append((path, node))

    walk(result.model_dump(), "")
    return out


def _texts(obj: object) -> object:
    """A dumped model with every string as an estimate file stores it (``names.storable``)."""
    if isinstance(obj, str):
        return storable(obj)
    if isinstance(obj, dict):
        return {k: _texts(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_texts(v) for v in obj]
    return obj


def _resolved(inputs: EstimateInputs, r: EstimateResult | None = None) -> EstimateInputs:
    """The inputs with checkpointing "auto" replaced by what the estimate chose."""
    if inputs.training.checkpointing != "auto":
        return inputs
    chosen = (r or estimate(inputs)).layout.checkpointing
    return replaced(inputs, training__checkpointing="full" if chosen else "none")


# --- The draw covers the whole space ------------------------------------------------------------


def _leaf_paths(model: type[BaseModel], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, info in model.model_fields.items():
        yield (*path, name)
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _leaf_paths(ann, (*path, name))


def test_the_draw_covers_every_input_field():
    """Every field of EstimateInputs is drawn: either a leaf of the draw or a section it walks
    into — so a field someone adds is drawn (or this test names it)."""
    drawn = [p for p, _ in layout()]
    for path in _leaf_paths(EstimateInputs):
        assert path in drawn or any(d[: len(path)] == path for d in drawn), (
            f"{'.'.join(path)} is not drawn by tests/core/strategies.py"
        )


def _model_of(path: tuple[str, ...]) -> type[BaseModel]:
    model: type[BaseModel] = EstimateInputs
    for part in path[:-1]:
        ann = model.model_fields[part].annotation
        assert isinstance(ann, type) and issubclass(ann, BaseModel)
        model = ann
    return model


def test_the_draw_reaches_every_bound_choice_and_none():
    """Each field's decoder gives its lower and upper bound, every choice, both booleans and
    (optional fields) None: the bounds are in the draw, not only near it."""
    for path, decoder in layout():
        model = _model_of(path)
        info = model.model_fields[path[-1]]
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            continue  # a composite field, drawn whole by its own decoder
        spec = field_spec(model, path[-1])
        values = [decoder(code) for code in range(4096)]
        where = ".".join(path)
        if spec.kind in ("int", "float"):
            lo, hi = bounds(model, path[-1])
            if spec.kind == "int":
                lo, hi = math.ceil(lo), math.floor(hi)
            assert lo in values and hi in values, where
            assert all(v is None or lo <= v <= hi for v in values), where
            if spec.optional:
                assert None in values, where
        elif spec.kind == "bool":
            assert set(values) == {False, True}, where
        elif spec.kind == "choice":
            assert set(values) == set(spec.choices), where
        elif typing.get_origin(info.annotation) is tuple:  # LoRA targets: each one drawn
            (choices,) = (typing.get_args(a) for a in typing.get_args(info.annotation)[:1])
            assert set().union(*values) == set(choices), where


def test_the_draw_is_rarely_refused():
    """Cross-field rules are repaired inside the fields' ranges: nearly every draw validates
    (hypothesis would otherwise spend the examples on filtered draws)."""
    import random

    rng = random.Random(12)
    size = BYTES_PER_FIELD * len(layout())
    refused = 0
    for _ in range(500):
        try:
            EstimateInputs.model_validate(repair(decode(rng.randbytes(size))))
        except ValidationError:
            refused += 1
    assert refused <= 25, refused


# --- The whole input space: no exception, finite, non-negative, every output round-trips ------


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@WHOLE
@given(inputs_anywhere())
def test_whole_input_space(inputs):
    r = estimate(inputs)
    numbers = figures(r)
    for path, value in numbers:
        assert math.isfinite(value), (path, value)
        assert value >= 0 or path in SIGNED, (path, value)

    # The CLI table: one clean text (names from files are data: no escape sequence survives).
    table = format_estimate(inputs, r)
    assert table.endswith("\n") and _CONTROL.search(table) is None

    # JSON (ftcost estimate --json): valid, finite, and exactly the result's figures.
    doc = json.loads(to_json(estimate_document(inputs, r)))
    assert doc["result"] == r.model_dump(mode="json")
    assert EstimateInputs.model_validate(doc["inputs"]) == inputs

    # CSV (--csv, File → Export CSV): one row per figure, floats exact.
    name = inputs.model.name
    cells = read_results_csv(results_csv([(name, r)]))
    shown = plain(name)  # a name in a CSV cell is cleaned (names.for_csv)
    for row in result_rows(r):
        cell = cells[(shown, row.section, row.key)]
        if isinstance(row.value, float):
            assert float(cell) == row.value, (row.section, row.key)
        elif isinstance(row.value, bool | int):
            assert cell == str(row.value), (row.section, row.key)
        elif row.value is None:
            assert cell == "", (row.section, row.key)

    # An estimate file: dumps → loads gives the same inputs, so the same figures (estimate is
    # pure). A name with a lone surrogate is stored with U+FFFD: the figures are recomputed.
    back = loads_estimate(dumps_estimate(inputs))
    if back != inputs:
        assert back.model_dump(mode="json") == _texts(inputs.model_dump(mode="json"))
        assert figures(estimate(back)) == numbers


# --- Monotone where the physics says so ---------------------------------------------------------


def _at_least(more: float, less: float) -> bool:
    return more >= less * (1 - SLACK) - 1e-300


@MONOTONE
@given(inputs_anywhere(), st.sampled_from(["data", "epochs"]), st.floats(1.0, 10.0))
def test_more_tokens_or_epochs_never_cheaper(inputs, knob, factor):
    """More training tokens (a larger token total or more examples) or more epochs: never fewer
    FLOPs, GPU-hours, dollars per run or for the project. The memory is unchanged, so is the
    layout (checkpointing "auto" included)."""
    d = inputs.data
    if knob == "epochs":
        more = replaced(inputs, data__epochs=min(d.epochs * factor, 1000))
    elif d.mode == "tokens":
        more = replaced(inputs, data__total_tokens=min(d.total_tokens * factor, 1e15))
    else:
        more = replaced(inputs, data__num_examples=min(round(d.num_examples * factor), 10**10))
    a, b = estimate(inputs), estimate(more)
    assert b.layout.num_gpus == a.layout.num_gpus
    assert _at_least(b.tokens.tokens_processed, a.tokens.tokens_processed)
    assert _at_least(b.flops.total_flops, a.flops.total_flops)
    assert _at_least(b.time.compute_gpu_hours, a.time.compute_gpu_hours)
    assert _at_least(b.time.held_gpu_hours, a.time.held_gpu_hours)
    assert _at_least(b.cost.on_demand_usd, a.cost.on_demand_usd)
    assert _at_least(b.project.total_usd, a.project.total_usd)


@MONOTONE
@given(inputs_anywhere(), st.floats(1.0, 100.0))
def test_higher_mfu_never_slower(inputs, factor):
    """A higher MFU (given) never makes the run slower or dearer."""
    mfu = inputs.efficiency.mfu or 0.35
    low = replaced(inputs, efficiency__mfu=mfu)
    high = replaced(inputs, efficiency__mfu=min(mfu * factor, 1.0))
    a, b = estimate(low), estimate(high)
    assert b.time.mfu >= a.time.mfu
    assert b.time.train_wall_s <= a.time.train_wall_s * (1 + SLACK)
    assert b.time.held_wall_s <= a.time.held_wall_s * (1 + SLACK)
    assert b.cost.on_demand_usd <= a.cost.on_demand_usd * (1 + SLACK)
    assert b.project.total_usd <= a.project.total_usd * (1 + SLACK)


@MONOTONE
@given(inputs_anywhere(), st.integers(2, 100_000), st.integers(1, 100_000))
def test_more_gpus_with_sharding_never_more_memory_per_gpu(inputs, n, more):
    """ZeRO shards state over the GPUs: on more of them (from two on, where the communication
    buffers exist) no GPU holds more. Without sharding each GPU holds the same."""
    fixed = _resolved(replaced(inputs, training__auto_gpu_count=False, training__num_gpus=n))
    bigger = replaced(fixed, training__num_gpus=min(n + more, 100_000))
    a, b = estimate(fixed).memory, estimate(bigger).memory
    assert b.total_bytes <= a.total_bytes * (1 + SLACK)
    if inputs.training.sharding == "none" and inputs.objective.objective == "sft":
        assert b.total_bytes == a.total_bytes


@MONOTONE
@given(inputs_anywhere(), st.integers(1, 4096))
def test_larger_micro_batch_never_less_activation_memory(inputs, more):
    """More sequences per forward pass: never fewer activation and logit bytes, never less
    memory per GPU, on the same GPUs and checkpointing."""
    fixed = _resolved(replaced(inputs, training__auto_gpu_count=False))
    bigger = replaced(fixed, training__micro_batch=min(fixed.training.micro_batch + more, 4096))
    a, b = estimate(fixed).memory, estimate(bigger).memory
    # The peak holds the larger of a recomputed layer's working set and the logits, and the
    # breakdown names that one: each part alone may switch to zero, their sum never falls.
    assert _at_least(b.activations_bytes + b.logits_bytes, a.activations_bytes + a.logits_bytes)
    assert _at_least(b.total_bytes, a.total_bytes)


@MONOTONE
@given(inputs_anywhere(), st.floats(1.0, 4.0))
def test_more_memory_per_gpu_never_needs_more_gpus(inputs, factor):
    """A GPU with more memory never needs more of them (checkpointing as first chosen)."""
    fixed = _resolved(inputs)
    g = fixed.hardware.gpu
    bigger = replaced(fixed, hardware__gpu__memory_gib=min(g.memory_gib * factor, 4096))
    small, large = estimate(fixed).memory.gpus_needed, estimate(bigger).memory.gpus_needed
    if small is not None:
        assert large is not None and large <= small


@MONOTONE
@given(inputs_anywhere(), st.booleans())
def test_checkpointing_auto_never_needs_more_gpus_than_checkpointing(inputs, auto_count):
    """'auto' drops recomputation only where the run still fits on the GPUs checkpointing would
    rent (core/layout.py): it never rents more GPUs than "full", and fits wherever "full" fits.
    (Its memory floor, ``memory.gpus_needed``, is that of the choice it made: without
    recomputation it may be higher than with it, on the same rented GPUs.)"""
    base = replaced(inputs, training__auto_gpu_count=auto_count)
    auto = estimate(replaced(base, training__checkpointing="auto"))
    full = estimate(replaced(base, training__checkpointing="full"))
    if full.memory.fits:
        assert auto.memory.fits
    if auto_count and full.memory.gpus_needed is not None:
        assert auto.layout.rented_gpus <= full.layout.rented_gpus
        assert auto.layout.num_gpus <= full.layout.num_gpus


@MONOTONE
@given(inputs_anywhere(), st.floats(1.0, 4.0))
def test_more_memory_per_gpu_never_rents_more_gpus_under_checkpointing_auto(inputs, factor):
    """The user-facing side of the GPU-memory property under 'auto' (checkpointing free to
    change with the memory): the GPUs rented never grow with the memory of each."""
    auto = replaced(inputs, training__auto_gpu_count=True, training__checkpointing="auto")
    g = auto.hardware.gpu
    bigger = replaced(auto, hardware__gpu__memory_gib=min(g.memory_gib * factor, 4096))
    small, large = estimate(auto), estimate(bigger)
    if small.memory.gpus_needed is not None:
        assert large.memory.gpus_needed is not None
        assert large.layout.rented_gpus <= small.layout.rented_gpus


@MONOTONE
@given(inputs_anywhere(), st.floats(1.0, 4.0), st.booleans())
def test_more_memory_per_gpu_never_costs_more_to_train(inputs, factor, auto_count):
    """More memory per GPU (checkpointing 'auto' free to change): fewer or the same GPUs, less
    or the same recomputation, so never a dearer run. Two exceptions are real, not noise, and
    are set aside here rather than smoothed in the core:

    - checkpoint writes are a step in the wall-clock: fewer GPUs train longer, and a run
      stretched past one more checkpoint interval writes once more, all rented GPUs waiting
      (time_cost.py: writes = ⌊training wall ÷ interval⌋); generation (evaluation, RL
      rollouts) runs in whole engines and whole batches (rollout.py), so its GPU-hours step
      with the count too: the training, start-up and idle cost is compared, not those steps;
    - 'auto' checkpoints to leave the near-limit margin when it can (layout.py): on a larger
      GPU the run without recomputation may still sit within the margin (a fraction of the
      larger memory) while recomputation now clears it, so 'auto' pays for safety it could
      not buy on the smaller GPU: compared with no margin (``near_limit_fraction`` 0);
    - rollout GPUs rented beside the trainer (GRPO/PPO, separate placement) are held for the
      whole wall-clock: fewer, larger trainer GPUs train longer and hold them longer (90,094 →
      43,838 trainer GPUs beside 64 rollout GPUs: +0.07%), a real cost of "fewest GPUs that
      fit": the trainer GPUs' share of the bill is compared.
    """
    auto = replaced(
        inputs,
        training__auto_gpu_count=auto_count,
        training__checkpointing="auto",
        hardware__near_limit_fraction=0.0,
    )
    g = auto.hardware.gpu
    bigger = replaced(auto, hardware__gpu__memory_gib=min(g.memory_gib * factor, 4096))
    a, b = estimate(auto), estimate(bigger)
    if a.memory.fits:
        assert b.memory.fits
        before = _trainer_share(a) * (a.cost.training_usd + a.cost.startup_usd + a.cost.idle_usd)
        after = _trainer_share(b) * (b.cost.training_usd + b.cost.startup_usd + b.cost.idle_usd)
        assert after <= before * (1 + SLACK)


def _trainer_share(r) -> float:
    """The trainer's rented GPUs ÷ all GPUs billed (time_cost: rented + rollout GPUs beside)."""
    return r.layout.rented_gpus / (r.layout.rented_gpus + r.layout.rollout_rented_gpus)


@MONOTONE
@given(inputs_anywhere())
def test_gpus_needed_is_the_fewest_that_fit(inputs):
    """The GPU count the memory floor forces fits, and one fewer does not (the search in
    core/memory.py is exact)."""
    fixed = _resolved(inputs)
    needed = estimate(fixed).memory.gpus_needed

    def on(n: int):
        return estimate(replaced(fixed, training__auto_gpu_count=False, training__num_gpus=n))

    if needed is None:
        assert not on(100_000).memory.fits
    elif needed <= 100_000:
        assert on(needed).memory.fits
        if needed > 1:
            assert not on(needed - 1).memory.fits


@MONOTONE
@given(inputs_anywhere(), st.floats(1.0, 10.0), st.integers(1, 100))
def test_dearer_gpus_and_more_runs_never_cheaper(inputs, factor, runs):
    g = inputs.hardware.gpu
    r = estimate(inputs)
    dearer = estimate(
        replaced(
            inputs,
            hardware__gpu__on_demand_usd_per_hour=min(g.on_demand_usd_per_hour * factor, 10_000),
        )
    )
    assert _at_least(dearer.cost.on_demand_usd, r.cost.on_demand_usd)
    assert _at_least(dearer.project.total_usd, r.project.total_usd)
    planned = min(inputs.project.planned_runs + runs, 100_000)
    more_runs = estimate(replaced(inputs, project__planned_runs=planned))
    assert more_runs.cost.on_demand_usd == r.cost.on_demand_usd
    assert _at_least(more_runs.project.total_usd, r.project.total_usd)


# --- Invalid inputs: a ValidationError naming the field -----------------------------------------


bad_values = st.one_of(
    st.just(("data", "total_tokens", -5.0)),
    st.just(("data", "epochs", 0)),
    st.just(("training", "micro_batch", 0)),
    st.just(("training", "method", "sgd")),
    st.just(("efficiency", "mfu", 1.5)),
    st.just(("model", "num_layers", "many")),
    st.tuples(st.just("data"), st.just("max_seq_len"), st.integers(max_value=15)),
    st.tuples(st.just("efficiency"), st.just("mfu"), st.floats(max_value=0) | st.just(math.nan)),
    st.tuples(st.just("hardware"), st.just("usable_memory_fraction"), st.floats(min_value=1.01)),
)


@MONOTONE
@given(bad_values)
def test_invalid_input_is_a_validation_error_naming_the_field(bad):
    section, field, value = bad
    doc = EstimateInputs().model_dump()
    doc[section][field] = value
    try:
        EstimateInputs.model_validate(doc)
    except ValidationError as exc:
        locs = [".".join(map(str, e["loc"])) for e in exc.errors()]
        assert any(field in loc for loc in locs), locs
    else:
        raise AssertionError(f"{section}.{field}={value!r} was accepted")
