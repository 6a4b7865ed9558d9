""" "Which GPU" rows from row plans (issue 17): ``estimate.row_plan`` is ``plan(alternative=False)``
without the memory breakdown and layouts, and ``GpuComparer`` keeps its row plans across the
edits no plan reads. Over the whole input space and GPUs of every built-in kind, resized:

- a row plan's figures are its plan's (the fit's figures are the breakdown's, to the bit), and
  the row made from it is the row made from the plan;
- a comparer that compared other inputs before (one field edited: the window's edit) gives the
  rows a new comparer gives.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, remembered
from ftcost_gui.core.compare import GpuComparer, Offer, inputs_on_gpu, offer, offer_row
from ftcost_gui.core.estimate import plan, row_plan
from ftcost_gui.core.inputs import GpuSpec
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
