"""The input flags are the fields: one flag per field, its help from the field, its value set."""

from __future__ import annotations

import argparse
import json
import typing

import pytest
from pydantic import BaseModel

from ftcost_gui.cli import build_parser, main
from ftcost_gui.cli.flags import NOT_FLAGS, input_flags, skipped_fields
from ftcost_gui.core.fields import field_spec
from ftcost_gui.core.inputs import SECTIONS, EstimateInputs

FLAGS = {f.option: f for f in input_flags()}
# The first release's flag names, all still there, each on its field.
FIRST_RELEASE = {
    "--params": "model.param_count_override",
    "--tokens": "data.total_tokens",
    "--examples": "data.num_examples",
    "--mean-tokens": "data.mean_tokens_per_example",
    "--epochs": "data.epochs",
    "--seq-len": "data.max_seq_len",
    "--padding": "data.padding",
    "--method": "training.method",
    "--rank": "training.lora_rank",
    "--targets": "training.lora_targets",
    "--checkpointing": "training.checkpointing",
    "--attention": "training.attention",
    "--micro-batch": "training.micro_batch",
    "--grad-accum": "training.grad_accum",
    "--gpus": "training.num_gpus",
    "--sharding": "training.sharding",
    "--offload": "training.cpu_offload_optimizer",
    "--mfu": "efficiency.mfu",
    "--price": "hardware.gpu.on_demand_usd_per_hour",
    "--spot-price": "hardware.gpu.spot_usd_per_hour",
    "--runs": "project.planned_runs",
    "--step-time": "efficiency.step_time_s",
}
# Flags whose field only takes some values together with another field (validators across
# fields): the companion flags that make a changed value valid.
MOE = ["--model", "qwen3-30b-a3b"]  # a mixture of experts to change expert counts in
COMPANIONS = {
    "--num-experts": MOE,
    "--experts-per-token": MOE,
    "--num-shared-experts": MOE,
    "--expert-intermediate-size": MOE,
    "--shared-expert-intermediate-size": [*MOE, "--num-shared-experts", "1"],
    "--shared-expert-gate": [*MOE, "--num-shared-experts", "1"],
}
# Values that keep the shape valid (heads divide the width, KV heads divide the heads).
VALUES = {"--hidden-size": ("8192", 8192), "--num-attention-heads": ("64", 64),
          "--num-kv-heads": ("8", 8), "--num-experts": ("256", 256)}  # fmt: skip


def _leaf_paths(model: type[BaseModel], prefix: str) -> list[str]:
    out = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        args = [a for a in typing.get_args(ann) if a is not type(None)] or [ann]
        if f"{prefix}.{name}" in NOT_FLAGS:
            out.append(f"{prefix}.{name}")  # a whole nested model set by a command
        elif isinstance(args[0], type) and issubclass(args[0], BaseModel):
            out += _leaf_paths(args[0], f"{prefix}.{name}")
        else:
            out.append(f"{prefix}.{name}")
    return out


def _all_fields() -> list[str]:
    return [p for s in SECTIONS for p in _leaf_paths(EstimateInputs.model_fields[s].annotation, s)]


def _model_of(path: str) -> tuple[type[BaseModel], str]:
    *parents, name = path.split(".")
    model: type[BaseModel] = EstimateInputs
    for part in parents:
        ann = model.model_fields[part].annotation
        model = next(a for a in (*typing.get_args(ann), ann) if isinstance(a, type))
    return model, name


def test_every_field_is_a_flag_but_text():
    paths = {f.path for f in input_flags()}
    assert len(paths) == len(input_flags())  # one flag per field
    assert len({f.option for f in input_flags()}) == len(input_flags())
    for path in _all_fields():
        if path in paths:
            continue
        if path in NOT_FLAGS:
            continue
        model, name = _model_of(path)
        assert field_spec(model, name).kind == "str", f"{path} has no flag"
    assert set(skipped_fields()) == set(_all_fields()) - paths
    assert set(skipped_fields()) == {
        "model.name", "hardware.gpu.id", "hardware.gpu.name", "hardware.gpu.vendor",
        "hardware.gpu.price_as_of", "hardware.gpu.price_source", "hardware.gpu.achievable_source",
        "hardware.gpu.achievable_as_of", "hardware.price_origin", "data.length_histogram",
    }  # fmt: skip


def test_first_release_names_kept():
    for option, path in FIRST_RELEASE.items():
        assert FLAGS[option].path == path


def _estimate_actions() -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {o: a for a in sub.choices["estimate"]._actions for o in a.option_strings}


@pytest.mark.parametrize("option", sorted(FLAGS))
def test_help_is_the_fields(option):
    """The flag's help is the field's own help, with its unit, range and default."""
    action = _estimate_actions()[option]
    flag = FLAGS[option]
    model, name = _model_of(flag.path)
    spec = field_spec(model, name)
    text = action.help.replace("%%", "%")
    assert text.startswith(spec.tooltip + " [")
    facts = text[len(spec.tooltip) + 2 : -1]
    if flag.kind == "number":
        low = f"{spec.minimum:,.0f}" if spec.minimum == int(spec.minimum) else f"{spec.minimum:g}"
        assert facts.startswith(("over " if spec.exclusive_min else "") + low) or "e" in facts
        assert f" to {'under ' if spec.exclusive_max else ''}" in facts
        if spec.unit:
            assert f" {spec.unit};" in facts
    if flag.kind == "choice":
        assert set(action.type.choices) == set(spec.choices)
    assert "default " in facts
    if spec.optional:
        assert "'none' clears it" in facts


