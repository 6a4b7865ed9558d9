"""Per-GPU memory: persistent state by precision recipe, activations, logits, buffers.

Sources: article 001 'Memory sets the floor' (bytes per parameter, 2·L·b·s·h with recomputation,
85% usable); Dettmers et al. 2023 (QLoRA, §3: NF4 + double quantisation); Rajbhandari et al. 2020
(ZeRO stages); Korthikanti et al. 2023 (activation accounting, adapted to FlashAttention/SDPA,
which keeps no s² tensor: Dao 2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .architecture import ParamCounts

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
# (weight, gradient, two moments) per adapter parameter by adapter dtype; torch AdamW keeps its
# moments in the parameter's dtype, so bf16 adapters hold 2 + 2 + 4 = 8 B.
ADAPTER_STATE_BYTES = {"fp32": (4.0, 4.0, 8.0), "bf16": (2.0, 2.0, 4.0)}
# The loss path at its backward peak, per token per vocabulary entry, beyond what the forward
# keeps (measured: docs/data/measured/loss.json, allocator timeline). Standard transformers loss:
# 12 B in all — the fp32 log-softmax output kept for backward (4 B, counted with the saved
# activations) plus the fp32 gradient of the log-softmax and of its input (4 + 4 B) at the peak.
# The bf16 logits are gone by then when the caller drops the model output (as HF Trainer does).
LOGITS_STANDARD_BYTES = 8.0
# Fused linear + cross-entropy (Liger's algorithm): bf16 logits, fp32 upcast, softmax/gradient
# and its bf16 cast for one chunk of tokens: 14 B per chunk token per vocabulary entry, measured.
CHUNKED_LOSS_TOKENS = 2048
LOGITS_CHUNKED_BYTES = 14.0
# The optimizer step's temporaries per parameter stepped (docs/data/measured/optimizer.json): the
# fused AdamW that HF Trainer uses by default (adamw_torch_fused, torch >= 2.8) allocates none;
# plain torch.optim.AdamW on CUDA (foreach) allocates one copy of the parameters in their dtype
# (2 B per bf16 parameter, 4 per fp32) — add it by hand for such a loop. 8-bit Adam (bitsandbytes)
# steps in its own kernel: none counted (not measured here).
OPTIMIZER_TEMP_BYTES = {
    "full_amp_adamw": 0.0,
    "full_adamw_8bit": 0.0,
    "full_bf16_adamw": 0.0,
}
FOREACH_TEMP_BYTES = {"bfloat16": 2.0, "float32": 4.0}  # per parameter, measured
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


def layer_stored_bytes(method: str, counts: ParamCounts, num_layers: int) -> float:
    """One decoder layer's weights as stored: what ZeRO-3/FSDP gathers (NF4 for QLoRA, whose
    quantised weights are sharded and gathered as stored; bf16 otherwise)."""
    if method == "qlora":
        linear = counts.decoder_linear / num_layers
        return linear * NF4_DQ_BYTES + (counts.layer - linear) * BF16_BYTES
    return counts.layer * RECIPES[method].weights


def base_weight_bytes(method: str, counts: ParamCounts) -> float:
    """Weights of the base model; QLoRA keeps embeddings, head, norms and biases in 16-bit."""
    if method == "qlora":
        return counts.decoder_linear * NF4_DQ_BYTES + counts.other_16bit * BF16_BYTES
    return counts.total * RECIPES[method].weights


PHASES = ("backward", "optimizer step")
# The allocated parts of a moment of the step, in the order they are summed.
ALLOCATED_PARTS = (
    "weights", "gradients", "master", "optimizer", "adapters", "activations", "logits", "buffers",
    "reference", "critic", "rollout_weights", "kv_cache",
)  # fmt: skip


@dataclass(frozen=True)  # no slots: ``phase_totals`` remembers its totals in the instance
class MemoryModel:
    """The per-GPU memory as sharded (B, divided by GPUs) and unsharded (A) parts.

    The peak is the larger of two moments of a step (the allocator timelines of the measured
    records, docs/data/measured/): **backward** — persistent state, everything the forward saved,
    and the larger of the loss path's transient and one recomputed layer at its peak (the loss
    path is done, and its saved tensors freed, before the first layer is recomputed); parameter
    gradients are not there yet (zero_grad sets them to None) unless gradients accumulate over
    micro-batches (or, recomputing, those made before layer 0 is recomputed:
    ``gradients_at_recompute``) — and the **optimizer step** — persistent state, every gradient
    and the optimizer's temporaries (no activations).
    """

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
    # Allocated ÷ reserved at the peak (PyTorch's caching allocator keeps freed blocks and
    # fragments: the reserve is allocated × (1/efficiency − 1)). Default 0.85, article 001's
    # 'perhaps 85 percent of nameplate'; the PEFT runs (docs/accuracy.md) show 0.8–0.9.
    allocator_efficiency: float = 0.85
    optimizer_temporaries: float = 0.0  # AdamW foreach: a copy of the parameters it steps
    accumulating: bool = False  # gradient accumulation: gradients live through the backward
    # Checkpointing: the loss path's saved tensors, freed before the first layer is recomputed
    # (recompute.py): the recomputed layer's moment holds saved − these + working.
    activations_loss_freed: float = 0.0
    # Full fine-tuning with checkpointing, gradients not accumulating: the gradients already
    # produced when the first layer is recomputed — every one but layer 0's and the untied input
    # embedding's (the backward runs from the head down; backward_trace.py without --warm).
    gradients_at_recompute: float = 0.0

    @property
    def recompute_moment(self) -> float:
        """Bytes beyond the saved activations while a layer is recomputed (0 without
        checkpointing): its working set, less what the loss path freed before it."""
        if not self.activations_working:
            return 0.0
        return self.activations_working - self.activations_loss_freed

    def phase_parts(self, n: int, phase: str) -> dict[str, float]:
        """Per-GPU bytes of each part on n data-parallel GPUs at one moment of the step."""
        values = self._allocated(n, phase)
        parts = dict(zip(ALLOCATED_PARTS, values, strict=True))
        parts["reserve"] = sum(values) * (1.0 / self.allocator_efficiency - 1.0)
        parts["overhead"] = self.overhead
        return parts

    def _allocated(self, n: int, phase: str) -> tuple[float, ...]:
        """The allocated parts of ``phase_parts`` (``ALLOCATED_PARTS`` order), without a dict."""
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
        step = phase == "optimizer step"
        grads = 1.0 if step or self.accumulating else 0.0
        early = 0.0 if step or self.accumulating else self.gradients_at_recompute / g_div
        if step:
            activations = logits = 0.0
        elif self.recompute_moment and self.recompute_moment + early > self.logits:
            # checkpointing: the first layer recomputed, beside the gradients made before it
            activations, logits = self.activations_saved + self.recompute_moment, 0.0
        else:
            activations, logits, early = self.activations_saved, self.logits, 0.0
        kv = self.rollout_kv
        if self.gen_seqs:
            gathered = self.gen_gather * (1 - 1 / n) if multi and s == "zero3" else 0.0
            peak = gathered + min(self.gen_seqs / n, self.gen_max_seqs) * self.gen_kv_per_seq
            train = self.activations_saved + max(self.recompute_moment, self.logits)
            kv += max(0.0, peak - train)
        return (
            self.weights / w_div,  # weights
            grads * self.gradients / g_div + early,  # gradients
            opt_on_gpu * self.master / o_div,  # master
            opt_on_gpu * self.optimizer / o_div,  # optimizer
            self.adapters_weights / w_div  # adapters
            + grads * self.adapters_grads / g_div
            + opt_on_gpu * self.adapters_moments / o_div,
            activations,  # activations
            logits,  # logits
            (self.qlora_buffer if not step else 0.0)  # buffers
            + (self.layer_gather if multi and s == "zero3" and not step else 0.0)
            + (self.grad_buckets if multi else 0.0)
            + (opt_on_gpu * self.optimizer_temporaries / o_div if step else 0.0),
            self.reference / w_div,  # reference
            self.reward / w_div + self.critic_ratio * state,  # critic
            self.rollout_weights,  # rollout_weights
            kv,  # kv_cache
        )

    def phase_totals(self, n: int) -> tuple[float, ...]:
        """The device total of each moment of the step (``PHASES`` order) on each of n GPUs.

        Exactly ``sum(phase_parts(n, phase).values())`` (the same values summed in the same
        order), remembered per n for this model: finding the GPU count, the peak moment and the
        split ask for the same n several times (issue 17: one dict of parts per step, not 22)."""
        cache: dict[int, tuple[float, ...]] | None = self.__dict__.get("_phase_totals")
        if cache is None:
            cache = self.__dict__["_phase_totals"] = {}
        totals = cache.get(n)
        if totals is None:
            reserve = 1.0 / self.allocator_efficiency - 1.0
            totals = tuple(
                sum((*values, sum(values) * reserve, self.overhead))
                for values in (self._allocated(n, ph) for ph in PHASES)
            )
            cache[n] = totals
        return totals

    def peak_phase(self, n: int) -> str:
        """The moment of the step with the most memory on each of n GPUs."""
        totals = self.phase_totals(n)
        return PHASES[totals.index(max(totals))]

    def split(self, n: int) -> dict[str, float]:
        """Per-GPU bytes of each part at the peak, on n data-parallel GPUs."""
        return self.phase_parts(n, self.peak_phase(n))

    def total(self, n: int) -> float:
        """Device total on each of n GPUs: allocated + allocator reserve + CUDA context
        (remembered per n: finding each GPU's count asks for the same n again and again)."""
        cache: dict[int, float] | None = self.__dict__.get("_totals")
        if cache is None:
            cache = self.__dict__["_totals"] = {}
        total = cache.get(n)
        if total is None:
            total = cache[n] = max(self.phase_totals(n))
        return total

    def offloaded_bytes(self) -> float:
        if not self.offload:
            return 0.0
        return self.master + self.optimizer + self.adapters_moments

    def gpus_needed(self, usable_bytes: float, max_gpus: int = 1_000_000) -> int | None:
        """Fewest GPUs whose per-GPU device total fits in usable_bytes; None if no count does.

        Article 001: 'the minimum GPU count is the ceiling of total bytes over usable HBM', made
        exact per part: each moment of the step is A + B/n, so n = ceil(B / (usable − A)), and
        the job needs the largest n of the two moments.
        """
        if self.total(1) <= usable_bytes:
            return 1
        n = 2
        terms = None
        for i, t2 in enumerate(self.phase_totals(2)):
            if t2 <= usable_bytes:
                continue
            if terms is None:
                terms = self._sharded_terms()
            b_sharded, a_fixed = terms[i]
            room = usable_bytes - a_fixed
            if b_sharded <= 0 or room <= 0:  # not A + B/n (a saturated generation batch)
                continue  # the search below finds it, or that no count fits
            n = max(n, math.ceil(b_sharded / room - 1e-9))
        return self._fewest_fitting(usable_bytes, n, max_gpus)

    def _sharded_terms(self) -> tuple[tuple[float, float], ...]:
        """Per moment of the step, B and A of its A + B/n: for n >= 2 every part is A + B/n, and
        two evaluations give A and B exactly. Remembered for this model ("Which GPU" finds the
        GPU count of thousands of GPU memories with one model)."""
        terms: tuple[tuple[float, float], ...] | None = self.__dict__.get("_sharded")
        if terms is None:
            out = []
            for t2, t4 in zip(self.phase_totals(2), self.phase_totals(4), strict=True):
                b_sharded = 4 * (t2 - t4)
                out.append((b_sharded, t2 - b_sharded / 2))
            terms = self.__dict__["_sharded"] = tuple(out)
        return terms

    def _fewest_fitting(self, usable_bytes: float, guess: int, max_gpus: int) -> int | None:
        """The fewest n in [2, max_gpus] with total(n) <= usable_bytes, starting from a guess.

        For n >= 2, total(n) never grows with n: every part is fixed or divided by n, and the
        generation peak's gathered weights W·(1 − 1/n) sit beside the weights' own shard W/n
        (the peak is max(W/n, W + kv(n) − training), kv(n) non-increasing). So a bisection is
        exact; a scan one GPU at a time took a million steps (over a minute) when no count
        fits (issue 12: never a hang). The guess is exact for A + B/n: two evaluations confirm
        it. Where the generation batch saturates (min(sequences ÷ n, the largest batch)),
        total(n) is flat at first and the guess may be off either way: the bisection corrects it.
        """
        total = self.total
        guess = max(2, min(guess, max_gpus))
        if total(guess) <= usable_bytes:
            if guess == 2 or not total(guess - 1) <= usable_bytes:
                return guess
            lo, hi = 1, guess - 1  # total(lo) > usable (n = 1 was checked), total(hi) fits
        else:
            if guess >= max_gpus or not total(max_gpus) <= usable_bytes:
                return None
            lo, hi = guess, max_gpus
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if total(mid) <= usable_bytes:
                hi = mid
            else:
                lo = mid
        return hi
