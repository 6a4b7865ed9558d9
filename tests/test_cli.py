"""The headless CLI, run in-process through ``main([...])`` (and once as ``python -m``)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ftcost_gui import __version__
from ftcost_gui.cli import main
from ftcost_gui.cli.documents import estimate_document, to_json
from ftcost_gui.cli.estimate_text import LABEL_WIDTH
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.units import fmt_flops, fmt_gib, fmt_usd
from ftcost_gui.io.catalog_store import CatalogStore
from ftcost_gui.io.estimate_file import dumps_estimate, load_estimate, save_estimate
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

ROOT = Path(__file__).resolve().parents[1]
ARTICLE_FLAGS = [
    "--model", "qwen2.5-7b", "--params", "7.62e9", "--tokens", "6e7", "--method", "full",
    "--checkpointing", "--gpu", "H100 SXM", "--mfu", "0.4",
]  # fmt: skip
REQUIRED_GPUS = (
    "H100 SXM", "H200 SXM", "A100 80GB SXM", "A100 40GB", "L40S", "L4", "RTX 4090", "MI300X",
)  # fmt: skip
PRESET_IDS = ("qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-72b", "llama-2-7b", "llama-2-70b")

# Keys docs/cli.md documents; the JSON must carry them and the doc must name them.
DOCUMENTED_KEYS = (
    "params.total",
    "params.trainable",
    "tokens.tokens_processed",
    "tokens.useful_tokens",
    "flops.per_token",
    "flops.total_flops",
    "memory.weights_bytes",
    "memory.gradients_bytes",
    "memory.master_bytes",
    "memory.optimizer_bytes",
    "memory.adapters_bytes",
    "memory.activations_bytes",
    "memory.logits_bytes",
    "memory.buffers_bytes",
    "memory.overhead_bytes",
    "memory.reserve_bytes",
    "memory.peak_allocated_bytes",
    "memory.peak_reserved_bytes",
    "memory.peak_phase",
    "memory.total_bytes",
    "memory.usable_bytes",
    "memory.capacity_bytes",
    "memory.fits",
    "memory.gpus_needed",
    "time.num_gpus",
    "time.compute_gpu_hours",
    "time.train_wall_s",
    "time.held_wall_s",
    "time.held_gpu_hours",
    "time.tokens_per_s_per_gpu",
    "cost.on_demand_usd",
    "cost.spot_usd",
    "cost.spot_factor",
    "cost.take_spot",
    "cost.low_usd",
    "cost.high_usd",
    "project.total_usd",
    "warnings",
)


def run_json(capsys, *argv: str) -> dict:
    rc = main(["estimate", *argv, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert err == ""
    return json.loads(out)


def expected_json(inputs: EstimateInputs) -> dict:
    """What the CLI should print for these inputs, computed without the CLI."""
    return json.loads(to_json(estimate_document(inputs, estimate(inputs))))


def dig(doc: dict, dotted: str):
    for part in dotted.split("."):
        doc = doc[part]
    return doc


def nondefault_inputs() -> EstimateInputs:
    preset = builtin_presets().find("qwen2.5-7b")
    gpu = builtin_catalog().find("h100-sxm").to_spec()
    return EstimateInputs.model_validate(
        {
            "model": preset.spec.model_dump(),
            "data": {"mode": "tokens", "total_tokens": 6e7, "max_seq_len": 4096},
            "training": {"method": "full_amp_adamw", "checkpointing": "full", "sharding": "zero2"},
            "hardware": {"gpu": gpu.model_dump()},
            "efficiency": {"mfu": 0.4},
            "project": {"planned_runs": 3},
        }
    )


# --- The article's example --------------------------------------------------------------------


def test_article_example_gpu_hours(capsys):
    doc = run_json(capsys, *ARTICLE_FLAGS)
    r, i = doc["result"], doc["inputs"]
    assert i["model"]["name"] == "Qwen2.5-7B"
    assert i["model"]["num_layers"] == 28  # --model's architecture kept under --params
    assert i["model"]["param_count_override"] == 7.62e9
    assert i["data"] == {**i["data"], "mode": "tokens", "total_tokens": 6e7}
    assert r["params"]["total"] == pytest.approx(7.62e9)
    assert r["tokens"]["tokens_processed"] == pytest.approx(6e7)
    # Article 000: 8·N·D ÷ (989 TFLOPS × 0.4) ≈ 2.6 GPU-hours.
    assert r["simple"]["flop_coefficient"] == 8
    assert 2.55 <= r["simple"]["gpu_hours"] <= 2.70
    # The detailed model: matmul FLOPs (no embedding lookup) + attention + what checkpointing
    # really recomputes (the decoder layers without their down projections, not the head:
    # measured, docs/model.md), on 2 GPUs. ZeRO-3 over NVLink moves, per step of 8
    # micro-batches, two all-gathers of the bf16 weights and a reduce-scatter of the bf16
    # gradients, each (n−1)/n = 1/2 of 2 B × 7.62e9: 8 × 3 × 7.62e9 B = 183 GB at 450 GB/s (900
    # both ways) = 0.41 s, all hidden by prefetch behind a ~3.3 s step.
    assert 3.1e18 <= r["flops"]["total_flops"] <= 3.3e18
    assert r["memory"]["gpus_needed"] == 2
    assert r["time"]["num_gpus"] == 2
    assert r["time"]["comm_bytes_per_step"] == pytest.approx(8 * 3 * 0.5 * 2 * 7.62e9)
    assert r["time"]["comm_s_per_step"] == pytest.approx(8 * 3 * 0.5 * 2 * 7.62e9 / 450e9)
    assert r["time"]["comm_overhead"] == 0
    hours = r["flops"]["total_flops"] / (989e12 * 0.4) / 3600
    assert r["time"]["compute_gpu_hours"] == pytest.approx(hours)
    assert 2.1 <= r["time"]["compute_gpu_hours"] <= 2.4


def test_params_alone_keeps_default_architecture(capsys):
    doc = run_json(capsys, "--params", "7.62e9")
    default = EstimateInputs().model
    assert doc["inputs"]["model"]["num_layers"] == default.num_layers == 32
    assert doc["inputs"]["model"]["hidden_size"] == 4096
    assert doc["inputs"]["model"]["name"] == default.name
    assert doc["result"]["params"]["total"] == pytest.approx(7.62e9)


def test_model_by_name_case_insensitive(capsys):
    doc = run_json(capsys, "--model", "LLAMA-2-70B")
    assert doc["inputs"]["model"]["name"] == "Llama-2-70B"
    assert doc["result"]["params"]["total"] == 68_976_648_192
    assert doc["inputs"]["model"]["param_count_override"] is None


# --- JSON output ------------------------------------------------------------------------------


def test_json_has_documented_keys(capsys):
    doc = run_json(capsys, *ARTICLE_FLAGS)
    assert set(doc) == {"format", "version", "inputs", "result"}
    assert doc["format"] == "ftcost-result"
    assert doc["version"] == 1
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for key in DOCUMENTED_KEYS:
        dig(doc["result"], key)  # KeyError if missing
        assert f"`{key}`" in docs, f"docs/cli.md does not document {key}"
    mem = doc["result"]["memory"]
    parts = sum(v for k, v in mem.items() if k.endswith("_bytes") and k.split("_bytes")[0] in {
        "weights", "gradients", "master", "optimizer", "adapters", "activations", "logits",
        "buffers", "reserve", "overhead"})  # fmt: skip
    assert parts == pytest.approx(mem["total_bytes"])
    assert mem["fits"] is True
    assert mem["total_bytes"] <= mem["usable_bytes"]
    assert doc["result"]["cost"]["spot_usd"] < doc["result"]["cost"]["on_demand_usd"]


def test_json_equals_core_estimate(capsys):
    doc = run_json(capsys, *ARTICLE_FLAGS)
    inputs = EstimateInputs.model_validate(doc["inputs"])
    assert doc == expected_json(inputs)
    assert inputs.hardware.gpu == builtin_catalog().find("H100 SXM").to_spec()


def test_nonfinite_floats_serialize_as_null():
    inputs = EstimateInputs()
    r = estimate(inputs)
    broken = r.model_copy(update={"cost": r.cost.model_copy(update={"high_usd": math.inf})})
    text = to_json(estimate_document(inputs, broken))
    assert "Infinity" not in text and "NaN" not in text

    def reject(name: str):
        raise AssertionError(f"non-standard JSON constant {name}")

    doc = json.loads(text, parse_constant=reject)
    assert doc["result"]["cost"]["high_usd"] is None
    assert doc["result"]["cost"]["low_usd"] == pytest.approx(r.cost.low_usd)


# --- Files and flags --------------------------------------------------------------------------


def test_file_round_trip(tmp_path, capsys):
    inputs = nondefault_inputs()
    path = tmp_path / "run.ftcost"
    save_estimate(path, inputs)
    doc = run_json(capsys, str(path))
    assert EstimateInputs.model_validate(doc["inputs"]) == inputs
    assert doc == expected_json(inputs)
    assert doc["result"]["tokens"]["seq_len"] == 4096


def test_flags_override_file(tmp_path, capsys):
    path = tmp_path / "run.ftcost"
    save_estimate(path, nondefault_inputs())
    flags = ["--mfu", "0.5", "--gpu", "a100-80gb-sxm", "--tokens", "1e8", "--runs", "7"]
    doc = run_json(capsys, str(path), *flags)
    i = doc["inputs"]
    assert i["efficiency"]["mfu"] == 0.5
    assert i["hardware"]["gpu"]["name"] == "A100 80GB SXM"
    assert i["data"]["total_tokens"] == 1e8
    assert i["project"]["planned_runs"] == 7
    # Untouched values come from the file, not the defaults.
    assert i["data"]["max_seq_len"] == 4096
    assert i["training"]["sharding"] == "zero2"
    assert i["model"]["name"] == "Qwen2.5-7B"
    assert doc["result"]["time"]["peak_flops_per_s"] == pytest.approx(312e12)
    assert doc == expected_json(EstimateInputs.model_validate(i))


def test_params_override_keeps_file_architecture(tmp_path, capsys):
    path = tmp_path / "run.ftcost"
    save_estimate(path, nondefault_inputs())
    doc = run_json(capsys, str(path), "--params", "8e9")
    assert doc["inputs"]["model"]["num_layers"] == 28
    assert doc["result"]["params"]["total"] == pytest.approx(8e9)


@pytest.mark.parametrize(
    ("flag", "method"),
    [
        ("full", "full_amp_adamw"),
        ("full-8bit", "full_adamw_8bit"),
        ("full-bf16", "full_bf16_adamw"),
        ("lora", "lora"),
        ("qlora", "qlora"),
    ],
)
def test_method_flags(capsys, flag, method):
    doc = run_json(capsys, "--method", flag)
    assert doc["inputs"]["training"]["method"] == method


def test_lora_flags(capsys):
    doc = run_json(capsys, "--model", "llama-2-7b", "--method", "lora", "--rank", "64",
                   "--targets", "q_proj, v_proj")  # fmt: skip
    assert doc["inputs"]["training"]["lora_targets"] == ["q_proj", "v_proj"]
    assert doc["inputs"]["training"]["lora_rank"] == 64
    # r·(d_in + d_out) per matrix: q 4096→4096, v 4096→4096, 32 layers.
    assert doc["result"]["params"]["adapter"] == 64 * (8192 + 8192) * 32
    assert doc["result"]["params"]["trainable"] == doc["result"]["params"]["adapter"]


def test_training_and_data_flags(capsys):
    doc = run_json(
        capsys,
        "--examples", "5000", "--mean-tokens", "700", "--epochs", "2", "--seq-len", "1024",
        "--padding", "max_length", "--length-cv", "0", "--no-checkpointing", "--attention",
        "eager", "--micro-batch", "4",
        "--grad-accum", "2", "--gpus", "4", "--sharding", "zero1", "--offload",
        "--step-time", "1.5",
    )  # fmt: skip
    d, t = doc["inputs"]["data"], doc["inputs"]["training"]
    assert (d["mode"], d["num_examples"], d["mean_tokens_per_example"]) == ("examples", 5000, 700)
    assert (d["epochs"], d["max_seq_len"], d["padding"]) == (2, 1024, "max_length")
    assert t["checkpointing"] == "none"
    assert t["attention"] == "eager"
    assert (t["micro_batch"], t["grad_accum"]) == (4, 2)
    assert (t["num_gpus"], t["auto_gpu_count"], t["sharding"]) == (4, False, "zero1")
    assert t["cpu_offload_optimizer"] is True
    r = doc["result"]
    assert r["time"]["num_gpus"] == 4
    assert r["tokens"]["useful_tokens"] == 5000 * 700 * 2
    assert r["tokens"]["useful_fraction"] == pytest.approx(700 / 1024)
    assert r["memory"]["cpu_offloaded_bytes"] > 0
    assert r["step_check"]["effective_batch"] == 4 * 2 * 4
    assert r["step_check"]["step_time_s"] == 1.5


def test_price_flags(capsys):
    doc = run_json(capsys, "--gpu", "L4", "--price", "0.9", "--spot-price", "0.3")
    c = doc["result"]["cost"]
    assert c["on_demand_usd_per_hour"] == 0.9
    assert c["spot_usd_per_hour"] == 0.3
    assert c["on_demand_usd"] == pytest.approx(doc["result"]["time"]["held_gpu_hours"] * 0.9)
    doc = run_json(capsys, "--spot-price", "none")
    assert doc["inputs"]["hardware"]["gpu"]["spot_usd_per_hour"] is None
    assert doc["result"]["cost"]["spot_usd"] is None
    assert doc["result"]["cost"]["take_spot"] is None


def test_save_writes_the_inputs(tmp_path, capsys):
    path = tmp_path / "out" / "saved.ftcost"
    doc = run_json(capsys, *ARTICLE_FLAGS, "--save", str(path))
    assert load_estimate(path) == EstimateInputs.model_validate(doc["inputs"])


# --- Table output -----------------------------------------------------------------------------


def parse_table(out: str) -> dict[str, dict[str, str]]:
    """{section heading: {label: value}} from the default report."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in out.splitlines():
        if line.startswith("  "):
            current[line[2 : 2 + LABEL_WIDTH].strip()] = line[2 + LABEL_WIDTH :]
        elif line:
            current = sections.setdefault(line.split(" (")[0], {})
    return sections


