"""Figures the mutation run (tools/mutation.py, docs/testing.md) found unpinned, each computed by
hand: memory on GPUs rented beyond the floor, what checkpointing reruns when LoRA adapts the down
projection, a GRPO run's sequences per epoch and its old-policy forward, parameter counts of
LayerNorm q/k norms and of a plain MLP's adapters, a project billed on spot for a run under a
dollar, the alternative checkpointing road of an RL run, a scenario bar's GPU memory, and the
outcome cache that outlives an object's id.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.architecture import ModelSpec, count_params
from ftcost_gui.core.series import Outcomes, scenario_series
from ftcost_gui.core.units import GIB

from .hand import DENSE, LLAMA31_8B, MIXTRAL
from .helpers import gpu, make
from .test_alignment import L3_MATMUL, grpo


@pytest.mark.parametrize("s", [LLAMA31_8B, MIXTRAL], ids=lambda s: s.preset)
def test_rounded_up_gpus_each_hold_their_share(s):
    """Auto count with 4-GPU rent units in 8-GPU nodes: the floor's GPUs round up to whole
    units (beyond a node: whole nodes) and the run trains on every rented GPU, so ZeRO-3 shards
    the model state over the rented count (article 001: 2 + 2 + 4 + 8 B per parameter;
    Rajbhandari et al. 2020: stage 3 shards all)."""
    r = estimate(
        make(
            s.preset,
            training__method="full_amp_adamw",
            training__sharding="zero3",
            training__checkpointing="full",
            hardware__gpu=gpu("H100 SXM") | {"rent_unit_gpus": 4, "gpus_per_node": 8},
            hardware__rent_whole_units=True,
        )
    )
    lay, m = r.layout, r.memory
    need = lay.gpus_needed
    n = -(-need // 8) * 8 if need > 8 else -(-need // 4) * 4
    assert n > need and lay.rounded_up  # the case: the floor is not what is rented
    assert (lay.rented_gpus, lay.num_gpus, r.time.num_gpus) == (n, n, n)
    assert m.weights_bytes == pytest.approx(2 * s.total / n)
    assert m.gradients_bytes == pytest.approx(2 * s.total / n)
    assert m.master_bytes == pytest.approx(4 * s.total / n)
    assert m.optimizer_bytes == pytest.approx(8 * s.total / n)


@pytest.mark.parametrize("s", DENSE, ids=lambda s: s.preset)
def test_checkpointing_reruns_the_down_projection_when_it_is_adapted(s):
    """LoRA on down_proj: the adapter reads the down projection's output path, so checkpointing
    no longer stops before it (measured, docs/data/measured/*.json "flops"): the recompute is
    the whole forward of the decoder linears, 2·L·(attention + MLP), not 2·(linears − down)."""
    base = dict(data__mode="tokens", data__total_tokens=5e8, data__max_seq_len=4096,
                training__method="lora", training__checkpointing="full")  # fmt: skip
    down = estimate(make(s.preset, training__lora_targets=["q_proj", "down_proj"], **base))
    attn = estimate(make(s.preset, training__lora_targets=["q_proj", "v_proj"], **base))
    assert down.flops.recompute_per_token == pytest.approx(2 * s.L * (s.attn + s.mlp))
    assert attn.flops.recompute_per_token == pytest.approx(
        2 * (s.L * (s.attn + s.mlp) - s.L * s.h * s.i)
    )


def test_grpo_sequences_per_epoch_by_data_mode():
    """GRPO rows are rollouts: 'examples' mode counts prompts × completions (1,000 × 8), a token
    total counts rows of mean prompt + completion (10M ÷ (256 + 512))."""
    assert estimate(grpo()).tokens.sequences_per_epoch == 1000 * 8
    by_tokens = estimate(grpo(data__mode="tokens", data__total_tokens=10_000_000))
    assert by_tokens.tokens.sequences_per_epoch == pytest.approx(10_000_000 / (256 + 512))


@pytest.mark.parametrize("placement", ["colocated", "separate"])
def test_a_vllm_engine_needs_the_old_policy_forward(placement):
    """Rollouts from a vLLM engine (colocated or separate) are sampled in another numeric stack:
    one forward of the policy per trained token recomputes their log-probs (2N + 2·L·s·d)."""
    r = estimate(grpo(objective__rollout_placement=placement))
    d = 1000 * 2 / 64 * 64 * 8 * 768  # steps × P × G × (p + c)
    fwd = 2 * L3_MATMUL + 2 * 32 * 768 * 4096
    assert r.alignment.old_logprob_flops == pytest.approx(fwd * d)


def test_layernorm_qk_norms_count_weight_and_bias():
    """A full q/k LayerNorm has a weight and a bias over q and over k: 2·(q + kv) per layer;
    per-head norms 2 · 2 · head_dim; an RMSNorm only the weight."""
    h, heads, kvh, layers = 256, 8, 2, 3
    q, kv, hd = h, kvh * (h // heads), h // heads

    def layer(norm_kind, qk_norm):
        m = ModelSpec(hidden_size=h, num_attention_heads=heads, num_kv_heads=kvh,
                      intermediate_size=512, num_layers=layers, norm_kind=norm_kind,
                      qk_norm=qk_norm)  # fmt: skip
        return count_params(m).layer

    assert layer("layernorm", "full") - layer("layernorm", "none") == 2 * (q + kv)
    assert layer("rmsnorm", "full") - layer("rmsnorm", "none") == q + kv
    assert layer("layernorm", "per_head") - layer("layernorm", "none") == 2 * 2 * hd


def test_a_plain_mlp_has_no_gate_to_adapt():
    """GPT-2's MLP is c_fc then c_proj (no gate): a gate target adapts nothing; up and down
    adapt r·(h + i) each per layer (Hu et al. 2021, eq. 3)."""
    h, i, r, layers = 256, 1024, 8, 3
    m = ModelSpec(hidden_size=h, num_attention_heads=4, num_kv_heads=4, intermediate_size=i,
                  num_layers=layers, mlp_kind="plain", norm_kind="layernorm")  # fmt: skip
    by = m.lora_params_by_target(r)
    assert by["gate_proj"] == by["gate_up_proj"] == (0.0, 0.0)
    assert by["up_proj"] == by["down_proj"] == (r * (h + i) * layers,) * 2


def test_a_run_under_a_dollar_is_billed_on_spot_too():
    """Project billed on spot: every run-scaled line (evaluation, low, high) takes the spot/on-
    demand ratio of the run — also when the run costs less than a dollar."""
    row = gpu("H100 SXM") | {"on_demand_usd_per_hour": 0.02, "spot_usd_per_hour": 0.01}
    r = estimate(make("llama-2-7b", data__mode="tokens", data__total_tokens=1e6,
                      training__method="lora", hardware__gpu=row,
                      project__billing="spot"))  # fmt: skip
    c, p = r.cost, r.project
    assert 0 < c.on_demand_usd < 1 and c.spot_usd is not None
    scale = c.spot_usd / c.on_demand_usd
    assert scale < 1
    fixed = p.storage_usd + p.engineering_usd
    assert p.run_usd == pytest.approx(c.spot_usd)
    assert p.evaluation_usd == pytest.approx(p.runs * c.evaluation_usd * scale)
    assert p.low_usd == pytest.approx(p.runs * c.low_usd * scale + fixed)
    assert p.high_usd == pytest.approx(p.runs * c.high_usd * scale + fixed)


@pytest.mark.parametrize("method", ["lora", "full_amp_adamw"])
def test_rl_auto_checkpointing_prices_the_road_not_taken(method):
    """GRPO with checkpointing 'auto': the other setting's cost and wall-clock are those of the
    run with that setting pinned (its rollouts, sync and training on the same GPUs)."""
    auto = estimate(grpo(training__checkpointing="auto", training__method=method))
    lay = auto.layout
    assert lay.alt_checkpointing is (not lay.checkpointing)
    other = estimate(grpo(training__checkpointing="full" if lay.alt_checkpointing else "none",
                          training__method=method))  # fmt: skip
    assert lay.alt_fits is True
    assert lay.alt_on_demand_usd == pytest.approx(other.cost.on_demand_usd)
    assert lay.alt_held_wall_s == pytest.approx(other.time.held_wall_s)


def test_scenario_bars_carry_each_gpus_memory():
    """Each scenario's bar is drawn against its own GPU's memory (capacity, in GiB)."""
    small = gpu("H100 SXM") | {"memory_gib": 40.0}
    a, b = make("llama-2-7b"), make("llama-2-7b", hardware__gpu=small)
    outcomes = Outcomes()
    series = scenario_series(["a", "b"], [outcomes.get(a), outcomes.get(b)], 0)
    h100 = gpu("H100 SXM")["memory_gib"]
    assert series.memory.capacity_gib == pytest.approx((h100, 40.0))
    assert series.memory.usable_gib == pytest.approx((h100, 40.0))
    assert estimate(b).memory.capacity_bytes == 40.0 * GIB


def test_keep_does_not_trust_a_reused_object_id():
    """Outcomes looks inputs up by id first; an id whose object was freed may come back as
    another input set. keep() must then find the outcome by value, not keep the stale one."""
    outcomes = Outcomes()
    a, b = make(data__max_seq_len=1024), make(data__max_seq_len=8192)
    oa, ob = outcomes.get(a), outcomes.get(b)
    outcomes._by_id[id(a)] = (b, ob)  # as if a's id had been b's and the entry were left over
    outcomes.keep([a])
    assert outcomes.get(a) is oa


def test_a_comparison_stops_at_its_work_budget():
    """GpuComparer.compare_some: a finish costs 1 unit, a plan PLAN_UNITS more; with a budget of
    two planned rows it stops after the second offer (every offer here needs its own plan)."""
    from ftcost_gui.core.compare import PLAN_UNITS, GpuComparer

    from .test_planner import offers

    c = GpuComparer()
    gone = c.compare_some(make(), list(offers()), units=2 * (PLAN_UNITS + 1))
    assert gone == 2 and (c.plans, c.finishes) == (2, 2)


def test_sft_reports_no_generation():
    a = estimate(make("llama-2-7b")).alignment
    assert (a.generation_s_per_step, a.prefill_s_per_step, a.sync_s_per_step) == (0.0, 0.0, 0.0)
    assert (a.training_s_per_step, a.generated_tokens, a.kv_bytes_per_token) == (0.0, 0.0, 0.0)


def test_what_fits_names_the_scenarios_micro_batch():
    from ftcost_gui.core.what_fits import what_fits

    w = what_fits(make("llama-2-7b", training__micro_batch=3, data__max_seq_len=1024))
    assert (w.micro_batch, w.seq_len) == (3, 1024)


def test_prefill_at_the_default_mfu_drops_the_training_stacks_fixed_costs():
    """With the default MFU, prefill runs at MFU ÷ the default's shape factor (the matmul share
    of a training micro-batch; generation pays no per-micro-batch stack costs), capped at 1."""
    p_, g, prompt, peak = 32, 8, 256, 989e12  # H100 SXM's dense BF16 peak
    s = LLAMA31_8B
    r = estimate(
        make(
            s.preset,
            hardware__gpu=gpu("H100 SXM"),
            data__num_examples=640,
            training__method="lora",
            training__auto_gpu_count=False,
            training__num_gpus=4,
            objective__objective="grpo",
            objective__prompts_per_step=p_,
            objective__completions_per_prompt=g,
            objective__mean_prompt_tokens=prompt,
            objective__mean_completion_tokens=512,
            objective__rollout_placement="separate",
            objective__rollout_gpus=2,
        )
    )
    t, a = r.time, r.alignment
    assert t.mfu_source == "default" and t.shape_factor < 1
    gen_mfu = min(t.mfu / t.shape_factor, 1.0)
    tp, engines = a.tp, a.engines
    # each prompt once (vLLM prefix caching), the head once per prompt (test_hand_rollout.py)
    prefill = prompt * (2 * s.L * (s.attn + s.mlp_active) + 2 * s.L * prompt * s.q) + 2 * s.V * s.h
    assert a.prefill_s_per_step == pytest.approx(p_ / engines * prefill / (peak * gen_mfu * tp))


def test_plan_points_split_the_plans_run():
    """The Plan tab's scatter: the front by wall-clock, the plans it dominates, and the plans that
    fit but break a limit (deadline, budget); each shown point at its wall-clock and cost."""
    from ftcost_gui.core.plan_front import plan_points

    from .test_planner import run

    search = run(deadline_h=0.5)
    opts = search.options
    pts = plan_points(search)
    assert pts.front == tuple(sorted(search.ranked, key=lambda i: opts[i].wall_s))
    assert pts.dominated == tuple(o.index for o in opts if o.verdict == "dominated")
    over = tuple(o.index for o in opts if o.fits and o.verdict not in ("front", "dominated"))
    assert pts.infeasible == over and pts.dominated and pts.infeasible
    shown = (*pts.front, *pts.dominated, *pts.infeasible)
    assert pts.cost_usd == {i: opts[i].cost_usd for i in shown}
    assert pts.wall_h == {i: opts[i].wall_s / 3600 for i in shown}
    assert (pts.best, pts.deadline_h, pts.budget_usd) == (search.ranked[0], 0.5, None)


def test_auto_checkpointing_keeps_only_the_warnings_of_the_road_taken():
    """A one-layer model: recomputation saves one layer's activations but adds the recomputed
    layer and every layer's input (article 001's 2·L·b·s·h), so with checkpointing the run needs
    more memory. On a card between the two, 'auto' runs without it; the recomputing road's
    'does not fit' is not the run's warning (and that road, not fitting, has no cost shown)."""
    base = dict(model__num_layers=1, training__method="lora", training__auto_gpu_count=False,
                training__num_gpus=1, data__max_seq_len=8192, training__micro_batch=8,
                training__loss="chunked",
                hardware__gpu=gpu("H100 SXM") | {"memory_gib": 18.2})  # fmt: skip
    off = estimate(make("llama-2-7b", training__checkpointing="none", **base))
    on = estimate(make("llama-2-7b", training__checkpointing="full", **base))
    auto = estimate(make("llama-2-7b", training__checkpointing="auto", **base))
    assert off.memory.fits and not on.memory.fits
    assert any(w.startswith("Does not fit") for w in on.warnings)
    assert auto.layout.checkpointing is False and auto.layout.alt_fits is None
    assert auto.warnings == off.warnings


@pytest.mark.parametrize("s", DENSE, ids=lambda s: s.preset)
def test_lora_on_the_mlp_only_skips_layer_0_up_to_its_adapters(s):
    """LoRA on gate and up, no checkpointing: in layer 0 nothing before gate/up needs an input
    gradient (measured, docs/data/measured/*.json "flops"): q, k, v, o and gate, up themselves
    compute none, −2·h·(q + 2kv + q + 2i) of the 4N base; the two A matrices reading the MLP
    norm output neither, −2·2·r·h of the adapters' 6 per parameter."""
    r = 16
    f = estimate(make(s.preset, data__mode="tokens", data__total_tokens=5e8,
                      data__max_seq_len=4096, training__method="lora",
                      training__checkpointing="none", training__lora_rank=r,
                      training__lora_targets=["gate_proj", "up_proj"])).flops  # fmt: skip
    skip = s.h * (s.q + 2 * s.kvd) + s.q * s.h + 2 * s.h * s.i
    assert f.base_per_token == pytest.approx(4 * s.matmul - 2 * skip)
    adapters = s.L * 2 * r * (s.h + s.i)
    assert f.adapters_per_token == pytest.approx(6 * adapters - 2 * 2 * r * s.h)


@pytest.mark.parametrize(("objective", "rows_per_example"), [("sft", 1), ("dpo", 2)])
def test_the_longest_row_of_the_run_by_hand(objective, rows_per_example):
    """Padding to the longest: the longest of n log-normal rows is taken at the quantile
    1 − 1/(n + 1) (the expected maximum's rank); a DPO pair is two rows (chosen, rejected).
    Log-normal of mean 500 and CV 0.5: σ² = ln(1 + 0.25), μ = ln 500 − σ²/2."""
    import math
    from statistics import NormalDist

    from ftcost_gui.core.ranges import longest_row

    inputs = make("llama-2-7b", data__mode="examples", data__num_examples=1000,
                  data__mean_tokens_per_example=500, data__length_cv=0.5,
                  data__max_seq_len=8192, data__padding="longest",
                  objective__objective=objective)  # fmt: skip
    sigma = math.sqrt(math.log(1.25))
    mu = math.log(500) - sigma**2 / 2
    n = 1000 * rows_per_example
    top = math.exp(mu + sigma * NormalDist().inv_cdf(1 - 1 / (n + 1)))
    assert longest_row(inputs) == math.ceil(top)


def test_a_search_counts_its_candidates_under_their_verdicts():
    """Every candidate the search weighed is counted under one of the Plan tab's verdicts,
    including those its bounds ruled out (over the budget here) without running them."""
    from ftcost_gui.core.plan_front import Verdict

    from .test_planner import run

    search = run(budget_usd=3.0)
    assert set(search.verdicts) <= set(Verdict.__args__)
    assert search.verdicts["over_budget"] > 0
