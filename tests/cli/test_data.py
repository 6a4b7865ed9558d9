"""``ftcost data FILE``: the measurement as text and JSON, and ``--into`` an estimate file."""

from __future__ import annotations

import json

import pytest

from ftcost_gui.cli import main
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.dataset import measure_dataset
from ftcost_gui.io.dataset_fill import FillError, filled_inputs
from ftcost_gui.io.dataset_tokens import FAMILIES, approximate_counter
from ftcost_gui.io.estimate_file import load_document, save_document

SPM = FAMILIES["spm32k"]  # the new estimate's model (a Llama 2 shape): 3.5848 chars a token


@pytest.fixture(autouse=True)
def _no_hf_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))


def _pairs(tmp_path, n: int = 10):
    path = tmp_path / "prefs.jsonl"
    rec = {"prompt": "p" * 358, "chosen": "c" * 717, "rejected": "r" * 1434}
    path.write_text((json.dumps(rec) + "\n") * n + "{oops\n", encoding="utf-8")
    return path


def _sft(tmp_path, n: int = 30):
    path = tmp_path / "sft.jsonl"
    lines = [
        json.dumps({"prompt": "p" * 100, "completion": "c" * (100 * (i + 1))}) for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output(tmp_path, capsys):
    code, out, err = _run(capsys, "data", str(_pairs(tmp_path)))
    assert code == 0
    assert "tokens are approximate: no tokenizer.json for Llama-2-7B shape" in err
    assert "Records                  10 (preference pairs (chosen / rejected) 10)" in out
    assert "Sequences                20 (a preference pair trains two)" in out
    assert "an approximation" in out and "3.58 characters per token" in out
    assert "1 skipped (line 11: not valid JSON" in out
    assert "Length (tokens)" in out and "█" in out


def test_json_output_by_hand(tmp_path, capsys):
    _code, out, _ = _run(capsys, "data", str(_pairs(tmp_path)), "--json")
    doc = json.loads(out)
    assert (doc["format"], doc["version"], doc["file_format"]) == ("ftcost-dataset", 1, "jsonl")
    # prompt + chosen: (358 + 717) ÷ 3.5848 + 4.5 × 2 messages + 1 = 309.88 → 310;
    # prompt + rejected: (358 + 1434) ÷ 3.5848 + 10 = 509.88 → 510.
    chosen = round((358 + 717) / 3.5848 + 4.5 * 2 + 1)
    rejected = round((358 + 1434) / 3.5848 + 4.5 * 2 + 1)
    assert (chosen, rejected) == (310, 510)
    assert doc["records"] == doc["preference_pairs"] == 10 and doc["sequences"] == 20
    assert doc["tokens"]["total"] == 10 * (chosen + rejected)
    assert doc["tokens"]["mean_per_sequence"] == (chosen + rejected) / 2
    assert (doc["tokens"]["shortest"], doc["tokens"]["longest"]) == (310, 510)
    assert doc["tokens"]["exact"] is False
    assert doc["malformed"]["count"] == 1 and doc["malformed"]["first"][0]["line"] == 11
    assert sum(doc["histogram"]["counts"]) == 20
    assert len(doc["histogram"]["edges"]) == len(doc["histogram"]["counts"]) + 1
    assert doc["filled"] == []


def test_into_fills_one_scenario_as_one_edit(tmp_path, capsys):
    base = EstimateInputs()
    doc = EstimateDocument(
        scenarios=(Scenario(name="A", inputs=base), Scenario(name="B", inputs=base)), active=0
    )
    plan = tmp_path / "plan.ftcost"
    save_document(plan, doc)
    code, out, _ = _run(capsys, "data", str(_sft(tmp_path)), "--into", str(plan), "--scenario", "B")
    assert code == 0
    assert "Filled into" in out and "Examples             20,000 → 30" in out
    again = load_document(plan)
    assert again.active == 0 and again.scenarios[0].inputs == base
    data = again.scenarios[1].inputs.data
    assert data.num_examples == 30 and data.length_histogram is not None
    assert data.length_histogram.examples == 30
    m = measure_dataset(_sft(tmp_path), approximate_counter(SPM))
    assert data.mean_tokens_per_example == pytest.approx(m.mean_tokens)


def test_into_errors(tmp_path, capsys):
    code, _, err = _run(capsys, "data", str(_sft(tmp_path)), "--scenario", "B")
    assert code == 2 and "--scenario and --dpo go with --into" in err
    code, _, err = _run(capsys, "data", str(tmp_path))
    assert code == 2 and "is a folder" in err
    code, _, err = _run(capsys, "data", str(_sft(tmp_path)), "--tokenizer", str(tmp_path / "x"))
    assert code == 2 and "does not exist" in err


def test_fill_dpo_pairs_and_switch_the_objective(tmp_path):
    m = measure_dataset(_pairs(tmp_path), approximate_counter(SPM))
    sft = EstimateInputs()
    kept = filled_inputs(sft, m)
    assert kept.objective.objective == "sft" and kept.data.num_examples == 10
    dpo = filled_inputs(sft, m, switch_to_dpo=True)
    assert dpo.objective.objective == "dpo"
    assert dpo.data.mean_tokens_per_example == 410.0  # (310 + 510) / 2 per sequence
    r = estimate(dpo)
    # DPO trains both sequences of each pair: useful tokens = 2 × pairs × E[min(X, s)] × epochs
    assert r.tokens.useful_tokens == pytest.approx(2 * 10 * 410.0 * dpo.data.epochs, rel=1e-9)


def test_fill_rl_prompts(tmp_path):
    m = measure_dataset(_sft(tmp_path), approximate_counter(SPM))
    base = EstimateInputs()
    grpo = base.model_copy(
        update={"objective": base.objective.model_copy(update={"objective": "grpo"})}
    )
    out = filled_inputs(grpo, m)
    assert out.data.num_examples == 30 and out.data.length_histogram is None
    # prompt: 100 characters ÷ 3.5848 (content only; the template is counted per sequence)
    assert out.objective.mean_prompt_tokens == pytest.approx(100 / 3.5848)


def test_fill_refuses_an_empty_measurement(tmp_path):
    (tmp_path / "e.jsonl").write_text("{bad\n")
    m = measure_dataset(tmp_path / "e.jsonl", approximate_counter(SPM))
    with pytest.raises(FillError, match="holds no example"):
        filled_inputs(EstimateInputs(), m)


def _word_tokenizer(path) -> None:
    """A tokenizer.json of one token a word (w0…w99), no special tokens: exact counts by hand."""
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {f"w{i}": i for i in range(100)} | {"[UNK]": 100}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.save(str(path))


def test_exact_counts_percentiles_and_histogram_by_hand(tmp_path, capsys, monkeypatch):
    """600 texts of 9 words and 400 of 19, three malformed lines: with one token a word and the
    new estimate's template (+1 a sequence, no message around plain text) the sequences are
    exactly 10 and 20 tokens."""
    _word_tokenizer(tmp_path / "tokenizer.json")
    lines = [json.dumps({"text": " ".join(["w7"] * (9 if i % 5 < 3 else 19))}) for i in range(1000)]
    lines[100:100] = ["{not json", "[1, 2]", json.dumps({"foo": 1})]
    data = tmp_path / "known.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, "data", "known.jsonl", "--tokenizer", "tokenizer.json", "--json")
    assert code == 0
    doc = json.loads(out)
    tokens = doc["tokens"]
    assert doc["records"] == doc["sequences"] == 1000
    assert doc["malformed"]["count"] == 3
    assert tokens["exact"] is True
    assert tokens["counter"] == f"exact: {tmp_path.name} tokenizer.json"  # the folder, not ''
    assert tokens["total"] == 600 * 10 + 400 * 20 == 14_000
    assert tokens["mean_per_sequence"] == 14.0
    assert (tokens["shortest"], tokens["longest"]) == (10, 20)
    # nearest rank: the 500th shortest is 10 tokens, the 900th and 990th are 20 (never past 20)
    assert tokens["percentiles"] == {"p50": 10, "p90": 20, "p99": 20}
    # unit bins below 32 tokens: [10, 11) holds 600, [20, 21) holds 400, nothing between
    assert doc["histogram"] == {"edges": list(range(10, 22)), "counts": [600] + [0] * 9 + [400]}
    code, out, _ = _run(capsys, "data", "known.jsonl", "--tokenizer", "tokenizer.json")
    assert "Percentiles              p50 10 · p90 20 · p99 20" in out
