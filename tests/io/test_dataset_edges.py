"""Dataset reading the mutation run (tools/mutation.py) found unpinned: record numbers and errors
of each format's reader, blank CSV rows, line breaks inside CSV cells, TSV, streaming a JSON
array, a gzip file without a known suffix, the record shapes' less common keys, the tokenizer
family by name, the chat template's special tokens, and what a measurement fills in.
"""

from __future__ import annotations

import gzip
import io
import json

import pytest

from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.objective import ObjectiveSpec
from ftcost_gui.io import dataset_stream
from ftcost_gui.io.dataset import DatasetMeasure, measure_dataset
from ftcost_gui.io.dataset_fill import FillError, filled_inputs, fills
from ftcost_gui.io.dataset_records import RecordError, parse_record
from ftcost_gui.io.dataset_stream import Item, csv_items, detect_format, items, json_items
from ftcost_gui.io.dataset_tokens import (
    FAMILIES,
    _specials_of,
    approximate_counter,
    counter_for,
    family_for,
    repo_of,
)

from .hf_fixtures import LLAMA_31_8B, make_repo
from .test_dataset_tokens import _trained_tokenizer

APPROX = approximate_counter(FAMILIES["llama3"])


def _b(text: str | bytes) -> io.BytesIO:
    return io.BytesIO(text.encode() if isinstance(text, str) else text)


# --- Readers ----------------------------------------------------------------------------------
def test_text_lines_keep_their_numbers_and_say_what_is_wrong():
    got = list(items(_b(b"first\n\xff\xfe\n\n  \nlast\n"), "text"))
    assert got == [
        Item(1, {"text": "first"}),
        Item(2, error="not UTF-8 text"),
        Item(5, {"text": "last"}),
    ]


def test_csv_without_a_readable_header_is_one_error_on_line_1():
    assert list(csv_items(_b(b"te\xffxt,b\nx,y\n"), ",")) == [
        Item(1, error="no header row ('utf-8' codec can't decode byte 0xff in position 2: "
                      "invalid start byte)"),
    ]  # fmt: skip


def test_blank_csv_rows_are_not_records():
    got = list(csv_items(_b("prompt,completion\n , \n\nhi,there\n"), ","))
    assert got == [Item(4, {"prompt": "hi", "completion": "there"})]


def test_a_csv_cell_keeps_its_own_line_breaks():
    """newline='' (the csv module's rule): a quoted cell's CR LF stays as written."""
    got = list(csv_items(_b(b'text\r\n"one\r\ntwo"\r\n'), ","))
    assert got == [Item(3, {"text": "one\r\ntwo"})]


def test_tsv_splits_on_tabs_only():
    got = list(items(_b("prompt\tcompletion\na, b\tc\n"), "tsv"))
    assert got == [Item(2, {"prompt": "a, b", "completion": "c"})]


@pytest.mark.parametrize(
    ("name", "head", "fmt"),
    [
        ("train.jsonl.gz", b"", "jsonl"),
        ("rows.CSV.gz", b'{"a": 1}', "csv"),
        ("data", b'{"a": 1}\n{"a": 2}', "jsonl"),
        ("data", b'{"a":\n 1}', "json"),
        ("data", b"  [1]", "json"),
        ("data", b"plain words", "text"),
    ],
)
def test_detect_format(name, head, fmt):
    assert detect_format(name, head) == fmt


def test_a_json_array_is_streamed_not_read_whole():
    """The first record is handed on after a chunk or two, not after the whole file."""
    chunk = dataset_stream.CHUNK_BYTES
    raw = json.dumps([{"text": "x" * 40}] * (8 * chunk // 50)).encode()
    fh = io.BytesIO(raw)
    first = next(json_items(fh))
    assert first == Item(1, {"text": "x" * 40})
    assert fh.tell() <= 2 * chunk < len(raw)


def test_broken_json_says_what_json_said():
    got = list(json_items(_b('[{"text": "a"}, {"text": oops}]')))
    assert got[-1] == Item(
        2, error="not valid JSON (Expecting value); the rest of the file is not read"
    )


# --- measure_dataset --------------------------------------------------------------------------
def test_gzip_without_a_known_suffix_is_sniffed_after_decompressing(tmp_path):
    recs = [{"prompt": "p" * 10, "completion": "c" * 20}] * 3
    path = tmp_path / "export.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in recs).encode()))
    m = measure_dataset(path, APPROX)
    assert (m.compressed, m.format, m.records) == (True, "jsonl", 3)
    # the counter's template figures travel with the measurement (shown and in the CLI's JSON)
    assert (m.per_message, m.per_sequence) == (APPROX.per_message, APPROX.per_sequence) == (5, 1)


def _measure(**kw) -> DatasetMeasure:
    base = dict(name="d.jsonl", format="jsonl", compressed=False, bytes_total=10,
                tokenizer="approx", exact=False, tokenizer_source="", per_message=5.0,
                per_sequence=1.0)  # fmt: skip
    return DatasetMeasure(**{**base, **kw})


def test_the_histogram_source_is_cut_at_its_field_length():
    m = _measure(tokenizer="t" * 2000, lengths={100: 3, 900: 1})
    m.tally()
    h = m.histogram()
    assert len(h.source) == 1000
    assert h.source.startswith("d.jsonl: 4 sequences, approximate (ttt")


def test_shapes_are_listed_most_common_first():
    m = _measure(shapes={"chat": 2, "prompt": 7, "text": 3000})
    assert m.shape_text() == "plain text 3,000, prompts only 7, chat messages 2"


# --- Records ----------------------------------------------------------------------------------
def test_sharegpt_turns_in_a_preference_pair():
    r = parse_record({
        "chosen": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "good"}],
        "rejected": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "bad"}],
    })  # fmt: skip
    assert r.shape == "preference"
    assert r.answer == (("q", "good"), 2) and r.rejected == (("q", "bad"), 2)


