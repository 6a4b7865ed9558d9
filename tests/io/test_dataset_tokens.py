"""Token counting: exact with tokenizers (agrees with the package to the token), the ratio
approximation, and which tokenizer 'auto' finds (io/dataset_tokens.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.dataset import measure_dataset
from ftcost_gui.io.dataset_tokens import (
    FAMILIES,
    TokenizerError,
    approximate_counter,
    counter_for,
    exact_counter,
    family_for,
)
from ftcost_gui.io.resources import builtin_presets

from .hf_fixtures import LLAMA_31_8B, make_repo

CORPUS = [
    "Fine-tuning a 7B model with LoRA needs far less memory than full fine-tuning.",
    "The optimizer keeps two moments per trainable parameter, in fp32.",
    "Packing concatenates short examples into full rows; padding wastes tokens.",
    "Ünïcödé text, numbers 12345 and code: def f(x): return x ** 2",
] * 20


def _model(preset: str):
    return builtin_presets().find(preset).spec


def _trained_tokenizer(folder: Path) -> Path:
    """A small byte-level BPE with ChatML's special tokens, trained here (no download)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )  # fmt: skip
    tok.train_from_iterator(CORPUS, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tok.save(str(path))
    assert tokenizers.Tokenizer.from_file(str(path)).get_vocab_size() <= 400
    return path


def test_exact_counts_agree_with_tokenizers(tmp_path):
    path = _trained_tokenizer(tmp_path / "tok")  # skips without the package
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    records = []
    for i, text in enumerate(CORPUS[:40]):
        records.append(
            {"messages": [{"role": "user", "content": text[: 10 + i]},
                          {"role": "assistant", "content": text * (1 + i % 3)}]}
        )  # fmt: skip
    records.append({"text": "plain " * 33})
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    counter = exact_counter(path, FAMILIES["qwen2"])
    assert counter.exact
    # ChatML around one message, counted by this tokenizer: <|im_start|> user \n <|im_end|> \n
    around = len(tok.encode("<|im_start|>user\n<|im_end|>\n", add_special_tokens=False).ids)
    assert counter.per_message == around and counter.per_sequence == 0
    m = measure_dataset(data, counter)

    def n(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    by_hand = [n(r["messages"][0]["content"]) + n(r["messages"][1]["content"]) + 2 * around
               for r in records[:-1]] + [n(records[-1]["text"])]  # fmt: skip
    assert m.tokens == sum(by_hand)
    assert (m.shortest, m.longest) == (min(by_hand), max(by_hand))
    assert m.prompt_tokens == sum(n(r["messages"][0]["content"]) for r in records[:-1])


@pytest.mark.skipif(not os.environ.get("FTCOST_TOKENIZER_JSON"), reason="no real tokenizer.json")
def test_exact_counts_with_a_real_tokenizer(tmp_path):
    """FTCOST_TOKENIZER_JSON=…/Llama-3/tokenizer.json: Llama 3's template is 5 tokens a message
    and 1 a sequence, counted by the tokenizer itself."""
    from tokenizers import Tokenizer

    path = os.environ["FTCOST_TOKENIZER_JSON"]
    tok = Tokenizer.from_file(path)
    counter = exact_counter(path, FAMILIES["llama3"])
    assert (counter.per_message, counter.per_sequence) == (5, 1)
    data = tmp_path / "d.jsonl"
    data.write_text(
        "".join(json.dumps({"prompt": t, "completion": t[::-1]}) + "\n" for t in CORPUS), "utf-8"
    )
    m = measure_dataset(data, counter)
    content = sum(
        len(tok.encode(t, add_special_tokens=False).ids)
        + len(tok.encode(t[::-1], add_special_tokens=False).ids)
        for t in CORPUS
    )
    assert m.tokens == content + len(CORPUS) * (2 * 5 + 1)


def test_approximate_counts_divide_characters_by_the_measured_ratio():
    c = approximate_counter(FAMILIES["qwen2"])
    assert not c.exact and "approximate" in c.label and "4.03 characters per token" in c.label
    assert c.count(["x" * 4030, ""]) == [pytest.approx(1000.0, rel=1e-4), 0.0]
    assert "docs/data/measured/token_ratios.json" in c.source


def test_the_ratios_are_the_measured_record():
    record = json.loads(
        (Path(__file__).resolve().parents[2] / "docs/data/measured/token_ratios.json").read_text(
            encoding="utf-8"
        )
    )
    measured = {k: v["prose"]["chars_per_token"] for k, v in record["ratios"].items()}
    assert FAMILIES["llama3"].chars_per_token == measured["llama3"]
    assert FAMILIES["qwen2"].chars_per_token == measured["qwen2"]
    assert FAMILIES["spm32k"].chars_per_token == measured["mistral_v1"]
    assert record["templates"]["llama3"]["per_message"] == FAMILIES["llama3"].per_message == 5
    assert record["templates"]["qwen2"]["per_message"] == FAMILIES["qwen2"].per_message == 5
    for f in FAMILIES.values():  # a borrowed ratio says so
        assert f.ratio_source.startswith("not measured") == (f.key in ("gemma", "bpe50k"))


@pytest.mark.parametrize(
    "preset, family",
    [("llama-3.1-8b", "llama3"), ("llama-2-7b", "spm32k"), ("qwen2.5-7b", "qwen2"),
     ("qwen3-8b", "qwen2"), ("mistral-7b-v0.3", "spm32k"), ("gemma-2-9b", "gemma"),
     ("gpt2", "bpe50k"), ("phi-3-mini-4k", "spm32k"), ("olmoe-1b-7b-0924", "bpe50k")],
)  # fmt: skip
def test_family_of_each_preset(preset, family):
    assert family_for(_model(preset)).key == family


def test_auto_finds_the_models_tokenizer_in_the_cache(tmp_path):
    pytest.importorskip("tokenizers")
    repo = make_repo(tmp_path, "meta-llama/Llama-3.1-8B", {"abc": LLAMA_31_8B}, "abc", False)
    _trained_tokenizer(repo / "snapshots" / "abc")
    counter, why = counter_for(_model("llama-3.1-8b"), "auto", root=str(tmp_path))
    assert counter.exact and why == ""
    assert "meta-llama/Llama-3.1-8B" in counter.label


def test_auto_without_a_cached_tokenizer_falls_back_and_says_why(tmp_path):
    counter, why = counter_for(_model("qwen2.5-7b"), "auto", root=str(tmp_path))
    assert not counter.exact
    assert why == "no tokenizer.json for Qwen2.5-7B in the Hugging Face cache"


def test_auto_without_the_package_falls_back_and_says_why(tmp_path, monkeypatch):
    repo = make_repo(tmp_path, "meta-llama/Llama-3.1-8B", {"abc": LLAMA_31_8B}, "abc", False)
    (repo / "snapshots" / "abc" / "tokenizer.json").write_text("{}")
    from ftcost_gui.io import dataset_tokens

    monkeypatch.setattr(dataset_tokens, "tokenizers_available", lambda: False)
    counter, why = counter_for(_model("llama-3.1-8b"), "auto", root=str(tmp_path))
    assert not counter.exact and "'tokenizers' package is not installed" in why


def test_a_file_that_is_no_tokenizer_is_a_clear_error(tmp_path):
    pytest.importorskip("tokenizers")
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"not": "a tokenizer"}')
    with pytest.raises(TokenizerError, match=r"is not a tokenizer\.json tokenizers can load"):
        counter_for(EstimateInputs().model, str(bad))
    with pytest.raises(TokenizerError, match="does not exist"):
        counter_for(EstimateInputs().model, str(tmp_path / "nope"))
    with pytest.raises(TokenizerError, match="a folder"):
        os.mkdir(tmp_path / "dir")
        (tmp_path / "dir" / "tokenizer.json").mkdir()
        counter_for(EstimateInputs().model, str(tmp_path / "dir"))