def test_default_table(capsys):
    assert main(["estimate", *ARTICLE_FLAGS]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    r = estimate(EstimateInputs.model_validate(run_json(capsys, *ARTICLE_FLAGS)["inputs"]))
    t = parse_table(out)
    for heading in ("Model & data", "Memory per GPU", "FLOPs", "Time", "Cost per run", "Project"):
        assert t[heading], heading
    mem = t["Memory per GPU"]
    assert mem["Device total"] == (
        f"{fmt_gib(r.memory.total_bytes, 2)} (what nvidia-smi shows; it must fit the GPU's memory)"
    )
    assert mem["Peak allocated"].startswith(fmt_gib(r.memory.peak_allocated_bytes, 2))
    assert mem["Weights"] == fmt_gib(r.memory.weights_bytes)
    assert mem["Optimizer moments"] == fmt_gib(r.memory.optimizer_bytes)
    assert mem["GPUs needed"] == "2"
    assert mem["Fits"].startswith("yes: device total ≤ GPU memory, ")
    assert t["FLOPs"]["Total"] == fmt_flops(r.flops.total_flops) == "3.20e18 FLOPs"
    assert t["Time"]["Compute"] == f"{r.time.compute_gpu_hours:,.2f} GPU-h"
    assert t["Cost per run"]["On-demand"] == f"{fmt_usd(r.cost.on_demand_usd)} at $3.00/GPU-h"
    assert "-> take spot" in t["Cost per run"]["Spot"]
    assert t["Cost per run"]["Spot"].startswith(fmt_usd(r.cost.spot_usd))
    assert t["Project"]["Total"].startswith(fmt_usd(r.project.total_usd))
    assert "Warnings" not in t


def test_table_shows_warnings_and_missing_spot(capsys):
    rc = main(["estimate", "--model", "llama-2-70b", "--gpu", "l4", "--gpus", "1",
               "--sharding", "none"])  # fmt: skip
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "NO: device total > GPU memory, short by" in out
    assert "no spot price" in out
    assert "Warnings\n  - Does not fit" in out


# --- Listings ---------------------------------------------------------------------------------


def test_gpus_table(capsys):
    assert main(["gpus"]) == 0
    out, _ = capsys.readouterr()
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()[2:] if line.strip()}
    catalog = builtin_catalog()
    for name in REQUIRED_GPUS:
        gpu = catalog.find(name)
        assert gpu is not None, name
        assert name in rows[gpu.id]
        assert f"{gpu.memory_gib:,.1f}" in rows[gpu.id]
    assert len([r for r in rows if r in {g.id for g in catalog.gpus}]) == len(catalog.gpus)


