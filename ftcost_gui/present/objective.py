"""'How this is computed' for DPO, GRPO and PPO, and for generation (rollouts and evaluation).

Blocks in the style of present/explain.py, worded from ``result.alignment`` (core/alignment.py,
core/rollout.py, core/rl_summary.py); nothing here re-derives a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.inputs import EstimateInputs
from ..core.objective import OBJECTIVE_LABELS, PLACEMENT_LABELS, REFERENCE_LABELS
from ..core.results import AlignmentSummary, EstimateResult
from ..core.stages import Stage, budget, stage
from ..core.units import GIB, fmt_gib, fmt_pct, fmt_usd
from .blocks import Bold, Ref, Section, formula, note
from .text import sci
from .time_texts import price_word


def _s(seconds: float) -> str:
    return f"{seconds:,.2f} s" if seconds < 600 else f"{seconds / 60:,.1f} min"


def objective_label_rows(r: EstimateResult) -> list[tuple[str, str, str]]:
    """(section title, label, value) rows of what the objective adds: the DPO reference, or the RL
    step split (generation, sync, training) and the generation rate from bandwidth."""
    a = r.alignment
    if a.objective == "dpo":
        g = "DPO"
        return [
            (g, "Policy update", f"{sci(a.policy_flops)} FLOPs"),
            (g, "Reference forwards", f"{sci(a.reference_flops)} FLOPs"),
            (g, "Reference model per GPU", fmt_gib(r.memory.reference_bytes, 2)),
        ]
    if not a.steps:
        return []
    g = "RL step"
    rows = [
        (g, "Steps", f"{a.steps:,.0f}"),
        (g, "Rollout engines", f"{a.engines} × {a.tp} GPU ({PLACEMENT_LABELS[a.placement]})"),
        (g, "Rollouts (generation)", f"{a.generation_s_per_step:,.2f} s"),
        (g, "Weight sync", f"{a.sync_s_per_step:,.2f} s"),
        (g, "Training", f"{a.training_s_per_step:,.2f} s (update + extra forwards)"),
        (g, "Step", f"{a.step_s:,.2f} s"),
        (g, "SFT step, same tokens", f"{a.sft_step_s:,.2f} s"),
        (g, "RL ÷ SFT step", f"{a.rl_to_sft_step:,.1f}×"),
        (g, "Decode batch per engine", f"{a.decode_batch:,.0f}"),
        (g, "Generation rate", f"{a.generation_tokens_per_s_per_gpu:,.0f} tokens/s per GPU"),
        (g, "Generation MFU", fmt_pct(a.generation_mfu)),
    ]
    if a.rollout_gpus:
        rows.insert(2, (g, "Rollout GPUs held", f"{a.rollout_gpus}"))
    rows.insert(2, (g, "Trainer GPUs by placement", gpus_by_placement_text(a)))
    return rows


def gpus_by_placement_text(a: AlignmentSummary) -> str:
    """'colocated 4 · separate 3 + rollout GPUs · policy 4': what memory forces with each."""

    def n(v: int | None) -> str:
        return "none fits" if v is None else str(v)

    return (
        f"colocated {n(a.gpus_colocated)} · separate {n(a.gpus_separate)} + rollout GPUs · "
        f"policy {n(a.gpus_policy)}"
    )


def objective_tokens_text(inputs: EstimateInputs, r: EstimateResult) -> str:
    """The first line of 'Tokens processed' for DPO and RL ('' for SFT and token totals)."""
    ob, d, t = inputs.objective, inputs.data, r.tokens
    if ob.objective == "dpo" and d.mode == "examples":
        used = min(d.mean_tokens_per_example, d.max_seq_len)
        return (
            f"useful tokens = 2 sequences × pairs × mean length × epochs = 2 × "
            f"{d.num_examples:,} × {used:,.0f} × {d.epochs:g} = {sci(t.useful_tokens)}"
        )
    if r.alignment.steps:
        a = r.alignment
        return (
            f"useful tokens = steps × prompts per step × completions × (prompt + completion) = "
            f"{a.steps:,.1f} × {ob.prompts_per_step:,} × {ob.completions_per_prompt} × "
            f"({ob.mean_prompt_tokens:,.0f} + {ob.mean_completion_tokens:,.0f}) = "
            f"{sci(t.useful_tokens)}"
        )
    return ""


def objective_section(inputs: EstimateInputs, r: EstimateResult) -> Section | None:
    """What the objective adds to the policy update: pairs and reference (DPO), rollouts (RL)."""
    ob, a = inputs.objective, r.alignment
    if ob.objective == "sft":
        return None
    extra = [
        ("reference forwards", a.reference_flops),
        ("log-probs at sampling", a.old_logprob_flops),
        ("reward model", a.reward_flops),
        ("value model", a.value_flops),
    ]
    extra_text = " + ".join(f"{name} {sci(v)}" for name, v in extra if v > 0)
    trainer = formula(
        f"trainer FLOPs = policy update {sci(a.policy_flops)}"
        + (f" + {extra_text}" if extra_text else "")
        + " = ",
        Bold(f"{sci(r.flops.total_flops)} FLOPs"),
        Ref("forward = 2N + 2·L·s·d per token; DPO: Rafailov et al. 2023; TRL 1.16.0"),
    )
    if ob.objective == "dpo":
        return Section(
            (OBJECTIVE_LABELS["dpo"],),
            (
                note(
                    "Each pair is two sequences (chosen and rejected) trained in one batch: D "
                    f"counts both, and a micro-batch holds {2 * inputs.training.micro_batch} rows. "
                    f"Reference: {REFERENCE_LABELS[ob.dpo_reference]}"
                    + (
                        f", {fmt_gib(r.memory.reference_bytes)} per GPU."
                        if r.memory.reference_bytes
                        else "."
                    )
                ),
                trainer,
            ),
        )
    g = a.generation_s_per_step
    blocks = [
        formula(
            f"steps = prompts × epochs ÷ prompts per step = {a.steps:,.0f}; per step "
            f"{ob.prompts_per_step:,} prompts × {ob.completions_per_prompt} completions × "
            f"({ob.mean_prompt_tokens:,.0f} + {ob.mean_completion_tokens:,.0f}) tokens = "
            f"{sci(a.trained_tokens_per_step)} trained, "
            f"{sci(a.generated_tokens_per_step)} generated",
            Ref("Shao et al. 2024 (GRPO) §4; TRL 1.16.0 GRPOTrainer"),
        ),
        trainer,
        formula(
            f"step = rollouts {_s(g)} + weight sync {_s(a.sync_s_per_step)} + training "
            f"{_s(a.training_s_per_step)} = ",
            Bold(_s(a.step_s)),
            f"; an SFT step on the same tokens takes {_s(a.sft_step_s)}: ",
            Bold(f"{a.rl_to_sft_step:,.1f}×"),
            Ref("article 000 §Reinforcement learning is mostly generation"),
        ),
        note(
            f"Rollouts: {PLACEMENT_LABELS[a.placement]}; {a.engines} engine(s) of {a.tp} GPU(s)"
            + (f", {a.rollout_gpus} GPU(s) held beside the trainer's" if a.rollout_gpus else "")
            + (
                f", vLLM reserves {fmt_gib(a.rollout_gpu_bytes)} on each"
                if a.rollout_gpu_bytes
                else ""
            )
            + "."
        ),
    ]
    blocks.append(
        note(
            "Trainer GPUs the memory forces with each rollout placement: "
            f"{gpus_by_placement_text(a)} (the colocated engine's share is a fixed part of "
            "every GPU; separate GPUs hold the engines beside the trainer's)."
        )
    )
    return Section((OBJECTIVE_LABELS[ob.objective],), tuple(blocks))


def generation_section(inputs: EstimateInputs, r: EstimateResult) -> Section | None:
    """Generation speed: memory bandwidth (decode) and FLOPs (prefill), or article 000's rule."""
    ob, a, gpu = inputs.objective, r.alignment, inputs.hardware.gpu
    if not a.steps and not r.time.eval_s:
        return None
    blocks = []
    if ob.generation_rate == "mfu":
        blocks.append(
            formula(
                f"generation time = generated tokens × 2N ÷ (peak × generation MFU "
                f"{inputs.overheads.generation_mfu:.3f} × GPUs)",
                Ref("article 000: 'single-digit MFU' (the rule, not the bandwidth model)"),
            )
        )
    elif a.steps:
        kv = a.kv_bytes_per_token
        blocks += [
            formula(
                f"decode step = max((weights + {a.decode_batch:,.0f} seqs × {kv / 1024:,.0f} KiB "
                f"KV/token × context) ÷ ({gpu.memory_bandwidth_gb_s:,.0f} GB/s × "
                f"{ob.decode_bandwidth_efficiency:.2f}), batch × FLOPs/token ÷ (peak × MFU)) = "
                f"{a.decode_step_s * 1000:,.2f} ms for {a.decode_batch:,.0f} tokens",
                Ref("Pope et al. 2022 §2: decoding is memory-bound"),
            ),
            formula(
                "rollout generation = ",
                Bold(f"{a.generation_tokens_per_s_per_gpu:,.0f} tokens/s per GPU"),
                " at ",
                Bold(f"{fmt_pct(a.generation_mfu)} MFU"),
                f" (prefill {_s(a.prefill_s_per_step)} per step at the training MFU)",
                Ref("article 000: generation runs at single-digit MFU"),
            ),
        ]
    if r.time.eval_s:
        blocks.append(
            formula(
                f"evaluation = {r.alignment.eval_tokens_per_s_per_gpu:,.0f} tokens/s per GPU at "
                f"{fmt_pct(r.alignment.eval_generation_mfu)} MFU"
                + (
                    f" ({ob.eval_batch_size} sequences at a time)"
                    if ob.generation_rate == "bandwidth"
                    else ""
                ),
                Ref("article 000 §Evaluation is generation too"),
            )
        )
    if r.memory.rollout_weights_bytes or r.memory.kv_cache_bytes:
        blocks.append(
            note(
                f"Rollout memory per GPU: weights {r.memory.rollout_weights_bytes / GIB:,.1f} GiB"
                f" + KV cache {r.memory.kv_cache_bytes / GIB:,.1f} GiB"
                + (
                    f" (the {fmt_pct(ob.rollout_memory_share, 0)} share vLLM reserves)"
                    if ob.rollout_placement == "colocated"
                    else ""
                )
                + "."
            )
        )
    return Section(("Generation",), tuple(blocks))


