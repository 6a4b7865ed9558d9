""" "Which GPU" rows from row plans (issue 17): ``estimate.row_plan`` is ``plan(alternative=False)``
without the memory breakdown and layouts, and ``GpuComparer`` keeps its row plans across the
edits no plan reads. Over the whole input space and GPUs of every built-in kind, resized:

- a row plan's figures are its plan's (the fit's figures are the breakdown's, to the bit), and
  the row made from it is the row made from the plan;
- a comparer that compared other inputs before (one field edited: the window's edit) gives the
  rows a new comparer gives;
- one ``RowPlanner`` run over many GPUs (the comparer's: one per plan key) gives each GPU the
  row plan of its own planner, GPUs sharing their memory size or kind included.
"""

from __future__ import annotations

import importlib

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, remembered, rollout
from ftcost_gui.core.compare import GpuComparer, Offer, inputs_on_gpu, offer, offer_row
from ftcost_gui.core.estimate import plan
from ftcost_gui.core.inputs import GpuSpec
from ftcost_gui.core.remembered import GpuFits
from ftcost_gui.core.row_plans import RowPlanner, row_plan
from ftcost_gui.io.resources import builtin_catalog

from .strategies import examples, inputs_anywhere, one_field_edits

ROWS = settings(max_examples=examples(0.01, least=80), deadline=None)
EDITS = settings(max_examples=examples(0.01, least=60), deadline=None)


def _resized(g: GpuSpec, memory: float, tflops: float) -> GpuSpec:
    update = {"memory_gib": round(g.memory_gib * memory, 3)}
    update["bf16_tflops"] = round(g.bf16_tflops * tflops, 3)
    return g.model_copy(update=update)


BUILTIN = [g.to_spec() for g in builtin_catalog().gpus]
gpus = st.builds(
    _resized, st.sampled_from(BUILTIN), st.floats(0.25, 4.0), st.floats(0.5, 2.0)
)  # fmt: skip


def _dump(row) -> str:
    return repr(row.model_dump()) + repr(row.spec)  # repr: NaN equals NaN, types compared


@ROWS
@given(inputs_anywhere(), gpus, st.booleans())
def test_a_row_plan_is_its_plan_without_the_breakdown(inputs, gpu, forget):
    on_gpu = inputs_on_gpu(inputs, gpu)
    if forget:
        remembered.clear()
    rp = row_plan(on_gpu)
    p = plan(on_gpu, alternative=False)
    b = p.memory
    assert rp.memory == (
        b.gpus_needed, p.time.num_gpus, b.fits, b.headroom_bytes, b.usable_bytes, b.total_bytes
    )  # fmt: skip
    assert (rp.inputs, rp.tokens, rp.flops, rp.nodes) == (p.inputs, p.tokens, p.flops, p.nodes)
    assert repr(rp.time) == repr(p.time)
    assert rp.warnings == p.warnings
    o = Offer(gpu, "user:x", "AWS", "us-east-1", "spot")
    assert _dump(offer_row(rp, o)) == _dump(offer_row(p, o))


OFFERS = [offer(_resized(g, m, t)) for g in BUILTIN[::3] for m, t in ((0.5, 1.3), (1.7, 0.8))]


@EDITS
@given(one_field_edits())
def test_a_comparer_after_an_edit_gives_a_new_comparers_rows(pair):
    first, edited = pair
    warm = GpuComparer()
    warm.rows(first, OFFERS)
    rows = warm.rows(edited, OFFERS)
    remembered.clear()
    fresh = GpuComparer().rows(edited, OFFERS)
    assert [_dump(r) for r in rows] == [_dump(r) for r in fresh]


