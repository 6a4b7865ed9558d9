"""Import a model from a Hugging Face ``config.json`` (offline: a local file, never the network).

Each supported ``model_type`` maps its own keys onto :class:`ModelSpec`, with the defaults that
``transformers`` applies when a key is absent (they differ by family: Gemma and GPT-2 tie the output
head to the embedding, Qwen2 always has q/k/v biases, Qwen3 normalises q and k per head, OLMoE over
their full width, Gemma 2 has four norms per layer). The shape fields themselves (layers, width,
heads, MLP width, vocabulary, experts) are required: a config without one is an error that names
it, never a silent default.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.architecture import ModelSpec
from ..core.errors import first_error
from .loader import HF_CONFIG, FileReadError, read_bytes, shown
from .names import plain

CONFIG_NAME = "config.json"
MAX_CONFIG_BYTES = HF_CONFIG.max_bytes  # a config.json is a few kB; refuse anything absurd


class ModelConfigError(Exception):
    """A model that cannot be turned into a ModelSpec; the message says why, in one line.

    ``partial`` holds the ModelSpec fields that were understood (for pre-filling a custom model).
    """

    def __init__(self, message: str, partial: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.partial: dict[str, Any] = dict(partial or {})


# Generic key spellings, tried in order (GPT-2 uses the n_* names).
_GENERIC_KEYS: dict[str, tuple[str, ...]] = {
    "num_layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_attention_heads": ("num_attention_heads", "n_head"),
    "num_kv_heads": ("num_key_value_heads",),
    "head_dim": ("head_dim",),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_dim"),
    "vocab_size": ("vocab_size",),
    "max_context": ("max_position_embeddings", "n_positions", "max_sequence_length"),
}

# Context length transformers assumes when the key is absent (informational only).
_DEFAULT_CONTEXT = {
    "llama": 2048,
    "mistral": 131072,
    "mixtral": 131072,
    "qwen2": 32768,
    "qwen2_moe": 32768,
    "qwen3": 32768,
    "qwen3_moe": 32768,
    "gemma": 8192,
    "gemma2": 8192,
    "phi3": 4096,
    "olmoe": 4096,
    "gpt2": 1024,
}


class _Reader:
    """Reads typed values out of one config dict, recording what was understood."""

    def __init__(self, config: dict[str, Any], model_type: str) -> None:
        self.config = config
        self.model_type = model_type
        self.spec: dict[str, Any] = {}
        self.missing: list[str] = []

    def _raw(self, keys: tuple[str, ...]) -> tuple[str, Any]:
        for k in keys:
            if k in self.config and self.config[k] is not None:
                return k, self.config[k]
        return keys[0], None

    def integer(
        self,
        field: str,
        keys: tuple[str, ...] | None = None,
        *,
        default: int | None = None,
        required: bool = True,
    ) -> int | None:
        key, value = self._raw(keys or _GENERIC_KEYS[field])
        if value is None:
            if default is not None:
                self.spec[field] = default
                return default
            if required:
                names = keys or _GENERIC_KEYS[field]
                if self.model_type == "gpt2":  # report GPT-2's own spelling (n_layer, n_embd)
                    key = next((k for k in names if k.startswith("n_")), key)
                self.missing.append(key)
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise ModelConfigError(
                    f"config.json field '{key}' should be a whole number, not {value!r}.", self.spec
                )
        self.spec[field] = value
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.config.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ModelConfigError(
                f"config.json field '{key}' should be true or false, not {value!r}.", self.spec
            )
        return value

    def set(self, **fields: Any) -> None:
        self.spec.update(fields)


def _shape(r: _Reader, *, mlp: bool = True) -> None:
    """The fields every family shares."""
    r.integer("num_layers")
    r.integer("hidden_size")
    heads = r.integer("num_attention_heads")
    if heads is not None:
        r.integer("num_kv_heads", default=heads)  # absent (or null): multi-head attention
    r.integer("vocab_size")
    if mlp:
        r.integer("intermediate_size")
    r.integer("max_context", default=_DEFAULT_CONTEXT.get(r.model_type, 4096))
    head_dim = r._raw(("head_dim",))[1]
    if head_dim is not None:
        r.integer("head_dim")


def _tie(r: _Reader, default: bool) -> None:
    r.set(tied_embeddings=r.flag("tie_word_embeddings", default))


def _dense_layers_check(r: _Reader) -> None:
    """Qwen MoE: layers listed in mlp_only_layers, or off the sparse step, use a dense MLP."""
    only = r.config.get("mlp_only_layers") or []
    step = r.config.get("decoder_sparse_step", 1) or 1
    if only or step != 1:
        why = f"mlp_only_layers={only}" if only else f"decoder_sparse_step={step}"
        raise ModelConfigError(
            f"This mixture-of-experts config makes some layers dense ({why}); ftcost describes "
            "every layer alike, so enter it as a custom model or use a bare parameter count.",
            r.spec,
        )


def _llama(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    r.set(attention_qkv_bias=r.flag("attention_bias", False))
    r.set(attention_out_bias=r.spec["attention_qkv_bias"])
    r.set(mlp_bias=r.flag("mlp_bias", False))


def _mistral(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)


def _mixtral(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    r.integer("num_experts", ("num_local_experts",))
    r.integer("experts_per_token", ("num_experts_per_tok",))
    if "intermediate_size" in r.spec:
        r.set(expert_intermediate_size=r.spec["intermediate_size"])


def _qwen2(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    r.set(attention_qkv_bias=True)  # Qwen2Attention: q, k, v with bias, o without


def _qwen2_moe(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    r.set(attention_qkv_bias=r.flag("qkv_bias", True))
    r.integer("num_experts", ("num_experts",))
    r.integer("experts_per_token", ("num_experts_per_tok",))
    r.integer("expert_intermediate_size", ("moe_intermediate_size",))
    shared = r.integer("shared_expert_intermediate_size", ("shared_expert_intermediate_size",))
    if shared == 0:
        r.set(shared_expert_intermediate_size=0)
    elif shared:
        r.set(num_shared_experts=1, shared_expert_gate=True)
    _dense_layers_check(r)


def _qwen3(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    if "head_dim" not in r.spec:
        r.set(head_dim=128)  # Qwen3Config's default
    r.set(attention_qkv_bias=r.flag("attention_bias", False))
    r.set(attention_out_bias=r.spec["attention_qkv_bias"])
    r.set(qk_norm="per_head")


def _qwen3_moe(r: _Reader) -> None:
    _qwen3(r)
    r.integer("num_experts", ("num_experts",))
    r.integer("experts_per_token", ("num_experts_per_tok",))
    r.integer("expert_intermediate_size", ("moe_intermediate_size",))
    _dense_layers_check(r)


def _gemma(r: _Reader, norms: int) -> None:
    _shape(r)
    if "head_dim" not in r.spec:
        r.set(head_dim=256)  # GemmaConfig / Gemma2Config default
    _tie(r, True)
    r.set(attention_qkv_bias=r.flag("attention_bias", False))
    r.set(attention_out_bias=r.spec["attention_qkv_bias"])
    r.set(norms_per_layer=norms)


def _phi3(r: _Reader) -> None:
    _shape(r)  # fused qkv_proj and gate_up_proj: the same weights as separate matrices
    _tie(r, False)
    r.set(fused_qkv=True)


def _olmoe(r: _Reader) -> None:
    _shape(r)
    _tie(r, False)
    r.set(attention_qkv_bias=r.flag("attention_bias", False))
    r.set(attention_out_bias=r.spec["attention_qkv_bias"])
    r.set(qk_norm="full")
    r.integer("num_experts", ("num_experts",))
    r.integer("experts_per_token", ("num_experts_per_tok",))
    if "intermediate_size" in r.spec:  # OLMoE's intermediate_size is the expert width
        r.set(expert_intermediate_size=r.spec["intermediate_size"])


def _gpt2(r: _Reader) -> None:
    _shape(r, mlp=False)
    hidden = r.spec.get("hidden_size")
    # n_inner null (the usual case) means 4 x n_embd
    r.integer("intermediate_size", default=4 * hidden if hidden else None, required=False)
    _tie(r, True)
    r.set(
        mlp_kind="plain",
        attention_qkv_bias=True,
        attention_out_bias=True,
        mlp_bias=True,
        norm_kind="layernorm",
        position_embeddings=r.spec.get("max_context", 1024),
        fused_qkv=True,  # c_attn
    )


FAMILIES: dict[str, Callable[[_Reader], None]] = {
    "llama": _llama,
    "mistral": _mistral,
    "mixtral": _mixtral,
    "qwen2": _qwen2,
    "qwen2_moe": _qwen2_moe,
    "qwen3": _qwen3,
    "qwen3_moe": _qwen3_moe,
    "gemma": lambda r: _gemma(r, 2),
    "gemma2": lambda r: _gemma(r, 4),
    "phi3": _phi3,
    "olmoe": _olmoe,
    "gpt2": _gpt2,
}
SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(FAMILIES)


def _partial_generic(config: dict[str, Any]) -> dict[str, Any]:
    """Best-effort shape fields of an unsupported config (for pre-filling a custom model)."""
    out: dict[str, Any] = {}
    for field, keys in _GENERIC_KEYS.items():
        for k in keys:
            v = config.get(k)
            if isinstance(v, int) and not isinstance(v, bool):
                out[field] = v
                break
    return out


def _repo_like(value: Any) -> str:
    """_name_or_path when it is a hub id ("org/name"), not a local path."""
    if (
        isinstance(value, str)
        and value
        and not value.startswith(("/", ".", "~"))
        and "\\" not in value
        and ":" not in value
        and value.count("/") <= 1
    ):
        return value
    return ""


def spec_from_hf_config(config: dict[str, Any], name: str = "") -> ModelSpec:
    """A ModelSpec from a parsed config.json; ModelConfigError says what is missing or unknown."""
    if not isinstance(config, dict):
        raise ModelConfigError("config.json does not hold a JSON object.")
    text = config.get("text_config")
    if isinstance(text, dict):  # multimodal wrappers nest the language model
        keys = ("model_type", "tie_word_embeddings")
        outer: dict[str, Any] = {k: config[k] for k in keys if k in config}
        config = {**outer, **{k: v for k, v in text.items() if v is not None}}
    model_type = config.get("model_type")
    label = name or _repo_like(config.get("_name_or_path")) or f"{model_type} (config.json)"
    if not isinstance(model_type, str) or not model_type:
        raise ModelConfigError(
            "config.json has no 'model_type', so the architecture family is unknown.",
            {"name": label, **_partial_generic(config)},
        )
    family = FAMILIES.get(model_type)
    if family is None:
        raise ModelConfigError(
            f"model_type '{model_type}' is not supported (supported: "
            f"{', '.join(SUPPORTED_MODEL_TYPES)}); enter it as a custom model.",
            {"name": label, **_partial_generic(config)},
        )
    r = _Reader(config, model_type)
    r.set(name=label)
    family(r)
    if r.missing:
        fields = ", ".join(f"'{k}'" for k in dict.fromkeys(r.missing))
        raise ModelConfigError(
            f"config.json ({model_type}) is missing {fields}, needed for the parameter count.",
            r.spec,
        )
    try:
        return ModelSpec(**r.spec)
    except ValidationError as exc:
        raise ModelConfigError(
            f"config.json ({model_type}) describes an invalid shape: {first_error(exc)}.", r.spec
        ) from None


def config_path(path: str | os.PathLike[str]) -> Path:
    """The config.json a path names: the file itself, or the one inside a folder."""
    p = Path(path).expanduser()
    if os.path.isdir(p):  # os.path never raises (a 5,000-character name is simply not there)
        inner = p / CONFIG_NAME
        if not os.path.lexists(inner):
            raise ModelConfigError(f"{shown(p)} has no {CONFIG_NAME}.")
        return inner  # read_hf_config refuses it if it is not a regular file
    if not os.path.lexists(p):
        raise ModelConfigError(f"{shown(p)} does not exist.")
    return p


def read_hf_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed config.json at a path (file or folder); ModelConfigError if unreadable."""
    p = config_path(path)
    try:
        raw = read_bytes(p, HF_CONFIG)
    except FileReadError as exc:
        raise ModelConfigError(str(exc)) from None
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ModelConfigError(
            f"{shown(p)} is not valid JSON (corrupt or truncated): {exc}"
        ) from None
    if not isinstance(doc, dict):
        raise ModelConfigError(f"{shown(p)} does not hold a JSON object.")
    return doc


def default_name(path: Path) -> str:
    """A display name for a model folder: its own name (or, for a hub snapshot, the repo's)."""
    folder = path.parent if path.name == CONFIG_NAME else path
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return plain(folder.parent.parent.name.removeprefix("models--").replace("--", "/"))
    return plain(folder.name)  # a folder name is any bytes: not always text a model can hold


def load_hf_config(path: str | os.PathLike[str], name: str = "") -> ModelSpec:
    """A ModelSpec from a local config.json, or a folder that holds one."""
    p = config_path(path)
    config = read_hf_config(p)
    label = name or default_name(p.absolute())
    try:
        return spec_from_hf_config(config, label)
    except ModelConfigError as exc:
        raise ModelConfigError(f"{shown(p)}: {exc}", exc.partial) from None