def test_gpus_json(capsys):
    assert main(["gpus", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "ftcost-gpus"
    by_name = {g["name"]: g for g in doc["gpus"]}
    assert set(REQUIRED_GPUS) <= set(by_name)
    assert by_name["H100 SXM"]["bf16_tflops"] == 989.0
    assert by_name["H100 SXM"]["memory_gib"] == 79.6


def test_models_table_and_json(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert main(["models", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    presets = builtin_presets()
    assert [m["id"] for m in doc["models"]] == [p.id for p in presets.models]
    assert set(PRESET_IDS) <= {m["id"] for m in doc["models"]}
    for m in doc["models"]:
        preset = presets.find(m["id"])
        assert m["params_total"] == preset.expected_total
        row = next(line for line in out.splitlines() if line.startswith(m["id"] + " "))
        assert f"{preset.expected_total:,}" in row
        assert f"{preset.spec.vocab_size:,}" in row


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"ftcost {__version__}"


# --- Bad input --------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _bad_files(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    good = dumps_estimate(nondefault_inputs()).encode()
    newer = json.loads(good)
    newer["version"] = 99
    return {
        "malformed": ([_write(tmp_path, "bad.ftcost", b"{not json")], "not valid JSON"),
        "truncated": ([_write(tmp_path, "cut.ftcost", good[: len(good) // 2])], "truncated"),
        "foreign": ([_write(tmp_path, "f.ftcost", b'{"format": "other"}')], "not an ftcost"),
        "newer": ([_write(tmp_path, "n.ftcost", json.dumps(newer).encode())], "newer ftcost"),
        "missing": ([str(tmp_path / "absent.ftcost")], "absent.ftcost does not exist."),
    }


BAD_FLAGS = {
    "unknown GPU": (["--gpu", "H100 SMX"], "unknown GPU 'H100 SMX'; did you mean 'H100 SXM'"),
    "unknown model": (["--model", "qwen-7b"], "unknown model 'qwen-7b'; did you mean"),
    "negative tokens": (["--tokens", "-5"], "data.total_tokens (--tokens)"),
    "mfu over 1": (["--mfu", "1.5"], "efficiency.mfu (--mfu)"),
    "bad target": (["--targets", "q_proj,nope"], "training.lora_targets"),
    "bad method": (["--method", "sgd"], "invalid choice: 'sgd'"),
    "tokens and examples": (["--tokens", "1e6", "--examples", "3"], "not allowed with"),
    "not a number": (["--tokens", "lots"], "argument --tokens"),
}


@pytest.mark.parametrize("case", sorted(BAD_FLAGS))
def test_bad_flags_one_line(capsys, case):
    argv, needle = BAD_FLAGS[case]
    assert main(["estimate", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ftcost: error: ")
    assert err.count("\n") == 1 and err.endswith("\n")
    assert needle in err
    assert "Traceback" not in err


@pytest.mark.parametrize("case", ["malformed", "truncated", "foreign", "newer", "missing"])
def test_bad_files_one_line(tmp_path, capsys, case):
    argv, needle = _bad_files(tmp_path)[case]
    assert main(["estimate", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ftcost: error: ")
    assert err.count("\n") == 1
    assert needle in err
    assert Path(argv[0]).name in err
    assert "Traceback" not in err


def test_no_command(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ftcost: error: ") and err.count("\n") == 1


# --- Module entry -----------------------------------------------------------------------------


def test_python_dash_m(tmp_path):
    env = {**os.environ, "FTCOST_CONFIG_DIR": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "ftcost_gui.cli", "estimate", "--model", "llama-2-7b", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["result"]["params"]["total"] == 6_738_415_616
    proc = subprocess.run(
        [sys.executable, "-m", "ftcost_gui.cli", "estimate", "--gpu", "nope"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("ftcost: error: unknown GPU 'nope'")
    assert "Traceback" not in proc.stderr


ENDING = r"""
import gc, json, sys
from ftcost_gui.cli import main
before = gc.get_freeze_count()
given = main(["--version"])  # a caller's argv: the caller goes on, nothing frozen
after_given = gc.get_freeze_count()
sys.argv = ["ftcost", "--version"]
entry = main()  # the process's entry: it ends now
print(json.dumps([before, after_given, gc.get_freeze_count(), given, entry]))
"""


def test_the_process_entry_leaves_its_objects_to_the_os_when_it_ends(tmp_path):
    """``main()`` without argv ends the process: its objects are frozen out of the collector,
    so Python's exit does not collect every cycle it finds (issue 17: ~0.2-0.3 s CPU after a
    200-scenario report). Called with argv (tests, other callers) it freezes nothing."""
    env = {**os.environ, "FTCOST_CONFIG_DIR": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", ENDING], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    before, after_given, after_entry, given, entry = json.loads(proc.stdout.splitlines()[-1])
    assert given == entry == 0
    assert before == after_given == 0
    assert after_entry > 1000  # every module, class and function loaded


# --- compare, gpus --catalog, catalogs ----------------------------------------------------------

COMPARE_FLAGS = ["--model", "llama-2-7b", "--method", "qlora", "--tokens", "1e8"]


def _config(tmp_path: Path) -> Path:
    return tmp_path / "config"


def _user_catalog(name: str = "Lab", active: bool = True) -> None:
    from ftcost_gui.core.catalog import GpuCatalog
    from ftcost_gui.io.catalog_store import CatalogStore

    builtin = builtin_catalog()
    cheap = builtin.find("a100-80gb-sxm").model_copy(
        update={"on_demand_usd_per_hour": 0.05, "spot_usd_per_hour": None}
    )
    box = builtin.find("rtx-4090").model_copy(update={"id": "lab-box", "name": "Lab Box"})
    store = CatalogStore()
    store.save(GpuCatalog(name=name, gpus=(cheap, box)))
    if active:
        store.set_active(name)


def _compare_rows():
    """The core's rows for COMPARE_FLAGS on the built-in catalog."""
    from ftcost_gui.core.catalog import merge_catalogs
    from ftcost_gui.core.compare import compare_gpus
    from ftcost_gui.core.defaults import new_inputs

    rows = merge_catalogs(builtin_catalog())
    doc = new_inputs(rows).model_dump()  # a new estimate: the active (here built-in) catalog's
    doc["model"] = builtin_presets().find("llama-2-7b").spec.model_dump()
    doc["data"].update(mode="tokens", total_tokens=1e8)
    doc["training"]["method"] = "qlora"
    inputs = EstimateInputs.model_validate(doc)
    return inputs, compare_gpus(inputs, rows)


def test_compare_json_equals_the_core(capsys):
    from ftcost_gui.core.compare import cheapest_fitting, rank_by_cost

    assert main(["compare", *COMPARE_FLAGS, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    doc = json.loads(out)
    inputs, rows = _compare_rows()
    assert doc["format"] == "ftcost-compare" and doc["version"] == 1
    assert doc["catalog"] == "Built-in" and doc["ranked_by"] == "cost"
    assert EstimateInputs.model_validate(doc["inputs"]) == inputs
    ranked = rank_by_cost(rows)
    assert [r["gpu_id"] for r in doc["rows"]] == [r.gpu_id for r in ranked]
    assert doc["cheapest_fitting"] == cheapest_fitting(rows).gpu_id == doc["rows"][0]["gpu_id"]
    for got, want in zip(doc["rows"], ranked, strict=True):
        assert got["on_demand_usd"] == want.on_demand_usd
        assert got["wall_clock_s"] == want.wall_clock_s
        assert got["held_gpu_hours"] == want.held_gpu_hours
        assert got["achieved_tflops"] == want.achieved_tflops
        assert got["usd_per_1e18_flops"] == want.usd_per_1e18_flops
        assert got["spot_usd"] == want.spot_usd
        assert got["num_gpus"] == want.num_gpus
        assert got["fits"] is want.fits
    assert [r["rank"] for r in doc["rows"]] == list(range(1, len(rows) + 1))  # all fit
    docs = (ROOT / "docs" / "catalogs.md").read_text(encoding="utf-8")
    for key in doc["rows"][0]:
        assert f"`{key}`" in docs, f"docs/catalogs.md does not document {key}"


def test_compare_table(capsys):
    assert main(["compare", *COMPARE_FLAGS]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    from ftcost_gui.core.compare import cheapest_fitting, rank_by_cost

    _, rows = _compare_rows()
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("RANK"))
    body = lines[head + 2 : head + 2 + len(rows)]
    ranked = rank_by_cost(rows)
    for i, (line, r) in enumerate(zip(body, ranked, strict=True)):
        assert line.split()[0] == str(i + 1)
        assert r.gpu_name in line
        assert fmt_usd(r.on_demand_usd) in line
        assert f"{r.held_gpu_hours:,.2f}" in line
    best = cheapest_fitting(rows)
    assert body[0].split()[1] == "*" and best.gpu_name in body[0]
    assert sum(line.split()[1] == "*" for line in body) == 1
    assert f"Cheapest that fits: 1 × {best.gpu_name}" in out
    assert "T4 (FP16)" in out  # no BF16: flagged


def test_compare_by_time_and_non_fitting(capsys):
    argv = ["compare", "--model", "llama-2-70b", "--method", "full", "--gpus", "8", "--by", "time"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ranked_by"] == "wall_clock"
    fits = [r["fits"] for r in doc["rows"]]
    assert True in fits and False in fits and fits == sorted(fits, reverse=True)
    walls = [r["wall_clock_s"] for r in doc["rows"] if r["fits"]]
    assert walls == sorted(walls)
    assert all(r["rank"] is None for r in doc["rows"] if not r["fits"])
    assert doc["fastest_fitting"] == doc["rows"][0]["gpu_id"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    l4 = next(line for line in out.splitlines() if " L4 " in f" {line} ")
    assert l4.split()[0] == "-" and " no " in l4 and "(needs" in l4


def test_compare_with_a_file_and_no_fit_at_all(tmp_path, capsys):
    path = tmp_path / "run.ftcost"
    save_estimate(path, nondefault_inputs())
    assert main(["compare", str(path), "--model", "llama-2-70b", "--gpus", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["inputs"]["data"]["max_seq_len"] == 4096  # from the file
    assert doc["cheapest_fitting"] is None
    assert main(["compare", str(path), "--model", "llama-2-70b", "--gpus", "1"]) == 0
    assert "No GPU of the catalog fits" in capsys.readouterr().out


def test_compare_refuses_price_flags(capsys):
    assert main(["compare", "--price", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("ftcost: error: --price and --spot-price")
    assert err.count("\n") == 1


def test_user_catalog_overrides_builtin_rows(tmp_path, capsys):
    _user_catalog("Lab")
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()[2:] if line.strip()}
    assert rows["a100-80gb-sxm"].rstrip().endswith("user:Lab (overrides)")
    assert " 0.05 " in rows["a100-80gb-sxm"]
    assert rows["lab-box"].rstrip().endswith("user:Lab")
    assert rows["h100-sxm"].rstrip().endswith("built-in")
    assert "Catalog 'Lab'" in out
    # JSON, and --catalog Built-in for the built-in rows alone.
    assert main(["gpus", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["catalog"] == "Lab"
    by_id = {g["id"]: g for g in doc["gpus"]}
    assert by_id["a100-80gb-sxm"]["origin"] == "user:Lab"
    assert by_id["a100-80gb-sxm"]["overrides_builtin"] is True
    assert by_id["a100-80gb-sxm"]["on_demand_usd_per_hour"] == 0.05
    assert len(doc["gpus"]) == len(builtin_catalog().gpus) + 1
    assert main(["gpus", "--catalog", "built-in", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {g["origin"] for g in doc["gpus"]} == {"built-in"}
    # compare and estimate --gpu use the effective catalog too.
    assert main(["compare", *COMPARE_FLAGS, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cheapest_fitting"] == "a100-80gb-sxm"
    assert doc["rows"][0]["origin"] == "user:Lab"
    assert main(["estimate", "--gpu", "lab box", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"]["hardware"]["gpu"]["id"] == "lab-box"
    assert main(["estimate", "--gpu", "a100-80gb-sxm", "--catalog", "Built-in", "--json"]) == 0
    gpu = json.loads(capsys.readouterr().out)["inputs"]["hardware"]["gpu"]
    assert gpu["on_demand_usd_per_hour"] == 1.5


def test_gpus_catalog_by_name_without_activating(tmp_path, capsys):
    _user_catalog("Team", active=False)
    assert main(["gpus", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["catalog"] == "Built-in"
    assert main(["gpus", "--catalog", "TEAM", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["catalog"] == "Team" and "lab-box" in {g["id"] for g in doc["gpus"]}


@pytest.mark.parametrize("command", ["gpus", "compare", "estimate"])
def test_unknown_catalog_one_line(tmp_path, capsys, command):
    _user_catalog("Team", active=False)
    assert main([command, "--catalog", "Teem"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert (
        err
        == "ftcost: error: unknown catalog 'Teem'; did you mean 'Team'? (see 'ftcost catalogs')\n"
    )


def test_catalogs_listing(tmp_path, capsys):
    assert main(["catalogs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].split() == [
        "*",
        "Built-in",
        str(len(builtin_catalog().gpus)),
        "(read-only)",
    ]
    _user_catalog("Lab")
    _user_catalog("Other", active=False)
    assert main(["catalogs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3].split() == ["*", "Lab", "2", "lab.json"]
    assert lines[4].split() == ["Other", "2", "other.json"]
    assert main(["catalogs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["active"] == "Lab"
    assert [c["name"] for c in doc["catalogs"]] == ["Lab", "Other"]
    assert Path(doc["folder"]) == _config(tmp_path) / "catalogs"


@pytest.mark.parametrize(
    "command", [["gpus"], ["catalogs"], ["compare", *COMPARE_FLAGS], ["estimate", "--gpu", "l4"]]
)
def test_corrupt_catalog_warns_once_and_carries_on(tmp_path, capsys, command):
    _user_catalog("Lab", active=False)
    folder = _config(tmp_path) / "catalogs"
    bad = folder / "broken.json"
    bad.write_bytes(b'{"format": "ftcost-gpu-catalog", "version": 1, "name": "Bro')
    assert main(command) == 0
    out, err = capsys.readouterr()
    assert out
    assert err.count("\n") == 1
    assert err.startswith("ftcost: warning: catalog file broken.json is not valid JSON")
    moved = [p for p in folder.iterdir() if p.name.startswith("broken.json.corrupt-")]
    assert len(moved) == 1 and str(moved[0]) in err
    assert not bad.exists()
    assert main(command) == 0  # told once: the file is out of the way now
    assert capsys.readouterr().err == ""
    assert main(["gpus", "--catalog", "Lab"]) == 0  # the rest still works
    assert "lab-box" in capsys.readouterr().out


def test_corrupt_active_catalog_falls_back_to_builtin(tmp_path, capsys):
    _user_catalog("Lab")
    (_config(tmp_path) / "catalogs" / "lab.json").write_text("garbage")
    assert main(["gpus", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["catalog"] == "Built-in"
    lines = err.splitlines()
    assert len(lines) == 2
    assert "lab.json is not valid JSON" in lines[0]
    assert "active catalog 'Lab' no longer exists; using the built-in catalog" in lines[1]


def test_estimate_of_a_file_without_gpu_reads_no_catalog(tmp_path, capsys):
    folder = _config(tmp_path) / "catalogs"
    folder.mkdir(parents=True)
    (folder / "broken.json").write_bytes(b"{")
    plan = tmp_path / "plan.ftcost"
    save_estimate(plan, EstimateInputs())
    assert main(["estimate", str(plan), "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert (folder / "broken.json").exists()


def test_a_new_estimate_takes_the_active_catalogs_prices(tmp_path, capsys):
    """Issue 11 observation 7: a new estimate (no FILE) is priced from the ACTIVE catalog, and
    says so, as the window's first estimate is."""
    store = CatalogStore(_config(tmp_path) / "catalogs")
    mine = store.create("Lab")
    row = builtin_catalog().find("h100-sxm").model_copy(update={"on_demand_usd_per_hour": 1.23})
    store.save(mine.model_copy(update={"gpus": (row,)}))
    store.set_active("Lab")
    assert main(["estimate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    hw = doc["inputs"]["hardware"]
    assert hw["gpu"]["on_demand_usd_per_hour"] == 1.23
    assert hw["price_origin"] == "user:Lab"
    assert doc["inputs"]["efficiency"]["mfu"] is None


def test_cli_docs_mention_the_new_commands():
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for text in ("ftcost compare", "--by", "ftcost catalogs", "--catalog NAME", "docs/catalogs.md"):
        assert text in docs, text


def test_model_from_a_local_config_json(tmp_path, capsys):
    import json as _json

    config = {
        "model_type": "llama",
        "num_hidden_layers": 32,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "intermediate_size": 11008,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
    }
    folder = tmp_path / "my-llama"
    folder.mkdir()
    (folder / "config.json").write_text(_json.dumps(config))
    assert main(["estimate", "--model", str(folder), "--json"]) == 0
    doc = _json.loads(capsys.readouterr().out)
    assert doc["result"]["params"]["total"] == 6_738_415_616


def test_model_path_with_a_broken_config_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama"}')
    assert main(["estimate", "--model", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ftcost: error: model ") and err.count("\n") == 1
    assert "Traceback" not in err
