"""Shapes for the hand calculations (tests/core/test_hand_*.py), written out from config.json.

Each shape is the handful of numbers a hand calculation needs, copied from the model's
config.json (not read from the presets the estimate uses), so a test's formula and its numbers
are both on the page: dense multi-head attention (Llama-2-7B), grouped-query attention
(Llama-3.1-8B) and a mixture of experts (Mixtral-8x7B: GQA, 2 of 8 experts per token).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    preset: str
    L: int  # num_hidden_layers
    h: int  # hidden_size
    heads: int
    kv: int  # num_key_value_heads
    i: int  # intermediate_size (dense MLP, or one expert's)
    V: int  # vocab_size
    experts: int = 0
    top_k: int = 0

    @property
    def hd(self) -> int:
        return self.h // self.heads

    @property
    def q(self) -> int:  # heads × head_dim
        return self.heads * self.hd

    @property
    def kvd(self) -> int:  # kv heads × head_dim
        return self.kv * self.hd

    # Llama-family layer (LlamaDecoderLayer / MixtralDecoderLayer): q, k, v, o without biases;
    # a gated MLP of three h×i matrices per expert; a router h×E; two RMSNorm vectors.
    @property
    def attn(self) -> int:
        return self.h * self.q + 2 * self.h * self.kvd + self.q * self.h

    @property
    def mlp(self) -> int:  # every expert
        copies = self.experts or 1
        return copies * 3 * self.h * self.i + (self.h * self.experts if self.experts else 0)

    @property
    def mlp_active(self) -> int:  # the experts a token uses (dense: the MLP)
        copies = self.top_k or 1
        return copies * 3 * self.h * self.i + (self.h * self.experts if self.experts else 0)

    @property
    def total(self) -> int:  # untied embedding and head, final norm
        return self.L * (self.attn + self.mlp + 2 * self.h) + 2 * self.V * self.h + self.h

    @property
    def active(self) -> int:
        return self.total - self.L * (self.mlp - self.mlp_active)

    @property
    def decoder_linear(self) -> int:
        return self.L * (self.attn + self.mlp)

    @property
    def matmul(self) -> int:  # active decoder linears + the output head
        return self.L * (self.attn + self.mlp_active) + self.V * self.h


LLAMA2_7B = Shape("llama-2-7b", L=32, h=4096, heads=32, kv=32, i=11008, V=32000)
LLAMA31_8B = Shape("llama-3.1-8b", L=32, h=4096, heads=32, kv=8, i=14336, V=128256)
MIXTRAL = Shape("mixtral-8x7b", L=32, h=4096, heads=32, kv=8, i=14336, V=32000, experts=8, top_k=2)
DENSE = (LLAMA2_7B, LLAMA31_8B)
SHAPES = (LLAMA2_7B, LLAMA31_8B, MIXTRAL)
