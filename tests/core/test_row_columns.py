""" "Which GPU" by float columns (issue 17): ``GpuComparer`` makes its rows with
``row_columns.RowColumns`` (what no GPU changes worked out once, each GPU's few floats, the run
time's arithmetic per offer), and every field of every row is the row of the row-plan path,
``offer_row(row_plan(inputs on the GPU), offer)``, exactly (``==`` of the reprs: NaN equals NaN,
types compared). Over the whole input space, GPUs drawn over the whole declared bounds of every
GpuSpec field, GPUs sharing their memory, link or kind, offers at other prices and tiers; after
an edit (one field, or only what a plan does not read) as for new inputs. And the work counted:
a plan per GPU, a memory step per memory size, a time plan per GPU count, link and evaluation;
none of them again for an MFU edit.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, remembered
from ftcost_gui.core.catalog import id_key
from ftcost_gui.core.compare import GpuComparer, Offer, offer_row
from ftcost_gui.core.inputs import GpuSpec
from ftcost_gui.core.row_plans import inputs_on_gpu, row_plan
from ftcost_gui.io.resources import builtin_catalog

from .strategies import examples, inputs_anywhere, one_field_edits

ROWS = settings(max_examples=examples(0.02, least=120), deadline=None)
EDITS = settings(max_examples=examples(0.01, least=60), deadline=None)

BUILTIN = [g.to_spec() for g in builtin_catalog().gpus]
# Any GPU spec: every field over its declared bounds (the strategies' decoder), id made unique.
any_gpu = inputs_anywhere().map(lambda i: i.hardware.gpu)


def _like(g: GpuSpec, other: GpuSpec, fields: tuple[str, ...]) -> GpuSpec:
    """``g`` with ``other``'s values of ``fields``: GPUs that share a memory step, a link or
    an evaluation plan with another, so the planner's kept steps are taken for them."""
    return g.model_copy(update={f: getattr(other, f) for f in fields})


SHARED = (
    ("memory_gib", "gpus_per_node", "rent_unit_gpus"),
    ("interconnect", "interconnect_gb_s", "network", "network_gbit_s", "gpus_per_node"),
    ("memory_gib", "memory_bandwidth_gb_s", "gpus_per_node", "rent_unit_gpus"),
    ("memory_gib", "bf16_tflops", "achievable_fraction", "memory_bandwidth_gb_s"),
)


@st.composite
def catalogs(draw: st.DrawFn) -> list[Offer]:
    """Offers of a few GPUs: drawn anywhere, built-in, sharing parts of another's spec, and the
    same GPU again at other prices and tiers (offers with equal facts share one plan)."""
    specs = draw(st.lists(st.one_of(any_gpu, st.sampled_from(BUILTIN)), min_size=1, max_size=5))
    for _ in range(draw(st.integers(0, 3))):
        g, other = draw(st.sampled_from(specs)), draw(st.sampled_from(specs))
        specs.append(_like(g, other, draw(st.sampled_from(SHARED))))
    offers = []
    for i, g in enumerate(specs):
        o = Offer(g.model_copy(update={"id": f"{g.id}-{i}"}), "user:x", "P", "r", g.pricing_tier)
        offers.append(o)
        if draw(st.booleans()):  # the same GPU at other prices, another tier
            od = draw(st.floats(0.0, 100.0))
            spot = draw(st.one_of(st.none(), st.floats(0.0, 100.0)))
            spec = o.spec.model_copy(
                update={"id": f"{g.id}-{i}b", "on_demand_usd_per_hour": od,
                        "spot_usd_per_hour": spot}
            )  # fmt: skip
            tier = draw(st.sampled_from(("on_demand", "spot", "committed_1y", "committed_3y")))
            offers.append(replace(o, spec=spec, pricing_tier=tier))
    return offers


def _dump(row) -> str:
    return repr(row.model_dump()) + repr(row.spec)  # repr: NaN equals NaN, types compared


def _reference(inputs: EstimateInputs, offers: list[Offer]) -> list[str]:
    """The row-plan path's rows, as GpuComparer gave them before the float columns: each offer
    priced on the row plan of the first offer with its facts (whose GPU names its tier in the
    no-spot-price warning), the estimate's own GPU marked current. An error is its type's name."""
    first: dict[object, GpuSpec] = {}
    out = []
    for o in offers:
        spec = first.setdefault(o.facts, o.spec)
        try:
            r = offer_row(row_plan(inputs_on_gpu(inputs, spec)), o)
        except ArithmeticError as e:  # a draw at the edge of the bounds: the same error
            out.append(type(e).__name__)
            continue
        if id_key(o.spec.id) == id_key(inputs.hardware.gpu.id):
            r = r.model_copy(update={"current": True})
        out.append(_dump(r))
    return out


def _rows(comparer: GpuComparer, inputs: EstimateInputs, offers: list[Offer]) -> list[str]:
    try:
        return [_dump(r) for r in comparer.rows(inputs, offers)]
    except ArithmeticError as e:
        return [type(e).__name__]


def _same(rows: list[str], want: list[str]) -> None:
    errors = [w for w in want if not w.startswith("{")]
    if errors:  # the row-plan path fails at a GPU: the columns fail too, with the same error
        assert rows == errors[:1]
    else:
        assert rows == want


