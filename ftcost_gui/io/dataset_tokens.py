"""Counting a dataset's tokens: exactly with a local ``tokenizer.json``, else by a measured ratio.

Exact counts need the optional ``tokenizers`` package (``pip install ftcost-gui[dataset]``) and a
``tokenizer.json``: given as a file or a model folder, or found for the estimate's model in the
Hugging Face cache (io/hf_cache.py: folders only, never the network). Without them, characters ÷
the family's characters per token, labelled as an approximation.

Ratios (docs/data/measured/token_ratios.json, written by validation/token_ratios.py): content
tokens of the four reference articles (33,439 characters of English technical prose), without
special tokens. The chat template adds tokens around each message; their number comes from the
family's published template (Llama 3.1, ChatML for Qwen, Mistral's [INST], Gemma's turns),
counted with the tokenizer itself where it is at hand.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.architecture import ModelSpec
from .hf_cache import find_cached
from .loader import FileKind, FileReadError, check_regular
from .resources import builtin_presets

TOKENIZER_NAME = "tokenizer.json"
TOKENIZER = FileKind("tokenizer.json", 256 * 1024 * 1024)  # Gemma's is 34 MB


class TokenizerError(Exception):
    """A tokenizer that cannot be used; the message is one line."""


@dataclass(frozen=True, slots=True)
class Family:
    """What an approximate count knows of a tokenizer family."""

    key: str
    label: str
    chars_per_token: float  # content characters per content token, English prose
    ratio_source: str
    per_message: float  # template tokens around one chat message
    per_sequence: int  # tokens once per sequence (BOS)
    template: str  # the template text around a message, for exact counting ({} = role)
    start: str  # the text once per sequence


_MEASURED = "measured on English prose (docs/data/measured/token_ratios.json)"
FAMILIES: dict[str, Family] = {
    f.key: f
    for f in (
        Family(
            "llama3", "Llama 3", 4.1914, f"Llama 3's tokenizer, {_MEASURED}", 5, 1,
            "<|start_header_id|>{}<|end_header_id|>\n\n<|eot_id|>", "<|begin_of_text|>",
        ),
        Family(
            "qwen2", "Qwen2 / Qwen3", 4.0298, f"Qwen2.5's tokenizer, {_MEASURED}", 5, 0,
            "<|im_start|>{}\n<|im_end|>\n", "",
        ),
        Family(
            "spm32k", "SentencePiece 32k (Llama 2, Mistral, Mixtral, Phi-3)", 3.5848,
            f"Mistral 7B's SentencePiece model, {_MEASURED}; Llama 2's own model (also 32,000 "
            "tokens) not measured", 4.5, 1, "[INST] [/INST]</s>", "<s>",
        ),
        Family(
            "gemma", "Gemma", 4.1914,
            "not measured (no Gemma tokenizer reachable here): Llama 3's ratio, the measured "
            "vocabulary nearest in size", 5, 1, "<start_of_turn>{}\n<end_of_turn>\n", "<bos>",
        ),
        Family(
            "bpe50k", "GPT-2 / GPT-NeoX byte-level BPE", 4.0298,
            "not measured (no GPT-2 tokenizer reachable here): Qwen2.5's ratio, the measured "
            "byte-level BPE", 0, 1, "", "<|endoftext|>",
        ),
    )
}  # fmt: skip
DEFAULT_FAMILY = "llama3"


def family_for(model: ModelSpec) -> Family:
    """The tokenizer family of a model, from its name and vocabulary size."""
    name, vocab = model.name.lower(), model.vocab_size
    if "llama-3" in name or "llama 3" in name or "llama3" in name or vocab == 128256:
        return FAMILIES["llama3"]
    if "qwen" in name or 151000 <= vocab <= 152100:
        return FAMILIES["qwen2"]
    if "gemma" in name or vocab in (256000, 262144):
        return FAMILIES["gemma"]
    if vocab in (32000, 32064, 32768) or any(k in name for k in ("llama-2", "mistral", "mixtral")):
        return FAMILIES["spm32k"]
    if vocab in (50257, 50304, 50280, 100352) or "gpt" in name:
        return FAMILIES["bpe50k"]
    return FAMILIES[DEFAULT_FAMILY]


@dataclass(frozen=True, slots=True)
class TokenCounter:
    """Counts content tokens of many texts at once, and knows the template around messages."""

    label: str  # "exact: Llama-3.1-8B tokenizer.json" / "approximate: Llama 3, 4.19 characters…"
    exact: bool
    per_message: float
    per_sequence: float
    count: Callable[[Sequence[str]], list[float]]
    source: str  # the tokenizer file, or where the ratio comes from


def approximate_counter(family: Family) -> TokenCounter:
    ratio = family.chars_per_token

    def count(texts: Sequence[str]) -> list[float]:
        return [len(t) / ratio for t in texts]

    return TokenCounter(
        f"approximate: {family.label}, {ratio:.2f} characters per token",
        False, family.per_message, family.per_sequence, count, family.ratio_source,
    )  # fmt: skip


def tokenizers_available() -> bool:
    try:
        import tokenizers  # noqa: F401
    except ImportError:
        return False
    return True


def exact_counter(path: str | os.PathLike[str], family: Family, label: str = "") -> TokenCounter:
    """A counter over a tokenizer.json (a file or a folder holding one); TokenizerError when the
    package is missing or the file does not load."""
    file = Path(path)
    if file.is_dir():
        file = file / TOKENIZER_NAME
    try:  # the file first: a wrong path is the error to fix, with or without the package
        check_regular(file, TOKENIZER)
    except FileReadError as exc:
        raise TokenizerError(str(exc)) from None
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise TokenizerError(
            "exact counts need the 'tokenizers' package: pip install tokenizers"
        ) from None
    try:
        tok = Tokenizer.from_file(str(file))
    except Exception as exc:  # the Rust loader's errors are plain Exceptions
        raise TokenizerError(
            f"{file.name} is not a tokenizer.json tokenizers can load: {exc}"
        ) from None

    def count(texts: Sequence[str]) -> list[float]:
        encoded = tok.encode_batch(list(texts), add_special_tokens=False)
        return [float(len(e.ids)) for e in encoded]

    per_message, per_sequence = _template_tokens(tok, family)
    folder = label or file.resolve().parent.name  # resolved: 'tokenizer.json' has no parent name
    return TokenCounter(
        f"exact: {folder} {TOKENIZER_NAME}", True, per_message, per_sequence, count, str(file),
    )  # fmt: skip


def _template_tokens(tok: Any, family: Family) -> tuple[float, float]:
    """The family's template text counted by this tokenizer, when its special tokens are in the
    vocabulary as single tokens; else the family's published figures."""
    vocab = tok.get_vocab(with_added_tokens=True)
    specials = [s for s in ("<|start_header_id|>", "<|im_start|>", "<start_of_turn>") if s in vocab]
    if not specials or not family.template or "{}" not in family.template:
        return family.per_message, family.per_sequence
    if not all(s in vocab for s in _specials_of(family.template)):
        return family.per_message, family.per_sequence
    around = len(tok.encode(family.template.format("user"), add_special_tokens=False).ids)
    start = len(tok.encode(family.start, add_special_tokens=False).ids) if family.start else 0
    return float(around), float(start)


