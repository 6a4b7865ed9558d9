"""'Which GPU for this job': each row is the core's estimate on that GPU, ranked by cost per run."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core.catalog import GpuCatalog, id_key, merge_catalogs
from ftcost_gui.core.compare import (
    GpuComparison,
    cheapest_fitting,
    compare_gpus,
    fastest_fitting,
    inputs_with_gpu,
    rank_by_cost,
    rank_by_wall_clock,
)
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

from .strategies import examples


def job(model: str = "llama-2-7b", method: str = "qlora", **training) -> EstimateInputs:
    return EstimateInputs.model_validate(
        {
            "model": builtin_presets().find(model).spec.model_dump(),
            "data": {"mode": "tokens", "total_tokens": 1e8},
            "training": {"method": method, **training},
            "hardware": {"gpu": builtin_catalog().find("h100-sxm").to_spec().model_dump()},
        }
    )


@pytest.mark.parametrize(
    "inputs",
    [
        job(),
        job("llama-2-70b", "full_amp_adamw"),
        job("qwen2.5-7b", "lora", auto_gpu_count=False, num_gpus=2, sharding="zero2"),
        job("llama-2-70b", "full_amp_adamw", auto_gpu_count=False, num_gpus=4, sharding="none"),
    ],
    ids=["qlora-7b", "full-70b-auto", "lora-7b-2gpus", "full-70b-4gpus-ddp"],
)
def test_rows_equal_the_core_estimate_for_each_gpu(inputs):
    catalog = builtin_catalog()
    rows = compare_gpus(inputs, catalog.gpus)
    assert [r.gpu_id for r in rows] == [g.id for g in catalog.gpus]  # the order given
    for g, row in zip(catalog.gpus, rows, strict=True):
        d = inputs.model_dump()
        d["hardware"]["gpu"] = g.to_spec().model_dump()
        r = estimate(EstimateInputs.model_validate(d))
        assert row.fits == r.memory.fits
        assert row.gpus_needed == r.memory.gpus_needed
        assert row.num_gpus == r.time.num_gpus
        assert row.achieved_tflops == r.time.achieved_flops_per_s / 1e12
        assert row.usd_per_1e18_flops == r.cost.usd_per_1e18_flops
        assert row.wall_clock_s == r.time.held_wall_s
        assert row.train_wall_s == r.time.train_wall_s
        assert row.on_demand_usd == r.cost.on_demand_usd
        assert row.spot_usd == r.cost.spot_usd
        assert row.held_gpu_hours == r.time.held_gpu_hours
        assert row.compute_gpu_hours == r.time.compute_gpu_hours
        assert row.memory_per_gpu_bytes == r.memory.total_bytes
        assert row.usable_bytes == r.memory.usable_bytes
        assert row.warnings == r.warnings
        assert row.spec == g.to_spec()
        assert row.on_demand_usd_per_hour == g.on_demand_usd_per_hour
        assert row.bf16_supported == g.bf16_supported
        assert row.current == (g.id == "h100-sxm")


def test_gpu_count_follows_the_settings():
    auto = {
        r.gpu_id: r
        for r in compare_gpus(job("llama-2-70b", "full_amp_adamw"), builtin_catalog().gpus)
    }
    # 70B full fine-tuning with ZeRO-3: the memory floor forces several GPUs, and every GPU with
    # a count that fits does fit (auto count).
    assert auto["h100-sxm"].gpus_needed > 8
    # Beyond one node whole nodes are rented, and the job trains on all of them (issue 11).
    assert auto["h100-sxm"].num_gpus == -(-auto["h100-sxm"].gpus_needed // 8) * 8
    assert all(r.fits for r in auto.values() if r.gpus_needed is not None)
    fixed = {
        r.gpu_id: r
        for r in compare_gpus(
            job("llama-2-70b", "full_amp_adamw", auto_gpu_count=False, num_gpus=2),
            builtin_catalog().gpus,
        )
    }
    assert all(r.num_gpus == 2 for r in fixed.values())
    assert not fixed["l4"].fits and fixed["l4"].gpus_needed > 2
    assert fixed["h100-sxm"].fits == (auto["h100-sxm"].gpus_needed <= 2)


def _articles_rules(inputs: EstimateInputs) -> EstimateInputs:
    """The first release's rules, kept reachable: one pinned MFU, a flat QLoRA slowdown and the
    articles' communication table."""
    doc = inputs.model_dump()
    doc["efficiency"].update(mfu=0.35, qlora_slowdown=1.3, communication="table")
    return EstimateInputs.model_validate(doc)


