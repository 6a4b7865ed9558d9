"""Estimate files: round trip, every way a file can be wrong, and the v1 fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.estimate_file import (
    FORMAT,
    VERSION,
    EstimateFileError,
    dumps_document,
    dumps_estimate,
    load_document,
    load_estimate,
    loads_estimate,
    save_document,
    save_estimate,
)
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

FIXTURE_V1 = Path(__file__).resolve().parents[1] / "data" / "estimate_v1.ftcost"


def sample_inputs() -> EstimateInputs:
    return EstimateInputs.model_validate(
        {
            "model": builtin_presets().find("qwen2.5-0.5b").spec.model_dump(),
            "data": {
                "num_examples": 1234,
                "mean_tokens_per_example": 777.5,
                "padding": "max_length",
            },
            "training": {
                "method": "qlora",
                "lora_rank": 8,
                "lora_targets": ["q_proj", "down_proj"],
            },
            "hardware": {"gpu": builtin_catalog().find("l4").to_spec().model_dump()},
            "efficiency": {"mfu": 0.21, "step_time_s": 0.75},
            "spot": {"restart_overhead_min": 3.5},
            "project": {"billing": "spot", "planned_runs": 9},
        }
    )


def good_doc() -> dict:
    return json.loads(dumps_estimate(sample_inputs()))


@pytest.mark.parametrize("inputs", [EstimateInputs(), sample_inputs()], ids=["default", "custom"])
def test_round_trip(tmp_path, inputs):
    path = tmp_path / "sub" / "a.ftcost"
    save_estimate(path, inputs)
    loaded = load_estimate(path)
    assert loaded == inputs
    assert loads_estimate(dumps_estimate(inputs)) == inputs
    assert estimate(loaded) == estimate(inputs)


def test_document_shape():
    doc = good_doc()
    assert doc["format"] == FORMAT == "ftcost-estimate"
    assert doc["version"] == VERSION == 3
    assert doc["app"].startswith("ftcost ")
    assert doc["active"] == 0
    inputs = doc["scenarios"][0]["inputs"]
    assert inputs["hardware"]["gpu"]["name"] == "L4"  # the GPU spec is snapshotted
    assert inputs["training"]["lora_targets"] == ["q_proj", "down_proj"]


def test_accepts_bytes():
    assert loads_estimate(dumps_estimate(sample_inputs()).encode("utf-8")) == sample_inputs()


def _cases() -> dict[str, tuple[str | bytes, str]]:
    good = dumps_estimate(sample_inputs()).encode("utf-8")
    out_of_range = good_doc()
    out_of_range["scenarios"][0]["inputs"]["efficiency"]["mfu"] = 5
    newer = good_doc()
    newer["version"] = 99
    no_version = good_doc()
    del no_version["version"]
    unknown_field = good_doc()
    unknown_field["scenarios"][0]["inputs"]["training"]["warp_drive"] = True
    bad_choice = good_doc()
    bad_choice["scenarios"][0]["inputs"]["training"]["method"] = "sgd"
    no_inputs = {"format": FORMAT, "version": 1}
    no_scenarios = good_doc()
    del no_scenarios["scenarios"]
    dup_names = good_doc()
    dup_names["scenarios"].append(dup_names["scenarios"][0])
    no_valid_version = "has no valid format version"
    return {
        "corrupt": ("{ this is not json", "is not valid JSON"),
        "truncated": (good[: len(good) // 2], "is not valid JSON (corrupt or truncated)"),
        "empty": (b"", "is not valid JSON"),
        "not utf-8": (b"\xff\xfe\x00garbage", "is not valid JSON"),
        "foreign": ('{"format": "other"}', "is not an ftcost estimate file"),
        "top-level list": ("[1, 2, 3]", "is not an ftcost estimate file"),
        "newer version": (json.dumps(newer), "newer ftcost (format version 99; this one reads up"),
        "no version": (json.dumps(no_version), no_valid_version),
        "string version": (json.dumps({**good_doc(), "version": "1"}), no_valid_version),
        "bool version": (json.dumps({**good_doc(), "version": True}), no_valid_version),
        "version 0": (json.dumps({**good_doc(), "version": 0}), no_valid_version),
        "no inputs": (json.dumps(no_inputs), "(format version 1) has no 'inputs' section"),
        "no scenarios": (json.dumps(no_scenarios), "is incomplete: scenarios is missing."),
        "duplicate names": (json.dumps(dup_names), "scenario names must be unique"),
        "bad active": (json.dumps({**good_doc(), "active": 3}), "active scenario index"),
        "out of range": (json.dumps(out_of_range), "inputs.efficiency.mfu: Input should be less"),
        "unknown field": (
            json.dumps(unknown_field),
            "is not as ftcost wrote it: scenarios[0].inputs.training.warp_drive is not a field",
        ),
        "bad choice": (json.dumps(bad_choice), "inputs.training.method: Input should be"),
    }  # fmt: skip


@pytest.mark.parametrize("case", sorted(_cases()))
def test_bad_documents(case):
    text, needle = _cases()[case]
    with pytest.raises(EstimateFileError) as info:
        loads_estimate(text, source="x.ftcost")
    message = str(info.value)
    assert message.startswith("x.ftcost ")
    assert needle in message
    assert "\n" not in message


def test_load_names_the_file(tmp_path):
    path = tmp_path / "broken.ftcost"
    good = dumps_estimate(sample_inputs()).encode()
    path.write_bytes(good[: len(good) // 2])
    with pytest.raises(EstimateFileError, match=r"^broken\.ftcost is not valid JSON"):
        load_estimate(path)


def test_missing_file(tmp_path):
    with pytest.raises(EstimateFileError, match=r".*absent\.ftcost does not exist\."):
        load_estimate(tmp_path / "absent.ftcost")


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(EstimateFileError, match="is a folder, not an estimate file"):
        load_estimate(tmp_path)


def test_v1_fixture_keeps_opening():
    inputs = load_estimate(FIXTURE_V1)
    assert json.loads(FIXTURE_V1.read_text(encoding="utf-8"))["version"] == 1
    m = inputs.model
    assert (m.name, m.num_layers, m.hidden_size, m.num_kv_heads) == ("Qwen2.5-7B", 28, 3584, 4)
    assert m.param_count_override is None
    assert inputs.data.mode == "tokens"
    assert inputs.data.total_tokens == 6e7
    assert inputs.data.max_seq_len == 4096
    assert inputs.training.method == "full_amp_adamw"
    assert inputs.training.checkpointing == "full"
    assert inputs.hardware.gpu.id == "h100-sxm"
    assert inputs.hardware.gpu.bf16_tflops == 989.0
    assert inputs.hardware.gpu.on_demand_usd_per_hour == 3.0
    assert inputs.efficiency.mfu == 0.4
    assert inputs.project.planned_runs == 3
    r = estimate(inputs)
    assert r.params.total == builtin_presets().find("qwen2.5-7b").expected_total == 7_615_616_512
    assert r.tokens.tokens_processed == 6e7


FIXTURE_V2 = Path(__file__).resolve().parents[1] / "data" / "estimate_v2.ftcost"


def test_v1_fixture_migrates_to_one_scenario():
    document = load_document(FIXTURE_V1)
    assert [s.name for s in document.scenarios] == ["Scenario 1"]
    assert document.current.inputs == load_estimate(FIXTURE_V1)


def test_v2_fixture_keeps_opening():
    assert json.loads(FIXTURE_V2.read_text(encoding="utf-8"))["version"] == 2
    document = load_document(FIXTURE_V2)
    assert [s.name for s in document.scenarios] == ["Full FT", "LoRA r16", "QLoRA r16"]
    assert document.active == 1
    methods = [s.inputs.training.method for s in document.scenarios]
    assert methods == ["full_amp_adamw", "lora", "qlora"]
    assert document.scenarios[2].inputs.hardware.gpu.id == "a100-80gb-sxm"


def test_v2_files_keep_fp32_adapters_and_separate_qkv():
    """Issue 10's new inputs: a v2 file is read with the behaviour it was estimated with — PEFT's
    fp32 adapters and separate q/k/v — whatever the defaults become."""
    for scenario in load_document(FIXTURE_V2).scenarios:
        inputs = scenario.inputs
        assert inputs.training.adapter_dtype == "fp32"
        assert inputs.model.fused_qkv is False
        explicit = inputs.edited("training", adapter_dtype="fp32").edited("model", fused_qkv=False)
        assert estimate(inputs) == estimate(explicit)
        lora = inputs.training.method in ("lora", "qlora")
        bf16 = estimate(inputs.edited("training", adapter_dtype="bf16"))
        # bf16 adapters: 2 + 2 + 4 B per adapter parameter instead of 4 + 4 + 8
        assert (bf16.memory.adapters_bytes < estimate(inputs).memory.adapters_bytes) == lora


def test_multi_scenario_round_trip(tmp_path):
    document = EstimateDocument(
        scenarios=(
            Scenario(name="A", inputs=sample_inputs()),
            Scenario(name="B", inputs=EstimateInputs()),
        ),
        active=1,
    )
    path = tmp_path / "two.ftcost"
    save_document(path, document)
    again = load_document(path)
    assert again == document
    assert [estimate(s.inputs) for s in again.scenarios] == [
        estimate(s.inputs) for s in document.scenarios
    ]
    assert dumps_document(again) == dumps_document(document)


@pytest.mark.parametrize(
    "text",
    [
        '{"format": "ftcost-estimate", "version": 1' + "0" * 5000 + "}",  # int past Python's limit
        "[" * 100_000,  # nesting past the recursion limit
    ],
    ids=["huge int", "deep nesting"],
)
def test_hostile_json_is_a_clear_error(text):
    with pytest.raises(EstimateFileError, match="is not valid JSON"):
        loads_estimate(text, source="x.ftcost")


def test_saving_through_a_symlink_updates_the_target(tmp_path):
    real = tmp_path / "real" / "plan.ftcost"
    save_estimate(real, EstimateInputs())
    link = tmp_path / "link.ftcost"
    link.symlink_to(real)
    save_estimate(link, sample_inputs())
    assert link.is_symlink()
    assert load_estimate(real) == sample_inputs()
