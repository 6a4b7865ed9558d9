"""Wording of the time model's choices: GPUs rented, checkpointing, MFU, where prices came from.

One wording for the cards, the tables, the report and the CLI (plain text: a caller that prints a
name from a file renders it for its output with io/names.py). Nothing here computes a figure: the
numbers come from the result (core/layout.py, core/throughput.py through ``EstimateResult``).
"""

from __future__ import annotations

from ..core.results import EstimateResult, LayoutSummary, TimeBreakdown
from ..core.units import fmt_usd

METHOD_WORDS = {"full": "full fine-tuning", "lora": "LoRA", "qlora": "QLoRA"}
MEMORY_STATUS_TEXTS = {
    "fits": "fits",
    "near_limit": "fits, near the limit",
    "does_not_fit": "does not fit",
}


def gpus_text(layout: LayoutSummary) -> str:
    """'2', or '19 needed → 24 rented (3 × 8)' when renting rounds the count up."""
    if not layout.rounded_up:
        return f"{layout.rented_gpus}"
    needed = layout.gpus_needed if layout.num_gpus == layout.rented_gpus else layout.num_gpus
    how = (
        f"{layout.nodes} × {layout.node_size}"
        if layout.rented_gpus > layout.node_size or layout.rented_gpus == layout.node_size
        else f"units of {layout.rent_unit_gpus}"
    )
    return f"{needed} needed → {layout.rented_gpus} rented ({how})"


def rollout_gpus_text(rollout_gpus: int, layout: LayoutSummary, noun: bool = False) -> str:
    """' + 2 rollout', or what renting made of them: ' + 8 rented for 2 rollout' when they spill
    into another whole node, ', 2 of them for rollouts' when spare rented GPUs host them.
    ``noun`` adds 'GPU(s)' after 'rollout' for a line that stands alone (the CLI)."""
    billed = layout.rollout_rented_gpus
    if not rollout_gpus:
        return ""
    what = f"rollout GPU{'s' if rollout_gpus != 1 else ''}" if noun else "rollout"
    if billed == rollout_gpus:
        return f" + {rollout_gpus} {what}"
    if billed == 0:
        return f", {rollout_gpus} of them for rollouts"
    return f" + {billed} rented for {rollout_gpus} {what}"


def _delta_usd(delta: float) -> str:
    return f"+{fmt_usd(delta)}" if delta >= 0 else f"−{fmt_usd(-delta)}"


def checkpointing_text(mode: str, r: EstimateResult | None) -> str:
    """'auto: off (with it: same 1 GPU, +$4.10)', 'auto: on (without it: 2 GPUs, +$4)', 'full'."""
    if r is None:
        return mode
    lay = r.layout
    state = "on" if lay.checkpointing else "off"
    if mode != "auto":
        return state
    if lay.alt_checkpointing is None:
        return f"auto: {state}"
    other = "with it" if lay.alt_checkpointing else "without it"
    if not lay.alt_fits or lay.alt_rented_gpus is None or lay.alt_on_demand_usd is None:
        return f"auto: {state} ({other} the run does not fit)"
    gpus = lay.alt_rented_gpus
    same = "same " if gpus == lay.rented_gpus else ""
    delta = lay.alt_on_demand_usd - r.cost.on_demand_usd
    plural = "GPU" if gpus == 1 else "GPUs"
    tight = ", near the memory limit" if lay.alt_near_limit else ""
    return f"auto: {state} ({other}: {same}{gpus} {plural}, {_delta_usd(delta)}{tight})"


def mfu_default_text(t: TimeBreakdown, gpu: str = "this GPU") -> str:
    """'default for LoRA on H100 SXM: 32%'."""
    return f"default for {METHOD_WORDS[t.stack_method_key]} on {gpu}: {t.mfu_default:.0%}"


def mfu_text(t: TimeBreakdown, gpu: str = "this GPU") -> str:
    """The MFU used and whose it is, with the default beside a user value."""
    if t.mfu_source == "given":
        return f"{t.mfu:.0%} (given, for every GPU; {mfu_default_text(t, gpu)})"
    if t.mfu_source == "stack":
        return (
            f"{t.mfu:.0%} (achievable {t.achievable_fraction:.2f} × your stack efficiency "
            f"{t.stack_efficiency:.2f}; {mfu_default_text(t, gpu)})"
        )
    return (
        f"{t.mfu:.0%} (default for {METHOD_WORDS[t.stack_method_key]} on {gpu}: achievable "
        f"{t.achievable_fraction:.2f} × stack {t.stack_efficiency:.2f})"
    )


# The estimate's first price, as its catalog row bills it. A spot row keeps its on-demand price
# as the reference price; its spot figure is worded as spot everywhere.
PRICE_WORDS = {
    "on_demand": "on-demand",
    "spot": "on-demand",
    "committed_1y": "1-year committed",
    "committed_3y": "3-year committed",
}


def price_word(tier: str) -> str:
    """'on-demand', '1-year committed' …: what the cost at the GPU's first price is."""
    return PRICE_WORDS.get(tier, "on-demand")


def price_label(tier: str) -> str:
    """The first price's field label: 'On-demand price', '1-year committed price' …"""
    word = price_word(tier)
    return f"{word[0].upper()}{word[1:]} price"


def price_origin_text(origin: str, source: str) -> str:
    """Where a price came from: the built-in sheet, a user catalog, typed by hand, or the file."""
    if origin == "typed by hand":
        return "Typed by hand"
    if origin == "built-in":
        return f"Built-in price sheet: {source}" if source else "Built-in price sheet"
    if origin.startswith("user:"):
        where = f"User catalog '{origin.removeprefix('user:')}'"
        return f"{where}: {source}" if source else where
    return f"Saved with the estimate: {source}" if source else "Entered by the user"


def memory_status_text(layout: LayoutSummary) -> str:
    """'fits', 'fits, near the limit (3.1% free, under 5%)' or 'does not fit'."""
    text = MEMORY_STATUS_TEXTS[layout.memory_status]
    if layout.memory_status == "near_limit":
        text += (
            f" ({layout.headroom_fraction:.1%} free, under the {layout.near_limit_fraction:.0%} "
            "margin)"
        )
    return text