def test_achieved_tflops_carry_the_qlora_and_interconnect_penalties():
    gpus = [builtin_catalog().find("h100-sxm")]
    lora = compare_gpus(_articles_rules(job(method="lora")), gpus)[0]
    qlora = compare_gpus(_articles_rules(job(method="qlora")), gpus)[0]
    assert lora.num_gpus == qlora.num_gpus == 1
    assert lora.achieved_tflops == pytest.approx(989 * 0.35)
    assert qlora.achieved_tflops == pytest.approx(989 * 0.35 / 1.3)
    pcie = builtin_catalog().find("h100-pcie")
    inputs = job("llama-2-7b", "full_amp_adamw", auto_gpu_count=False, num_gpus=4, sharding="zero3")
    r = compare_gpus(_articles_rules(inputs), [pcie])[0]
    assert r.achieved_tflops == pytest.approx(pcie.bf16_tflops * 0.35 / 2.0)  # PCIe ZeRO-3: +100%


def test_ranking_by_cost_fitting_first():
    inputs = job("llama-2-70b", "full_amp_adamw", auto_gpu_count=False, num_gpus=8)
    rows = compare_gpus(inputs, builtin_catalog().gpus)
    ranked = rank_by_cost(rows)
    fits = [r.fits for r in ranked]
    assert True in fits and False in fits
    assert fits == sorted(fits, reverse=True)  # all fitting rows before the others
    fitting = [r for r in ranked if r.fits]
    assert [r.on_demand_usd for r in fitting] == sorted(r.on_demand_usd for r in fitting)
    assert cheapest_fitting(rows) is fitting[0]
    assert cheapest_fitting(rows) is min(fitting, key=lambda r: r.on_demand_usd)
    assert sorted(map(id, ranked)) == sorted(map(id, rows))  # nothing dropped


def test_ranking_by_wall_clock():
    rows = compare_gpus(job(), builtin_catalog().gpus)
    ranked = rank_by_wall_clock(rows)
    assert [r.wall_clock_s for r in ranked] == sorted(r.wall_clock_s for r in rows)
    assert fastest_fitting(rows) is ranked[0]
    # Gaudi 3 is rented as whole 8-card machines, so the job trains on 8 of them; among single
    # GPUs a Blackwell is fastest.
    assert ranked[0].gpu_id == "gaudi3" and ranked[0].num_gpus == 8
    singles = [r for r in ranked if r.num_gpus == 1]
    assert singles[0].gpu_id in {"gb200", "b200", "b300"}