def test_finish_only_edits_keep_the_plans_and_give_a_new_comparers_rows():
    """The MFU fields and the estimate's own prices: no plan again, every row finished again."""
    base = EstimateInputs()
    edits = [
        ("efficiency", {"mfu": 0.23}),
        ("efficiency", {"mfu": None, "stack_efficiency": 0.61}),
        ("efficiency", {"mfu_band": 0.4}),
        ("efficiency", {"measured_tokens_per_s": 5000.0}),
        ("hardware", {"price_origin": "user"}),
        ("spot", {"interruptions_per_node_hour": 0.2}),
        ("project", {"planned_runs": 7}),
    ]
    warm = GpuComparer()
    warm.rows(base, OFFERS)
    for section, fields in edits:
        edited = base.edited(section, **fields)
        plans = warm.plans
        rows = warm.rows(edited, OFFERS)
        assert warm.plans == plans, (section, fields)
        remembered.clear()
        assert [_dump(r) for r in rows] == [_dump(r) for r in GpuComparer().rows(edited, OFFERS)]
        base = edited


# GPUs that share their memory (and often their kind) but differ in the rest: a planner's memory
# step and evaluation plan, kept per what they read of a GPU, are taken for the next GPU.
shared_memory_gpus = st.builds(
    lambda g, memory, tflops, node, unit: g.model_copy(
        update={
            "memory_gib": memory, "bf16_tflops": round(g.bf16_tflops * tflops, 3),
            "gpus_per_node": node, "rent_unit_gpus": unit,
        }
    ),
    st.sampled_from(BUILTIN),
    st.sampled_from((16.0, 24.0, 80.0, 141.0)),
    st.floats(0.5, 2.0),
    st.sampled_from((1, 2, 4, 8, 72)),
    st.sampled_from((1, 2, 8, 16)),
)  # fmt: skip


def _same_row_plan(a, b) -> None:
    assert (a.inputs, a.tokens, a.flops, a.memory, a.nodes) == (
        b.inputs, b.tokens, b.flops, b.memory, b.nodes
    )  # fmt: skip
    assert repr(a.time) == repr(b.time)  # repr: NaN equals NaN
    assert a.warnings == b.warnings


@ROWS
@given(inputs_anywhere(), st.lists(st.one_of(gpus, shared_memory_gpus), min_size=2, max_size=8))
def test_one_planner_on_many_gpus_gives_each_gpus_row_plan(inputs, specs):
    """``RowPlanner`` made for the first GPU and run over all (what GpuComparer does for a
    catalog) gives each GPU the row plan a planner of its own gives."""
    planner = RowPlanner(inputs_on_gpu(inputs, specs[0]), GpuFits())
    for spec in specs:
        on_gpu = inputs_on_gpu(inputs, spec)
        _same_row_plan(planner(on_gpu), row_plan(on_gpu))


def test_a_planner_runs_the_memory_step_and_evaluation_once_per_what_they_read(monkeypatch):
    """Work counted: 12 GPUs of one kind at four TFLOPS ratings and three memory sizes: three
    memory steps (one per memory size), one evaluation plan per GPU count, engine degree and
    bandwidth; a row plan each."""
    row_plans = importlib.import_module("ftcost_gui.core.row_plans")
    calls = {"_auto_checkpointing": 0, "eval_plan": 0}
    for owner, name in ((row_plans, "_auto_checkpointing"), (rollout, "eval_plan")):
        real = getattr(owner, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    h100 = next(g for g in BUILTIN if g.id == "h100-sxm")
    specs = [
        h100.model_copy(update={"memory_gib": memory, "bf16_tflops": 900.0 + 10 * k})
        for memory in (40.0, 80.0, 160.0)
        for k in range(4)
    ]
    inputs = EstimateInputs()
    planner = RowPlanner(inputs_on_gpu(inputs, specs[0]), GpuFits())
    row_plans = [planner(inputs_on_gpu(inputs, s)) for s in specs]
    assert calls["_auto_checkpointing"] == 3
    keys = {
        (p.time.num_gpus, p.time.eval_gen.tp, h100.memory_bandwidth_gb_s) for p in row_plans
    }  # fmt: skip
    assert calls["eval_plan"] == len(keys) <= 3
    for spec, p in zip(specs, row_plans, strict=True):
        _same_row_plan(p, row_plan(inputs_on_gpu(inputs, spec)))
