"""The model: a transformer architecture and its exact parameter counts.

Counts follow the modules Hugging Face ``transformers`` builds for each family (LlamaDecoderLayer,
Qwen2/Qwen3, Gemma2, Mixtral/OLMoE/Qwen2-MoE, GPT-2): every weight matrix, bias and norm vector.
Article 000 ("Assumptions and limitations"): MoE uses active parameters for FLOPs and the total for
memory, so both are derived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, model_validator

from ._field import fld

MlpKind = Literal["gated", "plain"]
NormKind = Literal["rmsnorm", "layernorm"]
QkNorm = Literal["none", "per_head", "full"]
LoraTarget = Literal[
    "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
    "qkv_proj", "gate_up_proj",
]  # fmt: skip
# Separate projections (Llama-style names) first, then the fused ones: Phi-3's qkv_proj and
# gate_up_proj, GPT-2's c_attn (= qkv_proj; its c_fc is up_proj, c_proj is o_proj + down_proj),
# and the experts of transformers >= 5 MoE models (one gate_up_proj parameter per layer, adapted
# by PEFT's target_parameters as one rank-r adapter per expert).
LORA_TARGETS: tuple[LoraTarget, ...] = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "qkv_proj",
    "gate_up_proj",
)


class ModelSpec(BaseModel):
    """A decoder-only transformer, described by the numbers of its config.json."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = fld("Llama-2-7B shape", "Model", "Display name of the model or preset.")
    param_count_override: float | None = fld(
        None,
        "Parameter count (bare)",
        "Use a bare parameter count instead of the architecture's exact count. The architecture "
        "fields still give the shapes (layers, hidden size, vocabulary) that activation memory and "
        "the attention FLOP term need; every parameter group is scaled to this total.",
        "params",
        ge=1e6,
        le=1e13,
    )
    num_layers: int = fld(32, "Layers", "Decoder layers (num_hidden_layers).", "", ge=1, le=1000)
    hidden_size: int = fld(4096, "Hidden size", "Model width d (hidden_size).", "", ge=8, le=131072)
    num_attention_heads: int = fld(32, "Attention heads", "Query heads.", "", ge=1, le=1024)
    num_kv_heads: int = fld(
        32,
        "KV heads",
        "Key/value heads (num_key_value_heads); fewer than the query heads is grouped-query "
        "attention (GQA), equal is multi-head attention.",
        "",
        ge=1,
        le=1024,
    )
    head_dim: int = fld(
        0,
        "Head dim",
        "Width of one attention head; 0 means hidden size ÷ heads. Gemma and Qwen3 set it "
        "explicitly to a value that differs.",
        "",
        ge=0,
        le=4096,
        zero_text="auto (hidden ÷ heads)",
    )
    intermediate_size: int = fld(
        11008, "MLP intermediate size", "Width of the MLP's hidden layer.", "", ge=1, le=10**6
    )
    fused_qkv: bool = fld(
        False,
        "Fused q/k/v",
        "q, k and v come out of one matrix (Phi-3 qkv_proj, GPT-2 c_attn). Same parameters; "
        "what backward keeps differs (Phi-3 keeps the whole fused output, since v is a view of "
        "it), and LoRA adapts it as one module, qkv_proj.",
    )
    mlp_kind: MlpKind = fld(
        "gated",
        "MLP kind",
        "gated: SwiGLU/GeGLU with three matrices (gate, up, down), as Llama, Qwen, Mistral, "
        "Gemma; plain: two matrices (up, down), as GPT-2.",
    )
    vocab_size: int = fld(
        32000, "Vocabulary", "Tokenizer vocabulary size.", "tokens", ge=1, le=4 * 10**6
    )
    tied_embeddings: bool = fld(
        False, "Tied embeddings", "The output head shares the input embedding matrix."
    )
    attention_qkv_bias: bool = fld(
        False, "q/k/v bias", "q, k and v projections have biases (Qwen2)."
    )
    attention_out_bias: bool = fld(False, "o bias", "The attention output projection has a bias.")
    mlp_bias: bool = fld(False, "MLP bias", "The MLP matrices have biases (GPT-2).")
    norm_kind: NormKind = fld(
        "rmsnorm", "Norm kind", "rmsnorm: one weight vector; layernorm: weight and bias."
    )
    norms_per_layer: int = fld(
        2,
        "Norms per layer",
        "Hidden-size norm layers per decoder layer (2 for Llama; 4 for Gemma 2).",
        "",
        ge=0,
        le=8,
    )
    qk_norm: QkNorm = fld(
        "none",
        "q/k norm",
        "Norms on queries and keys: per_head over head_dim (Qwen3), full over the whole q and k "
        "width (OLMoE).",
    )
    position_embeddings: int = fld(
        0,
        "Learned positions",
        "Rows of a learned absolute position embedding (GPT-2: 1024); 0 for rotary models.",
        "",
        ge=0,
        le=10**7,
    )
    num_experts: int = fld(
        0, "Experts", "Routed experts per MoE layer; 0 for a dense model.", "", ge=0, le=4096
    )
    experts_per_token: int = fld(
        0, "Experts per token", "Routed experts active per token (top-k).", "", ge=0, le=4096
    )
    num_shared_experts: int = fld(
        0, "Shared experts", "Always-active shared experts per MoE layer.", "", ge=0, le=64
    )
    expert_intermediate_size: int = fld(
        0, "Expert intermediate size", "MLP width of one routed expert.", "", ge=0, le=10**6
    )
    shared_expert_intermediate_size: int = fld(
        0,
        "Shared expert intermediate size",
        "MLP width of the shared expert block; 0 means the routed expert width.",
        "",
        ge=0,
        le=10**6,
        zero_text="same as routed",
    )
    shared_expert_gate: bool = fld(
        False, "Shared expert gate", "A sigmoid gate on the shared expert (Qwen2-MoE)."
    )
    max_context: int = fld(
        4096,
        "Context length",
        "The model's maximum context (informational).",
        "tokens",
        ge=1,
        le=10**8,
    )

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        if self.num_attention_heads % self.num_kv_heads:
            raise ValueError("num_kv_heads must divide num_attention_heads")
        if self.head_dim == 0 and self.hidden_size % self.num_attention_heads:
            raise ValueError("head_dim: hidden_size is not a multiple of the heads; set head_dim")
        if self.num_experts:
            if not 1 <= self.experts_per_token <= self.num_experts:
                raise ValueError("experts_per_token must be between 1 and num_experts")
            if self.expert_intermediate_size == 0:
                raise ValueError("expert_intermediate_size is needed for a mixture-of-experts")
        return self

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def head_dim_eff(self) -> int:
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @property
    def q_dim(self) -> int:
        return self.num_attention_heads * self.head_dim_eff

    @property
    def kv_dim(self) -> int:
        return self.num_kv_heads * self.head_dim_eff

    def attention_shapes(self) -> dict[str, tuple[int, int]]:
        """(in, out) of each attention projection, by its usual name."""
        h = self.hidden_size
        return {
            "q_proj": (h, self.q_dim),
            "k_proj": (h, self.kv_dim),
            "v_proj": (h, self.kv_dim),
            "o_proj": (self.q_dim, h),
        }

    def _mlp_blocks(self, active: bool = False) -> list[tuple[str, int, float]]:
        """MLP blocks per layer: (kind, intermediate width, copies)."""
        if not self.is_moe:
            return [("dense", self.intermediate_size, 1)]
        routed = self.experts_per_token if active else self.num_experts
        blocks: list[tuple[str, int, float]] = [("routed", self.expert_intermediate_size, routed)]
        if self.num_shared_experts:
            width = self.shared_expert_intermediate_size or self.expert_intermediate_size
            blocks.append(("shared", width, self.num_shared_experts))
        return blocks

    def lora_params_by_target(self, rank: int) -> dict[str, tuple[float, float]]:
        """Per target: (total, active per token) LoRA parameters, all layers.

        Hu et al. 2021 (LoRA), eq. 3: W + BA with B ∈ R^{d_out×r}, A ∈ R^{r×d_in}, so each adapted
        matrix adds r·(d_in + d_out). In an MoE, MLP targets adapt every routed and shared expert.
        """
        h = self.hidden_size
        out: dict[str, tuple[float, float]] = {}
        for target, (d_in, d_out) in self.attention_shapes().items():
            n = rank * (d_in + d_out) * self.num_layers
            out[target] = (n, n)
        # Fused q/k/v: one adapter on the (h, q + 2kv) matrix (PEFT on qkv_proj / c_attn).
        n = rank * (h + self.q_dim + 2 * self.kv_dim) * self.num_layers
        out["qkv_proj"] = (n, n)
        for target in ("gate_proj", "up_proj", "down_proj", "gate_up_proj"):
            if target in ("gate_proj", "gate_up_proj") and self.mlp_kind == "plain":
                out[target] = (0.0, 0.0)
                continue
            total = active = 0.0
            for kind, i, copies in self._mlp_blocks():
                # gate_up_proj: one adapter on the fused (h, 2i) matrix of each MLP or expert.
                per = rank * (h + (2 * i if target == "gate_up_proj" else i))
                total += per * copies
                active += per * (self.experts_per_token if kind == "routed" else copies)
            out[target] = (total * self.num_layers, active * self.num_layers)
        return out

    def lora_params(self, rank: int, targets: tuple[str, ...]) -> tuple[float, float]:
        """(total, active per token) LoRA parameters for the given targets."""
        by_target = self.lora_params_by_target(rank)
        picked = [by_target[t] for t in dict.fromkeys(targets)]
        return sum(t for t, _ in picked), sum(a for _, a in picked)

    def counts(self) -> ParamCounts:
        return count_params(self)