def test_rankings_sort_by_fit_then_their_keys_with_ties_in_catalog_order():
    """The rankings equal a stable sort on (not fits, cost, wall-clock) — resp. (not fits,
    wall-clock, cost) — written out here; ``ranking`` gives the ranking and the same cheapest
    and fastest rows (the objects) as ``cheapest_fitting``/``fastest_fitting``, ties included:
    the first of the equals in the catalog's order."""
    from ftcost_gui.core.compare import ranking

    base = compare_gpus(job(), builtin_catalog().gpus)[:6]
    rows = []
    for i, (fits, run, wall) in enumerate(
        [(True, 5.0, 9.0), (False, 1.0, 1.0), (True, 5.0, 9.0), (True, 5.0, 8.0),
         (True, 2.0, 9.0), (False, 1.0, 0.5), (True, 2.0, 9.0), (False, 3.0, 1.0)]
    ):  # fmt: skip
        r = base[i % len(base)]
        rows.append(r.model_copy(update={"fits": fits, "run_usd": run, "wall_clock_s": wall}))
    by_cost = sorted(rows, key=lambda r: (not r.fits, r.run_usd, r.wall_clock_s))
    by_time = sorted(rows, key=lambda r: (not r.fits, r.wall_clock_s, r.run_usd))
    assert [rows.index(r) for r in by_cost] == [4, 6, 3, 0, 2, 5, 1, 7]
    assert [rows.index(r) for r in by_time] == [3, 4, 6, 0, 2, 5, 1, 7]
    assert all(a is b for a, b in zip(rank_by_cost(rows), by_cost, strict=True))
    assert all(a is b for a, b in zip(rank_by_wall_clock(rows), by_time, strict=True))
    assert cheapest_fitting(rows) is rows[4] and fastest_fitting(rows) is rows[3]
    for by, ranked in (("cost", by_cost), ("wall_clock", by_time)):
        got, cheapest, fastest = ranking(rows, by)
        assert all(a is b for a, b in zip(got, ranked, strict=True))
        assert cheapest is rows[4] and fastest is rows[3]
    no_fit = [r.model_copy(update={"fits": False}) for r in rows]
    assert ranking(no_fit, "cost")[1:] == (None, None) == ranking(no_fit, "wall_clock")[1:]
    assert ranking([], "cost") == ([], None, None)


def test_memory_outranks_the_efficiency_ratio():
    """The best $/FLOP GPU that does not fit never ranks above one that fits (article 001)."""
    inputs = job("llama-2-70b", "full_amp_adamw", auto_gpu_count=False, num_gpus=1)
    rows = compare_gpus(inputs, builtin_catalog().gpus)
    assert not any(r.fits for r in rows)
    assert cheapest_fitting(rows) is None and fastest_fitting(rows) is None
    inputs = job("qwen2.5-7b", "full_amp_adamw", auto_gpu_count=False, num_gpus=1)
    rows = compare_gpus(inputs, builtin_catalog().gpus)
    ranked = rank_by_cost(rows)
    cheapest_ratio = min(rows, key=lambda r: r.usd_per_1e18_flops)
    assert not cheapest_ratio.fits
    assert ranked.index(cheapest_ratio) > max(i for i, r in enumerate(ranked) if r.fits)


def test_no_spot_price_gives_none():
    rows = {r.gpu_id: r for r in compare_gpus(job(), builtin_catalog().gpus)}
    assert rows["l4"].spot_usd is None and rows["l4"].spot_usd_per_hour is None
    assert rows["h100-sxm"].spot_usd is not None


def test_effective_rows_carry_their_origin():
    builtin = builtin_catalog()
    cheap = builtin.find("h100-sxm").model_copy(update={"on_demand_usd_per_hour": 0.01})
    user = GpuCatalog(name="Lab", gpus=(cheap,))
    rows = compare_gpus(job(), merge_catalogs(builtin, user))
    by_id = {r.gpu_id: r for r in rows}
    assert by_id["h100-sxm"].origin == "user:Lab"
    assert by_id["l4"].origin == "built-in"
    assert cheapest_fitting(rows).gpu_id == "h100-sxm"
    assert (
        by_id["h100-sxm"].on_demand_usd
        == estimate(inputs_with_gpu(job(), cheap)).cost.on_demand_usd
    )


def test_json_dump_leaves_out_the_spec():
    row = compare_gpus(job(), [builtin_catalog().find("l4")])[0]
    doc = row.model_dump(mode="json")
    assert "spec" not in doc
    assert set(doc) == set(GpuComparison.model_fields) - {"spec"}