def test_an_instruction_answered_under_response():
    r = parse_record({"instruction": "say hi", "response": "hi"})
    assert r.shape == "instruction" and r.answer.texts == ("hi",)


def test_a_prompt_that_is_not_text_is_named():
    with pytest.raises(RecordError, match=r"^prompt is not text"):
        parse_record({"prompt": {"a": 1}})


# --- Tokenizers -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "vocab", "family"),
    [
        ("Llama 3 Mixtral merge", 100, "llama3"),  # the first rule that matches wins
        ("mixtral-like", 100, "spm32k"),
        ("gpt-neox-ish", 100, "bpe50k"),
    ],
)
def test_family_by_name_when_the_vocabulary_says_nothing(name, vocab, family):
    model = EstimateInputs().model.model_copy(update={"name": name, "vocab_size": vocab})
    assert family_for(model).key == family


def test_specials_are_read_from_the_template_start():
    assert _specials_of("<|im_start|>{}\n<|im_end|>\n") == ["<|im_start|>", "<|im_end|>"]
    assert _specials_of("[INST] {} [/INST]") == []


def test_a_model_that_is_no_preset_has_no_repository():
    model = EstimateInputs().model.model_copy(update={"name": "my own model"})
    assert repo_of(model) == ""


def test_auto_looks_in_the_repository_given(tmp_path):
    pytest.importorskip("tokenizers")
    repo = make_repo(tmp_path, "someone/tune", {"abc": LLAMA_31_8B}, "abc", False)
    _trained_tokenizer(repo / "snapshots" / "abc")
    model = EstimateInputs().model.model_copy(update={"name": "my own model"})
    counter, why = counter_for(model, "auto", hf_id="someone/tune", root=str(tmp_path))
    assert counter.exact and why == "" and "someone/tune" in counter.label


# --- Filling the inputs -----------------------------------------------------------------------
def _pairs(records: int, pairs: int) -> DatasetMeasure:
    m = _measure(records=records, shapes={"preference": pairs, "chat": records - pairs},
                 lengths={512: 2 * records}, prompt_tokens=100.0 * records)  # fmt: skip
    m.tally()
    return m


def test_a_measurement_fills_examples_mean_and_lengths():
    m = _pairs(10, 0)
    out = filled_inputs(EstimateInputs(), m)
    d = out.data
    assert (d.mode, d.num_examples, d.mean_tokens_per_example) == ("examples", 10, 512.0)
    assert d.length_histogram == m.histogram()
    assert fills(EstimateInputs(), m) == (
        "examples, mean tokens per sequence and the measured lengths (padding)"
    )


def test_preference_pairs_and_rl_say_what_they_fill():
    pairs = _pairs(4, 4)
    assert fills(EstimateInputs(), pairs).startswith("preference pairs, mean tokens")
    dpo = filled_inputs(EstimateInputs(), pairs, switch_to_dpo=True)
    assert dpo.objective.objective == "dpo"
    for objective in ("grpo", "ppo"):
        rl = EstimateInputs().model_copy(update={"objective": ObjectiveSpec(objective=objective)})
        assert fills(rl, pairs) == (
            "prompts and their mean length (the rollouts' own lengths stay the objective's)"
        )
        out = filled_inputs(rl, pairs)
        assert (out.data.num_examples, out.objective.mean_prompt_tokens) == (4, 100)


def test_an_empty_measurement_fills_nothing():
    with pytest.raises(FillError, match=r"d\.jsonl holds no example ftcost could read"):
        filled_inputs(EstimateInputs(), _measure())
