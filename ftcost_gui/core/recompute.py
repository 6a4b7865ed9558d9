"""The recomputed layer's peak under checkpointing: what lives beside its saved tensors.

With non-reentrant checkpointing (transformers' ``gradient_checkpointing_enable()``) the backward
reruns each decoder layer's forward, then runs that layer's backward. Beside the layer's
recomputed saved tensors (activations.layer_inventory) and the checkpointed inputs, three kinds of
tensor are live at the peak of that stretch, measured op by op with a live-storage trace
(``python -m validation.backward_trace``, record docs/data/measured/backward_peak.json):

- the gradient of the layer's output (the residual stream's gradient, bf16); with fp32 adapters
  also the fp32 gradient flowing through the adapters' input casts and its bf16 sum;
- one moment's temporaries, the larger of two stations:
  * **up** (LoRA on the MLP's up side: gate/up, fused gate_up, GPT-2's c_fc): while the
    recomputation runs the adapted up projection, its bf16 base output, the LoRA path's output and
    its scaled copy (adapter dtype) and the MLP input (bf16, when no linear keeps it) are live,
    while the layer's tensors made after it (the up output, the activation, the down side) are
    not recomputed yet;
  * **down** (every method): in the backward of the down projection, the gradient of its input
    (bf16), plus the LoRA path's gradient when the down projection is adapted, and under full
    fine-tuning the down weight's gradient before it is added to ``.grad`` (h·i, bf16);
- MoE experts (grouped_mm): the gradients of the routed rows' gate_up
  output and activation, k per token.

The loss path's tensors (the fp32 log-softmax, the final norm's, the labels) are freed before
the first layer is recomputed (``loss_freed``): only the rotary cos/sin and position ids stay.
"""

from __future__ import annotations

from .activations import BF16, LoraActs, Saved, _adapted, fixed, total
from .architecture import ModelSpec

UP_SIDE = ("gate_up_proj", "gate_proj", "up_proj", "c_fc")
# Outside the layers, what the checkpoint frames still hold when a layer is recomputed.
KEPT_OUTSIDE = ("rotary cos and sin", "position ids")


def loss_freed(outside: list[Saved]) -> float:
    """Bytes per token of the outside tensors freed before any layer is recomputed."""
    return sum(s.bytes_per_token for s in outside if not s.name.startswith(KEPT_OUTSIDE))


def up_width(m: ModelSpec, lora: LoraActs | None) -> float:
    """Width of the adapted up-side projection's output (0 when none is adapted): i, or 2i for a
    fused gate_up (its LoRA path spans both halves)."""
    if lora is None or m.is_moe or not _adapted(lora, *UP_SIDE):
        return 0.0
    return 2.0 * m.intermediate_size if "gate_up_proj" in lora.targets else m.intermediate_size


def grad_in(m: ModelSpec, lora: LoraActs | None) -> list[Saved]:
    """The gradient reaching the recomputed layer, live through its recomputation and backward."""
    h = m.hidden_size
    out = [Saved("gradient of the layer's output (residual stream, bf16)", BF16 * h)]
    if lora is not None and lora.adapter_bytes != BF16:
        out.append(Saved("fp32 gradient through the adapters' input casts + its bf16 sum",
                         (lora.adapter_bytes + BF16) * h))  # fmt: skip
    return out


def _up_station(m: ModelSpec, lora: LoraActs, layer: list[Saved]) -> list[Saved]:
    """The up projection's LoRA path in the recomputation (bytes beyond the layer's saved)."""
    d, a = up_width(m, lora), lora.adapter_bytes
    out = [
        Saved("up projection's base output (bf16)", BF16 * d),
        Saved("up LoRA path: lora_B output + its scaled copy (adapter dtype)", 2 * a * d),
    ]
    if a != BF16:  # with bf16 adapters the MLP input is kept for backward (in the layer)
        out.append(Saved("MLP input (bf16, read by the up projection)", BF16 * m.hidden_size))
    # Saved tensors made after the up projection: not recomputed yet at this moment.
    later: tuple[str, ...] = ("up output", "MLP product", "down_proj LoRA")
    if "gate_up_proj" in lora.targets or m.mlp_kind != "gated":
        later += ("gate output", "activation output", "MLP up output")
    pending = sum(s.bytes_per_token for s in layer if s.name.startswith(later))
    out.append(Saved("layer tensors not recomputed yet (after the up projection)", -pending))
    return out