def test_compare_is_pure():
    code = (
        "import sys, ftcost_gui.core.compare;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'platformdirs')"
        " or m.startswith('ftcost_gui.io')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


# --- Offers, tiers and the incremental comparer (issues 16, 17) --------------------------------


def _offers():
    from ftcost_gui.core.catalog import merge_catalogs
    from ftcost_gui.core.compare import offer

    return [offer(r) for r in merge_catalogs(builtin_catalog())]


def _direct(inputs, o):
    """The row as the first release computed it: one whole estimate on validated inputs."""
    from ftcost_gui.core.compare import comparison_row, inputs_with_gpu
    from ftcost_gui.core.estimate import estimate

    return comparison_row(estimate(inputs_with_gpu(inputs, o.spec)), o)


def _other_prices(offers):
    """Four more offers of each GPU: other prices (one without a spot price, one a spot row, one
    a committed row without a spot price), another provider's id: each shares the GPU's plan."""
    from dataclasses import replace

    variants = []
    for o in offers:
        for od, spot, tier in (
            (1.0, None, "on_demand"),
            (9.5, 4.25, "spot"),
            (1.5, None, "committed_1y"),  # billed in another tier than the GPU's first offer
        ):
            spec = o.spec.model_copy(
                update={
                    "on_demand_usd_per_hour": od,
                    "spot_usd_per_hour": spot,
                    "pricing_tier": tier,
                }
            )
            variants.append(replace(o, spec=spec, provider="P", region="r", pricing_tier=tier))
        # Another id (another provider's row of the same GPU) shares the plan too.
        spec = o.spec.model_copy(update={"id": f"{o.spec.id}-lab", "on_demand_usd_per_hour": 2.0})
        variants.append(replace(o, spec=spec, provider="Lab"))
    return variants


def test_offers_at_other_prices_share_a_plan_and_give_the_same_rows(monkeypatch):
    from ftcost_gui.core import row_columns
    from ftcost_gui.core.compare import GpuComparer

    timed, trainer_time = [], row_columns._trainer_time
    monkeypatch.setattr(
        row_columns, "_trainer_time", lambda *a: (timed.append(a), trainer_time(*a))[1]
    )
    factors, spot_factor = [], row_columns.spot_factor
    monkeypatch.setattr(
        row_columns, "spot_factor", lambda i, n: (factors.append(n), spot_factor(i, n))[1]
    )
    inputs = EstimateInputs()
    base = _offers()
    variants = _other_prices(base[:6])
    c = GpuComparer()
    rows = c.rows(inputs, base + variants)
    assert (c.plans, c.finishes) == (len(base), len(base) + len(variants))
    # A time plan is made once per GPU count, rented GPUs, link and evaluation among the plans
    # (time_cost.RunOperands), never per offer.
    assert 0 < len(timed) == len(c._columns._operands) <= len(base)
    # The spot factor: once per node count among the offers with a spot price (none for a GPU
    # without one), not once per offer.
    offers = base + variants
    spot_priced = [o for o in offers if o.spec.spot_usd_per_hour is not None]
    spot_nodes = {c._plans[o.facts].nodes for o in spot_priced}
    assert 0 < len(spot_priced) < len(offers)
    assert sorted(factors) == sorted(spot_nodes) and len(factors) < len(spot_priced)
    for o, r in zip(base + variants, rows, strict=True):
        want = _direct(inputs, o)
        if id_key(o.spec.id) == id_key(inputs.hardware.gpu.id):
            want = want.model_copy(update={"current": True})
        assert r == want


@pytest.mark.parametrize(
    "edits",
    [
        {"project": {"billing": "spot"}},  # rows without a spot price warn and bill on-demand
        {"efficiency": {"step_time_s": 1e-3, "measured_tokens_per_s": 1e7}},  # MFU > 100% warnings
        {"hardware": {"near_limit_fraction": 0.5}},  # near-limit warnings
        {"training": {"checkpointing": "full", "auto_gpu_count": False, "num_gpus": 3}},
        {"objective": {"objective": "dpo"}},
    ],
    ids=["spot-billing", "measured", "near-limit", "fixed-gpus", "dpo"],
)
def test_the_comparers_row_path_gives_the_whole_estimates_rows(edits):
    """Rows come from ``finish_prices`` (no result models): every figure and warning, in order,
    equals the row of a whole estimate on that GPU, across the catalog's GPUs and prices."""
    from ftcost_gui.core.compare import GpuComparer

    d = job("qwen2.5-7b", "full_amp_adamw").model_dump()
    for section, values in edits.items():
        d[section].update(values)
    inputs = EstimateInputs.model_validate(d)
    offers = _offers() + _other_prices(_offers()[:6])  # offers sharing their plans
    rows = GpuComparer().rows(inputs, offers)
    assert any(r.warnings for r in rows)
    for o, r in zip(offers, rows, strict=True):
        want = _direct(inputs, o)
        assert r == want.model_copy(update={"current": r.current}), o.spec.id


def test_the_comparer_estimates_only_what_changed():
    from ftcost_gui.core.compare import GpuComparer

    inputs = EstimateInputs()
    offers = _offers()
    n = len(offers)
    c = GpuComparer()
    c.rows(inputs, offers)
    assert (c.plans, c.finishes) == (n, n)
    c.rows(inputs, offers)  # nothing changed
    assert (c.plans, c.finishes) == (n, n)
    # Adopting another GPU changes only the inputs' own GPU: no row is estimated again.
    other = inputs_with_gpu(inputs, offers[5].spec)
    rows = c.rows(other, offers)
    assert (c.plans, c.finishes) == (n, n)
    assert [r.current for r in rows].index(True) == 5
    # One row edited (a new price): one finish, its plan is shared.
    from dataclasses import replace

    edited = [*offers[:3], replace(offers[3], spec=offers[3].spec.model_copy(
        update={"on_demand_usd_per_hour": 0.5})), *offers[4:]]  # fmt: skip
    assert c.missing(other, edited) == [edited[3]]
    c.rows(other, edited)
    assert (c.plans, c.finishes) == (n, n + 1)
    # An MFU edit: every row finished again, no plan made (a plan does not read the MFU).
    mfu = other.edited("efficiency", mfu=0.3)
    c.rows(mfu, edited)
    assert (c.plans, c.finishes) == (n, 2 * n + 1)
    # An edit a plan reads: every row planned again.
    batch = mfu.edited("training", micro_batch=mfu.training.micro_batch + 1)
    c.rows(batch, edited)
    assert (c.plans, c.finishes) == (2 * n, 3 * n + 1)


def test_a_spot_row_ranks_by_its_spot_cost():
    from dataclasses import replace

    from ftcost_gui.core.compare import comparison_row, rank_by_cost

    inputs = EstimateInputs()
    h100 = next(o for o in _offers() if o.spec.id == "h100-sxm")
    spot = replace(h100, pricing_tier="spot", provider="Vast.ai")
    on_demand, on_spot = compare_gpus(inputs, [h100, spot])
    # Same GPU, same run: the spot row is costed at the spot price, interruptions included.
    assert on_spot.on_demand_usd == on_demand.on_demand_usd
    assert on_demand.run_usd == on_demand.on_demand_usd
    assert on_spot.run_usd == on_spot.spot_usd
    hours = on_demand.held_gpu_hours
    f = on_spot.spot_usd / (hours * 2.0)  # the built-in H100 spot price is $2.00/h
    assert on_spot.run_usd == pytest.approx(hours * f * 2.0) and f >= 1.0
    assert [r.provider for r in rank_by_cost([on_demand, on_spot])] == ["Vast.ai", ""]
    assert comparison_row  # imported for the module's public API


def test_the_comparers_plans_skip_the_layouts_and_breakdowns(monkeypatch):
    """A row shows the chosen layout's figures only: the comparer's row plans lay out one
    checkpointing setting's time, with no Layout and no memory breakdown (issue 17: a 5,000-GPU
    comparison), and the rows are still the whole estimates' rows
    (test_the_comparers_row_path_gives_the_whole_estimates_rows)."""
    import importlib

    from ftcost_gui.core.compare import GpuComparer, offer

    estimate_mod = importlib.import_module("ftcost_gui.core.estimate")
    row_columns_mod = importlib.import_module("ftcost_gui.core.row_columns")
    remembered_mod = importlib.import_module("ftcost_gui.core.remembered")
    calls = {"_layout": 0, "_trainer_time": 0, "memory_per_gpu": 0}

    def counting(name, real):
        def count(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return count

    for mod, name in (
        (estimate_mod, "_layout"),
        (row_columns_mod, "_trainer_time"),
        (remembered_mod, "memory_per_gpu"),
    ):
        monkeypatch.setattr(mod, name, counting(name, getattr(mod, name)))
    inputs = EstimateInputs()
    assert inputs.training.checkpointing == "auto"
    comparer = GpuComparer()
    rows = comparer.rows(inputs, [offer(g) for g in builtin_catalog().gpus])
    # One time plan per GPU count, rented GPUs, link and evaluation (time_cost.RunOperands).
    made = len(comparer._columns._operands)
    assert calls == {"_layout": 0, "_trainer_time": made, "memory_per_gpu": 0}
    assert comparer.plans == len(rows) and 0 < made <= len(rows)
    for r in rows:
        whole = estimate(inputs_with_gpu(inputs, r.spec))
        assert (r.on_demand_usd, r.warnings) == (whole.cost.on_demand_usd, whole.warnings)


_FIGURES = st.sampled_from((0.0, -0.0, 1.0, 1.0 + 2**-52, 2.0, 1e300, math.inf, math.nan))


@settings(max_examples=examples(0.05, least=200), deadline=None)
@given(st.lists(st.tuples(st.booleans(), _FIGURES, _FIGURES), max_size=12))
def test_ranking_is_the_rankings_and_the_least_rows_by_their_definitions(figures):
    """``ranking`` (the view's, reading each row once and sorting floats) gives the very rows of
    its definition: ``rank_by_cost``/``rank_by_wall_clock``, its first row when it fits, and
    ``fastest_fitting``/``cheapest_fitting``; ties, signed zeros, infinities and NaN included."""
    from ftcost_gui.core.compare import ranking

    base = compare_gpus(job(), builtin_catalog().gpus[:3])
    rows = [
        base[i % 3].model_copy(update={"fits": fits, "run_usd": run, "wall_clock_s": wall})
        for i, (fits, run, wall) in enumerate(figures)
    ]
    for by, rank, other in (
        ("cost", rank_by_cost, fastest_fitting),
        ("wall_clock", rank_by_wall_clock, cheapest_fitting),
    ):
        ranked = rank(rows)
        first = ranked[0] if ranked and ranked[0].fits else None
        want = (first, other(rows)) if by == "cost" else (other(rows), first)
        got, cheapest, fastest = ranking(rows, by)
        assert [id(r) for r in got] == [id(r) for r in ranked]
        assert cheapest is want[0] and fastest is want[1]


def test_rows_match_the_current_gpu_by_a_key_made_once_per_offer(monkeypatch):
    """``GpuComparer.rows`` (every refresh of a 5,000-row table) works out the id key of the
    inputs' GPU once, not of every offer's: each offer's was made with the offer."""
    from ftcost_gui.core import compare
    from ftcost_gui.core.compare import GpuComparer, offer

    offers = [offer(g) for g in builtin_catalog().gpus]
    inputs = job()
    keyed = []
    real = compare.id_key
    monkeypatch.setattr(compare, "id_key", lambda gpu_id: (keyed.append(gpu_id), real(gpu_id))[1])
    comparer = GpuComparer()
    rows = comparer.rows(inputs, offers)
    assert keyed == [inputs.hardware.gpu.id]
    assert [r.gpu_id for r in rows if r.current] == [inputs.hardware.gpu.id]
    rows = comparer.rows(inputs, offers)  # the table filled again: one key again
    assert keyed == [inputs.hardware.gpu.id] * 2 and sum(r.current for r in rows) == 1
