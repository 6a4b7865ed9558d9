"""The architecture families measured: real config.json numbers, and the shrunk CPU variants.

Full-size configs are built on the ``meta`` device (parameter and LoRA counts, FLOPs: shapes only,
no memory). Saved-tensor bytes need real tensors, so each family also has a shrunk config with the
same structure (same module types, norms, biases, GQA ratio, explicit head_dim where the family has
one, experts and top-k), only fewer layers and a smaller width and vocabulary. GQA keeps at least
two KV heads: with one, eager attention's repeated K/V stay views (stride 0) and hide the copy
that real GQA models keep.

Numbers are those of the public config.json of the named checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Family:
    name: str
    checkpoint: str  # the public checkpoint whose config.json the numbers come from
    config: dict[str, Any]  # full size, config.json keys
    shrunk: dict[str, Any]  # overrides for the CPU variant
    # LoRA target sets as PEFT names them for this family: label -> target_modules
    lora_sets: dict[str, list[str]]
    # MoE experts stored as 3D parameters (transformers >= 5): label -> target_parameters
    lora_param_sets: dict[str, list[str]] = field(default_factory=dict)

    def full_config(self) -> dict[str, Any]:
        return dict(self.config)

    def shrunk_config(self) -> dict[str, Any]:
        return {**self.config, **self.shrunk}


LLAMA_STYLE_SETS = {
    "attn_qv": ["q_proj", "v_proj"],
    "attn": ["q_proj", "k_proj", "v_proj", "o_proj"],
    "mlp": ["gate_proj", "up_proj", "down_proj"],
    "all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
}

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "llama",
            "meta-llama/Llama-3.1-8B",
            dict(
                model_type="llama",
                vocab_size=128256,
                hidden_size=4096,
                intermediate_size=14336,
                num_hidden_layers=32,
                num_attention_heads=32,
                num_key_value_heads=8,
                max_position_embeddings=131072,
                rms_norm_eps=1e-5,
                rope_theta=500000.0,
                tie_word_embeddings=False,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=896,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
            ),
            LLAMA_STYLE_SETS,
        ),
        Family(
            "mistral",
            "mistralai/Mistral-7B-v0.3",
            dict(
                model_type="mistral",
                vocab_size=32768,
                hidden_size=4096,
                intermediate_size=14336,
                num_hidden_layers=32,
                num_attention_heads=32,
                num_key_value_heads=8,
                max_position_embeddings=32768,
                rms_norm_eps=1e-5,
                rope_theta=1000000.0,
                sliding_window=None,
                tie_word_embeddings=False,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=896,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
            ),
            LLAMA_STYLE_SETS,
        ),
        Family(
            "qwen2",
            "Qwen/Qwen2.5-7B",
            dict(
                model_type="qwen2",
                vocab_size=152064,
                hidden_size=3584,
                intermediate_size=18944,
                num_hidden_layers=28,
                num_attention_heads=28,
                num_key_value_heads=4,
                max_position_embeddings=131072,
                rms_norm_eps=1e-6,
                rope_theta=1000000.0,
                tie_word_embeddings=False,
            ),
            dict(
                vocab_size=512,
                hidden_size=224,
                intermediate_size=1184,
                num_hidden_layers=2,
                num_attention_heads=14,
                num_key_value_heads=2,
            ),
            LLAMA_STYLE_SETS,
        ),
        Family(
            "qwen3",
            "Qwen/Qwen3-8B",
            dict(
                model_type="qwen3",
                vocab_size=151936,
                hidden_size=4096,
                intermediate_size=12288,
                num_hidden_layers=36,
                num_attention_heads=32,
                num_key_value_heads=8,
                head_dim=128,
                max_position_embeddings=40960,
                rms_norm_eps=1e-6,
                rope_theta=1000000.0,
                tie_word_embeddings=False,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=768,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
                head_dim=64,
            ),
            LLAMA_STYLE_SETS,
        ),
        Family(
            "gemma2",
            "google/gemma-2-9b",
            dict(
                model_type="gemma2",
                vocab_size=256000,
                hidden_size=3584,
                intermediate_size=14336,
                num_hidden_layers=42,
                num_attention_heads=16,
                num_key_value_heads=8,
                head_dim=256,
                query_pre_attn_scalar=256,
                sliding_window=4096,
                attn_logit_softcapping=50.0,
                final_logit_softcapping=30.0,
                hidden_activation="gelu_pytorch_tanh",
                max_position_embeddings=8192,
                rms_norm_eps=1e-6,
                tie_word_embeddings=True,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=1024,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                head_dim=96,
                query_pre_attn_scalar=96,
                sliding_window=4096,
            ),
            LLAMA_STYLE_SETS,
        ),
        Family(
            "phi3",
            "microsoft/Phi-3-mini-4k-instruct",
            dict(
                model_type="phi3",
                vocab_size=32064,
                hidden_size=3072,
                intermediate_size=8192,
                num_hidden_layers=32,
                num_attention_heads=32,
                num_key_value_heads=32,
                max_position_embeddings=4096,
                rms_norm_eps=1e-5,
                rope_theta=10000.0,
                tie_word_embeddings=False,
                pad_token_id=32000,
                bos_token_id=1,
                eos_token_id=32000,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=704,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=4,
                pad_token_id=0,
                eos_token_id=0,
            ),
            {
                "attn": ["qkv_proj", "o_proj"],
                "mlp": ["gate_up_proj", "down_proj"],
                "all": ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"],
            },
        ),
        Family(
            "gpt2",
            "openai-community/gpt2",
            dict(
                model_type="gpt2",
                vocab_size=50257,
                n_embd=768,
                n_layer=12,
                n_head=12,
                n_positions=1024,
                n_inner=None,
                activation_function="gelu_new",
                # 0.1 in the checkpoint; measured at 0: a dropout mask is device-specific (bool
                # on CUDA, the input dtype on CPU) and modern fine-tuning recipes switch it off.
                resid_pdrop=0.0,
                embd_pdrop=0.0,
                attn_pdrop=0.0,
                layer_norm_epsilon=1e-5,
                tie_word_embeddings=True,
            ),
            dict(vocab_size=512, n_embd=256, n_layer=2, n_head=4, n_positions=1024),
            {
                "attn": ["c_attn"],
                "attn_proj": ["c_attn", "c_proj"],
                "all": ["c_attn", "c_proj", "c_fc"],
            },
        ),
        Family(
            "mixtral",
            "mistralai/Mixtral-8x7B-v0.1",
            dict(
                model_type="mixtral",
                vocab_size=32000,
                hidden_size=4096,
                intermediate_size=14336,
                num_hidden_layers=32,
                num_attention_heads=32,
                num_key_value_heads=8,
                num_local_experts=8,
                num_experts_per_tok=2,
                max_position_embeddings=32768,
                rms_norm_eps=1e-5,
                rope_theta=1000000.0,
                router_aux_loss_coef=0.02,
                output_router_logits=False,
                tie_word_embeddings=False,
            ),
            dict(
                vocab_size=512,
                hidden_size=256,
                intermediate_size=512,
                num_hidden_layers=2,
                num_attention_heads=8,
                num_key_value_heads=2,
                num_local_experts=4,
            ),
            {
                "attn_qv": ["q_proj", "v_proj"],
                "attn": ["q_proj", "k_proj", "v_proj", "o_proj"],
            },
            {
                "experts": ["mlp.experts.gate_up_proj", "mlp.experts.down_proj"],
            },
        ),
    ]
}
