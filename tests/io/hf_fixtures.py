"""Published config.json values and a fake Hugging Face cache layout, shared by the io tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

HUGE = 1 << 36  # 64 GiB of (sparse) weight data: reading it would take minutes

# The parameter-relevant keys of each model's published config.json (plus some that are not, to
# show they are ignored). Keys absent here are absent from the real file too (family defaults).
LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}  # fmt: skip
LLAMA_32_1B = {
    **LLAMA_31_8B, "head_dim": 64, "hidden_size": 2048, "intermediate_size": 8192,
    "num_hidden_layers": 16, "tie_word_embeddings": True,
}  # fmt: skip
LLAMA_2_7B = {  # no num_key_value_heads, head_dim or tie key in the original file
    "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 11008,
    "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "rms_norm_eps": 1e-05, "vocab_size": 32000,
}  # fmt: skip
MISTRAL_7B_V03 = {
    "architectures": ["MistralForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "rope_theta": 1000000.0,
    "sliding_window": None, "tie_word_embeddings": False, "vocab_size": 32768,
}  # fmt: skip
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32,
    "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "num_local_experts": 8, "output_router_logits": False, "rope_theta": 1e6,
    "router_aux_loss_coef": 0.02, "tie_word_embeddings": False, "vocab_size": 32000,
}  # fmt: skip
MIXTRAL_8X22B = {
    **MIXTRAL_8X7B, "hidden_size": 6144, "intermediate_size": 16384, "num_attention_heads": 48,
    "num_hidden_layers": 56, "max_position_embeddings": 65536,
}  # fmt: skip
QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "intermediate_size": 18944,
    "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2",
    "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "use_sliding_window": False, "vocab_size": 152064,
}  # fmt: skip
QWEN25_05B = {
    **QWEN25_7B, "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 32768,
    "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
    "tie_word_embeddings": True, "vocab_size": 151936,
}  # fmt: skip
QWEN15_MOE_A27B = {  # Qwen/Qwen1.5-MoE-A2.7B: 14,315,784,192 (Hub safetensors.total; KerasHub)
    "architectures": ["Qwen2MoeForCausalLM"], "decoder_sparse_step": 1, "hidden_size": 2048,
    "intermediate_size": 5632, "max_position_embeddings": 8192, "max_window_layers": 21,
    "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "norm_topk_prob": False,
    "num_attention_heads": 16, "num_experts": 60, "num_experts_per_tok": 4,
    "num_hidden_layers": 24, "num_key_value_heads": 16, "shared_expert_intermediate_size": 5632,
    "tie_word_embeddings": False, "vocab_size": 151936,
}  # fmt: skip
QWEN3_8B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "head_dim": 128,
    "hidden_size": 4096, "intermediate_size": 12288, "max_position_embeddings": 40960,
    "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32,
    "num_hidden_layers": 36, "num_key_value_heads": 8, "rope_theta": 1000000,
    "tie_word_embeddings": False, "vocab_size": 151936,
}  # fmt: skip
QWEN3_06B = {
    **QWEN3_8B, "hidden_size": 1024, "intermediate_size": 3072, "num_attention_heads": 16,
    "num_hidden_layers": 28, "tie_word_embeddings": True,
}  # fmt: skip
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "decoder_sparse_step": 1,
    "head_dim": 128, "hidden_size": 2048, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
    "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
    "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8,
    "num_hidden_layers": 48, "num_key_value_heads": 4, "tie_word_embeddings": False,
    "vocab_size": 151936,
}  # fmt: skip
GEMMA_7B = {  # google/gemma-7b: 8,537,680,896 (Hub safetensors.total)
    "architectures": ["GemmaForCausalLM"], "head_dim": 256, "hidden_act": "gelu",
    "hidden_size": 3072, "intermediate_size": 24576, "max_position_embeddings": 8192,
    "model_type": "gemma", "num_attention_heads": 16, "num_hidden_layers": 28,
    "num_key_value_heads": 16, "vocab_size": 256000,
}  # fmt: skip
GEMMA2_9B = {
    "architectures": ["Gemma2ForCausalLM"], "attn_logit_softcapping": 50.0,
    "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 3584, "intermediate_size": 14336, "max_position_embeddings": 8192,
    "model_type": "gemma2", "num_attention_heads": 16, "num_hidden_layers": 42,
    "num_key_value_heads": 8, "query_pre_attn_scalar": 256, "sliding_window": 4096,
    "vocab_size": 256000,
}  # fmt: skip
PHI3_MINI_4K = {
    "architectures": ["Phi3ForCausalLM"], "hidden_size": 3072, "intermediate_size": 8192,
    "max_position_embeddings": 4096, "model_type": "phi3", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
    "sliding_window": 2047, "tie_word_embeddings": False, "vocab_size": 32064,
}  # fmt: skip
PHI4 = {
    **PHI3_MINI_4K, "hidden_size": 5120, "intermediate_size": 17920,
    "max_position_embeddings": 16384, "num_attention_heads": 40, "num_hidden_layers": 40,
    "num_key_value_heads": 10, "original_max_position_embeddings": 16384, "vocab_size": 100352,
}  # fmt: skip
OLMOE_0924 = {
    "architectures": ["OlmoeForCausalLM"], "attention_bias": False, "clip_qkv": None,
    "hidden_size": 2048, "intermediate_size": 1024, "max_position_embeddings": 4096,
    "model_type": "olmoe", "norm_topk_prob": False, "num_attention_heads": 16,
    "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 16,
    "num_key_value_heads": 16, "tie_word_embeddings": False, "vocab_size": 50304,
}  # fmt: skip
GPT2 = {  # openai-community/gpt2: n_inner null, no tie key (GPT-2 ties by default)
    "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
    "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_inner": None, "n_layer": 12,
    "n_positions": 1024, "vocab_size": 50257,
}  # fmt: skip


def make_repo(root: Path, repo_id: str, snapshots: dict[str, dict | None], main: str | None,
              weights: bool = True) -> Path:  # fmt: skip
    """A cache entry laid out as huggingface_hub does: blobs/, symlinked from snapshots/."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "blobs").mkdir(parents=True)
    for i, (commit, config) in enumerate(snapshots.items()):
        snap = repo / "snapshots" / commit
        snap.mkdir(parents=True)
        if config is not None:
            blob = repo / "blobs" / f"cfg{i}"
            blob.write_text(json.dumps(config))
            (snap / "config.json").symlink_to(os.path.relpath(blob, snap))
        if weights:
            blob = repo / "blobs" / f"w{i}"
            with blob.open("wb") as f:
                f.write(b"\xff" * 8)  # not even a valid header
                f.truncate(HUGE)
            (snap / "model.safetensors").symlink_to(os.path.relpath(blob, snap))
        stamp = 1_700_000_000 + 1000 * i  # later snapshots are newer
        os.utime(snap, (stamp, stamp))
    if main is not None:
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(main)
    return repo