def test_help_prints_every_flag(capsys):
    assert main(["estimate", "--help"]) == 0
    out = capsys.readouterr().out
    for option in FLAGS:
        assert f"  {option}" in out
    assert "35–55%" in out  # a '%' in a field's help survives argparse's formatting


def _other_value(option: str) -> tuple[str, object]:
    """A valid text for the flag whose value differs from the default, and that value."""
    flag = FLAGS[option]
    spec = flag.spec
    if flag.kind in ("bool", "bool_choice"):
        raise AssertionError("booleans are tested by --flag / --no-flag")
    if flag.kind == "choice":
        value = next(c for c in spec.choices if c != spec.default)
        return value, value
    if flag.kind == "list":
        return "q_proj,down_proj", ["q_proj", "down_proj"]
    lo, hi = spec.minimum, spec.maximum
    if spec.kind == "int":
        value = int(lo) + 1 if spec.default != int(lo) + 1 else int(lo) + 2
        value = min(value, int(hi))
        return str(value), value
    value = hi if spec.default != hi and not spec.exclusive_max else (lo + hi) / 2
    return repr(value), value


def _dig(doc: dict, path: str):
    for part in path.split("."):
        doc = doc[part]
    return doc


def _run(capsys, *argv: str) -> dict:
    rc = main(["estimate", *argv, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)["inputs"]


@pytest.mark.parametrize("option", sorted(FLAGS))
def test_each_flag_sets_its_field(option, capsys):
    flag = FLAGS[option]
    extra = COMPANIONS.get(option, [])
    if flag.kind in ("bool", "bool_choice"):
        for argv, on in (([option], True), ([f"--no-{option[2:]}"], False)):
            inputs = _run(capsys, *extra, *argv)
            want = on if flag.kind == "bool" else ("full" if on else "none")
            assert _dig(inputs, flag.path) == want
        return
    text, value = VALUES.get(option) or _other_value(option)
    inputs = _run(capsys, *extra, option, text)
    assert _dig(inputs, flag.path) == value
    for other, implied in flag.implies.items():
        assert _dig(inputs, other) == implied


@pytest.mark.parametrize("option", sorted(o for o, f in FLAGS.items() if f.spec.optional))
def test_optional_flags_take_none(option, capsys, tmp_path):
    flag = FLAGS[option]
    text, value = _other_value(option)
    path = tmp_path / "set.ftcost"
    inputs = _run(capsys, option, text, "--save", str(path))
    assert _dig(inputs, flag.path) == value
    for word in ("none", "None", "null", " NULL "):
        assert _dig(_run(capsys, str(path), option, word), flag.path) is None


def test_values_people_write(capsys):
    i = _run(capsys, "--examples", "2e4", "--price", "-0", "--method", "QLoRA", "--epochs", "1_5")
    assert i["data"]["num_examples"] == 20_000 and isinstance(i["data"]["num_examples"], int)
    assert i["hardware"]["gpu"]["on_demand_usd_per_hour"] == 0.0
    assert str(i["hardware"]["gpu"]["on_demand_usd_per_hour"]) == "0.0"  # no sign on zero
    assert i["training"]["method"] == "qlora"
    assert i["data"]["epochs"] == 15
    i = _run(capsys, "--method", "full_bf16_adamw", "--targets", " q_proj , v_proj ")
    assert i["training"]["method"] == "full_bf16_adamw"  # the file's own names work too
    assert i["training"]["lora_targets"] == ["q_proj", "v_proj"]


def test_an_explicit_flag_wins_over_an_implied_one(capsys):
    i = _run(capsys, "--tokens", "1e8", "--data-mode", "examples")
    assert (i["data"]["mode"], i["data"]["total_tokens"]) == ("examples", 1e8)
    i = _run(capsys, "--gpus", "4", "--auto-gpu-count")
    assert i["training"]["auto_gpu_count"] is True and i["training"]["num_gpus"] == 4


def test_gpu_then_its_fields(capsys):
    i = _run(capsys, "--gpu", "L4", "--gpu-memory-gib", "48", "--price", "0.5")
    gpu = i["hardware"]["gpu"]
    assert (gpu["name"], gpu["memory_gib"], gpu["on_demand_usd_per_hour"]) == ("L4", 48, 0.5)


def test_compare_refuses_one_gpus_flags(capsys):
    assert main(["compare", "--gpu-memory-gib", "48"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ftcost: error: --gpu-memory-gib describe one GPU")
    assert err.count("\n") == 1


def test_out_of_range_names_the_field_the_flag_and_the_range(capsys):
    assert main(["estimate", "--tokens", "-5"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ftcost: error: invalid value for data.total_tokens (--tokens): Input should be greater "
        "than or equal to 1 (got -5.0; it takes 1 to 1e15 tokens)\n"
    )
    assert main(["estimate", "--mfu-band", "1"]) == 2
    assert "(got 1.0; it takes 0 to under 1)" in capsys.readouterr().err