def _down_station(m: ModelSpec, full: bool, lora: LoraActs | None) -> list[Saved]:
    """The down projection's backward (bytes beyond the layer's saved)."""
    h = m.hidden_size
    if m.is_moe:
        k, i = m.experts_per_token, m.expert_intermediate_size
        return [Saved("experts' gate_up output gradient (bf16, k rows)", BF16 * k * 2 * i),
                Saved("experts' activation gradient (bf16, k rows)", BF16 * k * i)]  # fmt: skip
    w = float(m.intermediate_size)
    out = [Saved("down projection's input gradient (bf16)", BF16 * w)]
    if lora is not None and _adapted(lora, "down_proj"):  # cast to bf16 before the sum
        out.append(Saved("down LoRA path's input gradient (bf16)", BF16 * w))
    if full:
        out.append(Saved("down weight's gradient before it is added (bf16, per layer)", 0.0,
                         BF16 * h * w))  # fmt: skip
    return out


def _experts_up_station(m: ModelSpec, layer: list[Saved]) -> list[Saved]:
    """Full fine-tuning of grouped_mm experts: the gate_up's backward, with every expert's
    weight gradient before it is added to ``.grad`` (backward_peak.json, Mixtral b1 s128); the
    experts' tensors after the gate_up are consumed by then."""
    k, i, h = m.experts_per_token, m.expert_intermediate_size, m.hidden_size
    done = ("experts' gate_up output", "experts' activation output", "experts' product",
            "experts' down output")  # fmt: skip
    freed = sum(s.bytes_per_token for s in layer if s.name.startswith(done))
    return [
        Saved("experts' gate_up output gradient (bf16, k rows)", BF16 * k * 2 * i),
        Saved("experts' input rows gradient (bf16, k rows)", BF16 * k * h),
        Saved("experts' gate_up weight gradient before it is added (bf16, per layer)", 0.0,
              BF16 * m.num_experts * 2 * i * h),
        Saved("experts' tensors consumed by then (gate_up output to down output)", -freed),
    ]  # fmt: skip


def recompute_stations(
    m: ModelSpec, full: bool, lora: LoraActs | None, layer: list[Saved]
) -> tuple[tuple[Saved, ...], ...]:
    """What may live beside the recomputed layer's saved tensors at its peak: the layer output's
    gradient plus one station's temporaries, per station (bytes per token, and per layer in
    ``fixed_bytes``); the peak is the largest at the micro-batch's tokens (``station_bytes``)."""
    stations = [_down_station(m, full, lora)]
    if lora is not None and up_width(m, lora):
        stations.append(_up_station(m, lora, layer))
    if full and m.is_moe:
        stations.append(_experts_up_station(m, layer))
    head = grad_in(m, lora)
    return tuple(tuple(head + st) for st in stations)


def peak_station(stations: tuple[tuple[Saved, ...], ...], tokens: float) -> tuple[Saved, ...]:
    """The station with the most bytes for ``tokens`` tokens (empty without checkpointing)."""
    return max(stations, key=lambda st: total(st) * tokens + fixed(st), default=())


def station_bytes(stations: tuple[tuple[Saved, ...], ...], tokens: float) -> float:
    """The largest station's bytes for ``tokens`` tokens (0 without checkpointing)."""
    st = peak_station(stations, tokens)
    return total(st) * tokens + fixed(st)
