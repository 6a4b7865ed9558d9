"""Per-GPU memory: persistent state by precision recipe, activations, logits, buffers.

Sources: article 001 'Memory sets the floor' (bytes per parameter, 2·L·b·s·h with recomputation,
85% usable); Dettmers et al. 2023 (QLoRA, §3: NF4 + double quantisation); Rajbhandari et al. 2020
(ZeRO stages); Korthikanti et al. 2023 (activation accounting, adapted to FlashAttention/SDPA,
which keeps no s² tensor: Dao 2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .architecture import ModelSpec, ParamCounts

BF16_BYTES = 2
FP32_BYTES = 4
# NF4 with double quantisation: 4 bits + an 8-bit absmax per 64 weights + an fp32 constant per
# 256 blocks (Dettmers et al. 2023, §3 'Double Quantization'): 4 + 8/64 + 32/(64·256) = 4.127 bits.
NF4_DQ_BITS = 4 + 8 / 64 + 32 / (64 * 256)
NF4_DQ_BYTES = NF4_DQ_BITS / 8
# LoRA adapters train in fp32 (PEFT default): weight 4 + gradient 4 + two AdamW moments 8.
ADAPTER_WEIGHT_BYTES = 4.0
ADAPTER_GRAD_BYTES = 4.0
ADAPTER_MOMENT_BYTES = 8.0
# Standard transformers loss path, per token per vocabulary entry: bf16 logits held in the output
# (2) + fp32 upcast/log-softmax output (4) + fp32 gradient (4) + its fp32→bf16 path (4 + 2) at the
# backward peak. Unsloth's published context table implies ~16 B/token·V for HF QLoRA on
# Llama-3.1-8B (reference/peers.md §0.2); we use 16.
LOGITS_STANDARD_BYTES = 16.0
# Fused/chunked cross-entropy holds fp32 logits and gradient for one chunk only.
CHUNKED_LOSS_TOKENS = 2048
LOGITS_CHUNKED_BYTES = 8.0
# DeepSpeed ZeRO-1/2 defaults: reduce_bucket_size = allgather_bucket_size = 5e8 elements (bf16).
ZERO_BUCKET_BYTES = 2 * 5e8 * BF16_BYTES


@dataclass(frozen=True, slots=True)
class Recipe:
    """Bytes per parameter of persistent state (article 001)."""

    weights: float
    gradients: float
    master: float
    moments: float
    full: bool  # base weights trainable

    @property
    def bytes_per_param(self) -> float:
        return self.weights + self.gradients + self.master + self.moments


RECIPES: dict[str, Recipe] = {
    # bf16 weights and grads, fp32 master + two fp32 Adam moments: 2 + 2 + 4 + 8 = 16.
    "full_amp_adamw": Recipe(2, 2, 4, 8, True),
    # 8-bit Adam quantises the two moments to one byte each: 2 + 2 + 4 + 2 = 10.
    "full_adamw_8bit": Recipe(2, 2, 4, 2, True),
    # Pure bf16 (torchtune dtype=bf16, litgpt bf16-true): no master, bf16 moments: 2 + 2 + 4 = 8.
    "full_bf16_adamw": Recipe(2, 2, 0, 4, True),
    # Frozen bf16 base; adapters counted separately.
    "lora": Recipe(2, 0, 0, 0, False),
    # NF4 base on decoder linears; counted separately in base_weight_bytes.
    "qlora": Recipe(NF4_DQ_BYTES, 0, 0, 0, False),
}

# Article 003's napkin bytes per parameter, adapters and overhead folded in.
SIMPLE_BYTES_PER_PARAM_003 = {"lora": 2.5, "qlora": 0.75}


def base_weight_bytes(method: str, counts: ParamCounts) -> float:
    """Weights of the base model; QLoRA keeps embeddings, head, norms and biases in 16-bit."""
    if method == "qlora":
        return counts.decoder_linear * NF4_DQ_BYTES + counts.other_16bit * BF16_BYTES
    return counts.total * RECIPES[method].weights


def activation_bytes_per_token_layer(
    m: ModelSpec, attention: str, seq_len: int, lora_modules: tuple[tuple[int, int], ...]
) -> float:
    """Bytes one token leaves saved for backward in one decoder layer (no checkpointing).

    Counted from the tensors autograd keeps in a Llama-style layer with FlashAttention/SDPA
    (bf16): norm 1 input and output (2h), q, k, v (q + 2kv), attention output (q), norm 2 input
    and output (2h), the MLP's gate and up outputs, the activation output and the product fed to
    the down projection (4i; plain MLPs 2i), FlashAttention's fp32 log-sum-exp (4 B per head).
    Korthikanti et al.'s 34·h per token is the same count with dropout masks and a 4h MLP.
    Eager attention adds the fp32 softmax and its bf16 copy: 6 B per head per key position.
    LoRA (PEFT) saves each adapted input cast to fp32 and the rank-r intermediate.
    """
    h = m.hidden_size
    if m.is_moe:
        widths = [m.expert_intermediate_size * m.experts_per_token]
        if m.num_shared_experts:
            widths.append(
                (m.shared_expert_intermediate_size or m.expert_intermediate_size)
                * m.num_shared_experts
            )
        i_eff = sum(widths)
        router = m.num_experts * 2 * FP32_BYTES  # router logits and softmax, fp32
    else:
        i_eff = m.intermediate_size
        router = 0
    mlp = (4 if m.mlp_kind == "gated" else 2) * i_eff
    elems = 4 * h + 2 * m.q_dim + 2 * m.kv_dim + mlp
    total = elems * BF16_BYTES + FP32_BYTES * m.num_attention_heads + router
    if attention == "eager":
        total += 6 * m.num_attention_heads * seq_len
    for d_in, rank in lora_modules:
        total += FP32_BYTES * (d_in + rank)
    return total


@dataclass(frozen=True, slots=True)
class MemoryModel:
    """The per-GPU memory as sharded (B, divided by GPUs) and unsharded (A) parts."""

    weights: float
    gradients: float
    master: float
    optimizer: float
    adapters_weights: float
    adapters_grads: float
    adapters_moments: float
    activations_saved: float
    activations_working: float
    logits: float
    qlora_buffer: float
    layer_gather: float  # ZeRO-3: one gathered layer + one prefetched, multi-GPU only
    grad_buckets: float  # DDP bucket copy / ZeRO bucket buffers, multi-GPU only
    overhead: float
    sharding: str
    offload: bool
    # DPO/GRPO/PPO (alignment.py, rollout.py): frozen reference and reward models (sharded like
    # the weights), PPO's value model (state sharded like the policy's, critic_ratio × it),
    # a colocated rollout engine's reservation (per GPU, never sharded) and, when the policy
    # generates itself, its generation peak (weights gathered under ZeRO-3 + the KV cache), of
    # which only what exceeds the training activations it alternates with counts.
    reference: float = 0.0
    reward: float = 0.0
    critic_ratio: float = 0.0
    rollout_weights: float = 0.0
    rollout_kv: float = 0.0
    gen_gather: float = 0.0
    gen_kv_per_seq: float = 0.0
    gen_seqs: float = 0.0
    gen_max_seqs: float = 0.0

    def split(self, n: int) -> dict[str, float]:
        """Per-GPU bytes of each part on n data-parallel GPUs."""
        s = self.sharding
        w_div = n if s == "zero3" else 1
        g_div = n if s in ("zero2", "zero3") else 1
        o_div = n if s in ("zero1", "zero2", "zero3") else 1
        opt_on_gpu = 0.0 if self.offload else 1.0
        multi = n > 1
        state = (
            self.weights / w_div
            + self.gradients / g_div
            + opt_on_gpu * (self.master + self.optimizer) / o_div
            + self.adapters_weights / w_div
            + self.adapters_grads / g_div
            + opt_on_gpu * self.adapters_moments / o_div
        )
        kv = self.rollout_kv
        if self.gen_seqs:
            gathered = self.gen_gather * (1 - 1 / n) if multi and s == "zero3" else 0.0
            peak = gathered + min(self.gen_seqs / n, self.gen_max_seqs) * self.gen_kv_per_seq
            train = self.activations_saved + self.activations_working + self.logits
            kv += max(0.0, peak - train)
        return {
            "weights": self.weights / w_div,
            "gradients": self.gradients / g_div,
            "master": opt_on_gpu * self.master / o_div,
            "optimizer": opt_on_gpu * self.optimizer / o_div,
            "adapters": self.adapters_weights / w_div
            + self.adapters_grads / g_div
            + opt_on_gpu * self.adapters_moments / o_div,
            "activations": self.activations_saved + self.activations_working,
            "logits": self.logits,
            "buffers": self.qlora_buffer
            + (self.layer_gather if multi and s == "zero3" else 0.0)
            + (self.grad_buckets if multi else 0.0),
            "overhead": self.overhead,
            "reference": self.reference / w_div,
            "critic": self.reward / w_div + self.critic_ratio * state,
            "rollout_weights": self.rollout_weights,
            "kv_cache": kv,
        }

    def total(self, n: int) -> float:
        return sum(self.split(n).values())

    def offloaded_bytes(self) -> float:
        if not self.offload:
            return 0.0
        return self.master + self.optimizer + self.adapters_moments

    def gpus_needed(self, usable_bytes: float, max_gpus: int = 1_000_000) -> int | None:
        """Fewest GPUs whose per-GPU total fits in usable_bytes; None if no count does.

        Article 001: 'the minimum GPU count is the ceiling of total bytes over usable HBM', made
        exact per part: total(n) = A + B/n, so n = ceil(B / (usable − A)).
        """
        if self.total(1) <= usable_bytes:
            return 1
        # For n >= 2 every part is A + B/n; two evaluations give A and B exactly.
        t2, t4 = self.total(2), self.total(4)
        b_sharded = 4 * (t2 - t4)
        a_fixed = t2 - b_sharded / 2
        room = usable_bytes - a_fixed
        if b_sharded <= 0 or room <= 0:
            return None
        n = max(2, math.ceil(b_sharded / room - 1e-9))
        while n <= max_gpus and self.total(n) > usable_bytes:
            n += 1
        return n if n <= max_gpus else None