CHAIN_ENDS = 3  # the stages named at each end of a long chain


def stage_chain(names: Sequence[str]) -> str:
    """The stages in order, ``A → B → C``. A chain longer than ``2 * CHAIN_ENDS + 1`` keeps its
    first and last ``CHAIN_ENDS`` names around "… N more …": 200 scenarios made the Compare
    tab's stages line a 14-line paragraph of names, which the table lists in the same order."""
    if len(names) <= 2 * CHAIN_ENDS + 1:
        return " → ".join(names)
    more = f"… {len(names) - 2 * CHAIN_ENDS} more …"
    return " → ".join([*names[:CHAIN_ENDS], more, *names[-CHAIN_ENDS:]])


def stages_text(
    names: Sequence[str],
    results: Sequence[EstimateResult],
    tiers: Sequence[str] = (),
    stage_of: Callable[[str, EstimateResult], Stage] = stage,
) -> str:
    """The scenarios run one after the other as project stages (core/stages.py), in one line.
    ``tiers`` (each scenario's GPU pricing tier) words the sum: a 1-year committed rate is not
    called on-demand. ``stage_of`` makes each scenario's stage (a view keeps those of the
    results an edit left as they were)."""
    b = budget([stage_of(name, r) for name, r in zip(names, results, strict=True)])
    words = sorted({price_word(t) for t in tiers}) or ["on-demand"]
    price = words[0] if len(words) == 1 else "at each stage's price (" + " / ".join(words) + ")"
    return (
        f"As project stages, one after the other ({stage_chain(names)}): "
        f"{b.gpu_hours:,.1f} GPU-h held over all runs, {fmt_usd(b.on_demand_usd)} {price} "
        f"({fmt_usd(b.usd_at(2))}–{fmt_usd(b.usd_at(4))} at $2–$4 per GPU-hour); generation "
        f"(evaluation + rollouts) {fmt_pct(b.generation_share)}, evaluation + RL stages "
        f"{fmt_pct(b.rl_and_eval_share)} (article 000 §Worked example)."
    )
