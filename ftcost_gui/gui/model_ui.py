"""Model facts as text, and "load this architecture" as one undoable edit.

The formatting helpers are shared by the model panel (preset picker, parameter count, the
checkpoint count), the training panel (LoRA target counts) and the import dialogs
(``model_import``), which also use ``apply_model``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..core.architecture import ModelSpec, count_params, effective_counts
from ..core.catalog import ModelPreset
from ..present.text import fmt_context, fmt_count, fmt_exact
from .store import EstimateStore

if TYPE_CHECKING:  # the header reader loads with the first model import
    from ..io.safetensors_header import SafetensorsCount

CUSTOM = "__custom__"


# --- presets -------------------------------------------------------------------------------------
def preset_label(p: ModelPreset) -> str:
    """'Llama 3.1 · 8B · 128k ctx · Llama 3.1 Community'."""
    parts = [p.family, p.size, fmt_context(p.spec.max_context)]
    if p.license:
        parts.append(p.license)
    return " · ".join(parts)


def preset_search_text(p: ModelPreset) -> str:
    """Everything a person might type to find a preset, lower-case."""
    words = (
        p.family,
        p.size,
        p.spec.name,
        p.id,
        p.hf_id,
        p.license,
        fmt_context(p.spec.max_context),
    )
    return " ".join(w for w in words if w).lower()


def grouped_by_family(presets: Iterable[ModelPreset]) -> list[tuple[str, list[ModelPreset]]]:
    """Presets grouped by family, families in first-seen order (the library's own order)."""
    groups: dict[str, list[ModelPreset]] = {}
    for p in presets:
        groups.setdefault(p.family, []).append(p)
    return list(groups.items())


def same_architecture(a: ModelSpec, b: ModelSpec) -> bool:
    """Equal in every field but the display name."""
    return a.model_copy(update={"name": ""}) == b.model_copy(update={"name": ""})


def matching_preset(spec: ModelSpec, presets: Iterable[ModelPreset]) -> ModelPreset | None:
    """The preset with exactly this architecture (the name may differ), if any."""
    for p in presets:
        if p.spec == spec:
            return p
    for p in presets:
        if same_architecture(p.spec, spec):
            return p
    return None


def param_summary(spec: ModelSpec, preset: ModelPreset | None = None) -> tuple[str, str]:
    """(label text, tooltip) for the derived parameter count of an architecture."""
    exact = count_params(spec)
    eff = effective_counts(spec)
    tip = [
        f"Derived from the architecture: {fmt_exact(exact.total)} parameters",
        f"  embeddings {fmt_exact(exact.embedding)}, output head "
        + (f"{fmt_exact(exact.lm_head)}" if exact.lm_head else "tied (0)"),
        f"  one decoder layer {fmt_exact(exact.layer)} × {spec.num_layers} layers",
    ]
    if spec.param_count_override is not None:
        text = (
            f"Bare count of {fmt_count(eff.total)} parameters (the architecture alone gives "
            f"{fmt_exact(exact.total)})"
        )
        tip.append("Every parameter group is scaled to the bare count.")
        return text, "\n".join(tip)
    text = f"{fmt_exact(exact.total)} parameters ({fmt_count(exact.total)})"
    if preset is not None and preset.expected_total is not None:
        if round(exact.total) == preset.expected_total:
            text += " = published total ✓"
            tip.append(f"Equals the published total of {preset.spec.name} ({preset.source}).")
        else:
            diff = round(exact.total) - preset.expected_total
            text += f" ≠ published {fmt_exact(preset.expected_total)} ({diff:+,})"
    if spec.is_moe:
        text += (
            f"\n{fmt_exact(exact.total_active)} active per token ({fmt_count(exact.total_active)}; "
            f"top-{spec.experts_per_token} of {spec.num_experts} experts)"
        )
    return text, "\n".join(tip)


def checkpoint_text(
    count: SafetensorsCount | None, spec: ModelSpec | None, error: str = ""
) -> tuple[str, str]:
    """(label, tooltip) comparing the header count with the architecture's count."""
    if count is None:
        return (f"safetensors: not counted — {error}", error) if error else ("", "")
    dtypes = sorted(count.dtypes.items(), key=lambda kv: -kv[1])
    kinds = ", ".join(d.lower() for d, _ in dtypes) or "no tensors"
    text = f"safetensors: {fmt_exact(count.total_params)} params ({kinds})"
    files = len(count.files)
    tip = [
        f"Counted from the headers of {files} .safetensors file{'s' if files != 1 else ''} "
        f"({count.tensors:,} tensors, {count.total_bytes / 2**30:,.2f} GiB of weights); "
        "the weights themselves were not read.",
    ]
    if spec is not None:
        arch = round(count_params(spec).total)
        diff = count.total_params - arch
        if diff == 0:
            text += " — matches"
            tip.append("Equals the count derived from the architecture.")
        else:
            text += f" — differs by {diff:+,} ({diff / arch:+.2%})"
            tip.append(
                f"The architecture gives {fmt_exact(arch)}. A checkpoint can store more than the "
                "model's parameters (a tied output head saved again, buffers such as rotary "
                "inv_freq or GPT-2's causal masks) or pack them (quantised int4 tensors)."
            )
    return text, "\n".join(tip)


# --- edits ---------------------------------------------------------------------------------------
def apply_model(store: EstimateStore, spec: ModelSpec, description: str) -> bool:
    """Replace the model section in one undoable edit; False if the inputs reject it."""
    try:
        new = store.inputs.edited("model", **spec.model_dump())
    except ValidationError:
        return False
    store.set_inputs(new, description=description, at_once=True)
    return True


def spec_from_partial(base: ModelSpec, partial: dict[str, Any]) -> tuple[ModelSpec, list[str]]:
    """``base`` with every understood field of ``partial`` that keeps the shape valid.

    Returns the spec and the fields that were taken. Fields are tried all at once, then one by one
    (a partial hidden size may not fit the base's heads, for example).
    """
    known = {k: v for k, v in partial.items() if k in ModelSpec.model_fields}
    try:
        return ModelSpec.model_validate({**base.model_dump(), **known}), list(known)
    except ValidationError:
        pass
    current = base.model_dump()
    taken: list[str] = []
    # Heads before widths so that a new hidden size meets the new head count.
    order = sorted(known, key=lambda k: (k not in ("num_attention_heads", "num_kv_heads"), k))
    for key in order:
        trial = {**current, key: known[key]}
        try:
            ModelSpec.model_validate(trial)
        except ValidationError:
            continue
        current = trial
        taken.append(key)
    return ModelSpec.model_validate(current), taken