@dataclass(frozen=True, slots=True)
class ParamCounts:
    """Exact parameter groups of an architecture (element counts)."""

    total: float
    embedding: float  # token (and learned position) embeddings
    lm_head: float  # 0 when tied
    decoder_linear: float  # weight matrices of the decoder layers (what NF4 quantises)
    total_active: float  # MoE: parameters used per token; equals total for dense models
    decoder_linear_active: float
    matmul_active: float  # parameters in matmuls per token: decoder linears + output head
    layer: float  # one decoder layer, all parameters
    largest_linear: float  # the biggest single weight matrix (dequantisation buffer)
    # Checkpointing (non-reentrant, transformers' default) stops recomputing once the last tensor
    # backward needs is back: the layer's final matmul (the MLP down projection) is never rerun
    # unless a later op keeps its output (measured: docs/data/measured/*.json, "flops").
    tail_linear: float  # that down projection, all layers, active per token (0 where rerun)
    first_layer_inputs: float  # q/k/v weights of one layer: what reads layer 0's first norm

    @property
    def non_embedding(self) -> float:
        return self.total - self.embedding - self.lm_head

    @property
    def other_16bit(self) -> float:
        """Everything not in a decoder linear: embeddings, head, norms, biases."""
        return self.total - self.decoder_linear

    def scaled(self, factor: float) -> ParamCounts:
        return ParamCounts(*(getattr(self, f) * factor for f in self.__slots__))