def _specials_of(template: str) -> list[str]:
    out, i = [], 0
    while (j := template.find("<", i)) >= 0 and (k := template.find(">", j)) >= 0:
        out.append(template[j : k + 1])
        i = k + 1
    return out


def repo_of(model: ModelSpec) -> str:
    """The Hugging Face repository of a built-in model preset by its name ('' if none)."""
    preset = builtin_presets().find(model.name)
    return preset.hf_id if preset is not None else ""


def find_tokenizer(
    model: ModelSpec, hf_id: str = "", root: str | None = None
) -> tuple[Path, str] | None:
    """A tokenizer.json for the model in the Hugging Face cache and its repository id (the one
    given, the preset's of the same name, or the model's name when it is one), or None."""
    for repo in (hf_id, repo_of(model), model.name):
        if not repo or "/" not in repo:
            continue
        cached = find_cached(repo, root)
        if cached is not None and cached.snapshot is not None:
            file = cached.snapshot / TOKENIZER_NAME
            if file.is_file():
                return file, cached.repo_id
    return None


def counter_for(
    model: ModelSpec,
    tokenizer: str | os.PathLike[str] | None,
    hf_id: str = "",
    root: str | None = None,
) -> tuple[TokenCounter, str]:
    """The counter to use and, when it is not the one asked for, why (one line; '' otherwise).

    ``tokenizer``: a tokenizer.json or a model folder (exact, or TokenizerError), "auto" (the
    model's tokenizer in the Hugging Face cache when it and the package are there, else the
    approximation), None or "approximate" (the approximation)."""
    family = family_for(model)
    if tokenizer is None or str(tokenizer) == "approximate":
        return approximate_counter(family), ""
    if str(tokenizer) != "auto":
        return exact_counter(tokenizer, family), ""
    found = find_tokenizer(model, hf_id, root)
    if found is None:
        why = f"no {TOKENIZER_NAME} for {model.name} in the Hugging Face cache"
        return approximate_counter(family), why
    if not tokenizers_available():
        why = "the 'tokenizers' package is not installed (pip install tokenizers)"
        return approximate_counter(family), why
    return exact_counter(found[0], family, found[1]), ""