@ROWS
@given(inputs_anywhere(), catalogs(), st.booleans())
def test_every_field_of_every_row_is_the_row_plan_paths(inputs, offers, forget):
    if forget:
        remembered.clear()
    rows = _rows(GpuComparer(), inputs, offers)
    remembered.clear()
    _same(rows, _reference(inputs, offers))


FINISH_ONLY = st.one_of(
    st.builds(lambda m: ("efficiency", {"mfu": m}), st.floats(0.01, 1.0)),
    st.builds(lambda s: ("efficiency", {"mfu": None, "stack_efficiency": s}), st.floats(0.01, 1.0)),
    st.builds(lambda t: ("efficiency", {"step_time_s": t}), st.floats(1e-4, 100.0)),
    st.builds(lambda r: ("efficiency", {"measured_tokens_per_s": r}), st.floats(1.0, 1e8)),
    st.builds(lambda b: ("project", {"billing": b}), st.sampled_from(("on_demand", "spot"))),
    st.builds(lambda x: ("spot", {"interruptions_per_node_hour": x}), st.floats(0.0, 1.0)),
)


@EDITS
@given(one_field_edits(), catalogs())
def test_after_an_edit_the_rows_are_the_row_plan_paths(pair, offers):
    """One field edited (the window's edit): plans kept or made again, rows finished again."""
    first, edited = pair
    comparer = GpuComparer()
    _rows(comparer, first, offers)
    rows = _rows(comparer, edited, offers)
    remembered.clear()
    _same(rows, _reference(edited, offers))


@EDITS
@given(inputs_anywhere(), catalogs(), st.lists(FINISH_ONLY, min_size=1, max_size=3))
def test_finish_only_edits_keep_the_plans_and_give_the_row_plan_paths_rows(inputs, offers, edits):
    comparer = GpuComparer()
    _rows(comparer, inputs, offers)
    for section, fields in edits:
        try:
            inputs = inputs.edited(section, **fields)
        except ValueError:  # a rule of the section refuses it (e.g. a step time beyond bounds)
            continue
        plans = comparer.plans
        rows = _rows(comparer, inputs, offers)
        if not rows[0].startswith("{"):
            return
        assert comparer.plans == plans
        remembered.clear()
        _same(rows, _reference(inputs, offers))


def test_the_columns_plan_each_gpu_once_and_each_step_once_per_what_it_reads(monkeypatch):
    """Work counted on 60 GPUs of 3 kinds × 4 memory sizes × 5 TFLOPS ratings (all distinct):
    a plan each; a memory step per memory size, node and renting unit (4); a time plan per
    operand key (GPU count, rented GPUs, link, evaluation: at most one per kind and memory
    size), the row-plan path's per-GPU plan never; then an MFU edit: no plan, no step, no time
    plan, a finish per offer."""
    row_columns = importlib.import_module("ftcost_gui.core.row_columns")
    row_plans = importlib.import_module("ftcost_gui.core.row_plans")
    calls = {"_auto_checkpointing": 0, "_trainer_time": 0, "RowPlanner.__call__": 0}
    for owner, name in ((row_plans, "_auto_checkpointing"), (row_columns, "_trainer_time")):
        real = getattr(owner, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    planner_call = row_plans.RowPlanner.__call__

    def call(self, inputs):
        calls["RowPlanner.__call__"] += 1
        return planner_call(self, inputs)

    monkeypatch.setattr(row_plans.RowPlanner, "__call__", call)
    kinds = [g for g in BUILTIN if g.id in ("h100-sxm", "a100-80gb-sxm", "l40s")]
    assert len(kinds) == 3
    specs = [
        g.model_copy(
            update={
                "id": f"{g.id}-{memory}-{k}",
                "memory_gib": memory,
                "bf16_tflops": g.bf16_tflops * (1 + k / 10),
            }
        )
        for g in kinds
        for memory in (24.0, 48.0, 80.0, 141.0)
        for k in range(5)
    ]
    offers = [Offer(s) for s in specs]
    inputs = EstimateInputs()
    comparer = GpuComparer()
    rows = comparer.rows(inputs, offers)
    assert (comparer.plans, comparer.finishes) == (60, 60)
    memory_sizes = {(s.memory_gib, s.gpus_per_node, s.rent_unit_gpus) for s in specs}
    assert calls["_auto_checkpointing"] == len(memory_sizes) == 4  # 8-GPU nodes, single GPUs
    assert 0 < calls["_trainer_time"] == len(comparer._columns._operands) <= 12
    assert calls["RowPlanner.__call__"] == 0
    # The same rows as the row-plan path (which the counts above leave out).
    want = _reference(inputs, offers)
    assert [_dump(r) for r in rows] == want
    calls.update(dict.fromkeys(calls, 0))
    edited = inputs.edited("efficiency", mfu=0.41)
    rows = comparer.rows(edited, offers)
    assert (comparer.plans, comparer.finishes) == (60, 120)
    assert calls == {"_auto_checkpointing": 0, "_trainer_time": 0, "RowPlanner.__call__": 0}
    monkeypatch.undo()
    remembered.clear()
    assert [_dump(r) for r in rows] == _reference(edited, offers)