def count_params(m: ModelSpec) -> ParamCounts:
    """Exact counts; see the module docstring for the families this matches."""
    h = m.hidden_size
    norm_width = 2 if m.norm_kind == "layernorm" else 1
    attn_linear = h * m.q_dim + 2 * h * m.kv_dim + m.q_dim * h
    attn_other = 0
    if m.attention_qkv_bias:
        attn_other += m.q_dim + 2 * m.kv_dim
    if m.attention_out_bias:
        attn_other += h
    if m.qk_norm == "per_head":
        attn_other += 2 * m.head_dim_eff * norm_width
    elif m.qk_norm == "full":
        attn_other += (m.q_dim + m.kv_dim) * norm_width
    norms = m.norms_per_layer * h * norm_width

    def mlp(active: bool) -> tuple[float, float, float]:
        """(linear weights, other, largest matrix) of one layer's MLP part."""
        mats = 3 if m.mlp_kind == "gated" else 2
        linear = other = 0.0
        largest = 0.0
        for _kind, i, copies in m._mlp_blocks(active):
            linear += copies * mats * h * i
            largest = max(largest, h * i)
            if m.mlp_bias:
                other += copies * ((mats - 1) * i + h)
        if m.is_moe:
            linear += h * m.num_experts  # router (an nn.Linear, quantised like the rest)
            if m.shared_expert_gate:
                linear += h
        return linear, other, largest

    mlp_linear, mlp_other, mlp_largest = mlp(False)
    # Gemma 2 normalises the MLP output (the norm keeps it) and an MoE weights each expert's
    # output by its routing probability (the multiply keeps it): both are recomputed in full.
    reruns_tail = m.norms_per_layer == 4 or m.is_moe
    mlp_linear_act, _, _ = mlp(True)
    layer_linear = attn_linear + mlp_linear
    layer = layer_linear + attn_other + mlp_other + norms
    layer_linear_act = attn_linear + mlp_linear_act
    embedding = m.vocab_size * h + m.position_embeddings * h
    lm_head = 0 if m.tied_embeddings else m.vocab_size * h
    final_norm = h * norm_width
    total = m.num_layers * layer + embedding + lm_head + final_norm
    active = total - m.num_layers * (layer_linear - layer_linear_act)
    return ParamCounts(
        total=float(total),
        embedding=float(embedding),
        lm_head=float(lm_head),
        decoder_linear=float(m.num_layers * layer_linear),
        total_active=float(active),
        decoder_linear_active=float(m.num_layers * layer_linear_act),
        matmul_active=float(m.num_layers * layer_linear_act + m.vocab_size * h),
        layer=float(layer),
        largest_linear=float(max(mlp_largest, h * m.q_dim)),
        tail_linear=0.0 if reruns_tail else float(m.num_layers * h * m.intermediate_size),
        first_layer_inputs=float(h * (m.q_dim + 2 * m.kv_dim)),
    )


def effective_counts(m: ModelSpec) -> ParamCounts:
    """Counts used by the estimate: the exact ones, or scaled to a bare parameter count."""
    exact = count_params(m)
    if m.param_count_override is None:
        return exact
    return exact.scaled(m.param_count_override / exact.total)
