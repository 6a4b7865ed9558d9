"""Generate tests/data/bad/: bad (and odd-but-valid) files of every kind ftcost reads.

    python tests/data/bad/make_bad_files.py          # rewrite the corpus and MANIFEST.json
    python tests/data/bad/make_bad_files.py --check  # exit 1 if the committed corpus differs

Families: estimate files, GPU catalogs, catalog CSV, config.json, safetensors. Each file has an
entry in MANIFEST.json: its family, whether ftcost must refuse it ("refused": one clear line,
the CLI exits 2) or accept it ("accepted": a sane result) and, for refusals, a few words the
message must contain. tests/gui/test_bad_files.py feeds every file through the CLI and the window.

Only small regular files are committed; what git cannot hold (FIFOs, devices, sparse 64 GiB
files) is made by the tests themselves (tests/io/test_loader.py).

The corpus does not follow today's code: estimate files are edits of the version-2 fixture
(tests/data/estimate_v2.ftcost, migrated on reading, so a new input field needs no new corpus),
catalogs are version-2 documents, and the CSV and config.json files are literals. A file that
stops giving its outcome is a compatibility break for users' old files, not a stale corpus.
"""

from __future__ import annotations

import copy
import json
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent


FAMILIES = ("estimate", "catalog", "csv", "config", "safetensors")
Files = dict[str, tuple[bytes, str, str]]  # name -> (content, "refused"/"accepted", needle)

HOSTILE = {
    "html": '<img src=x onerror="alert(1)"> [x](http://e.vil) | **b**',
    "escape": "\x1b[2J\x1b]0;pwned\x07\x1b[31mred",
    "bidi": "abc\u202edcba",
    "formula": '=HYPERLINK("http://e.vil","click")',
}


def js(doc: Any) -> bytes:
    return (json.dumps(doc, indent=1) + "\n").encode()


# --- estimate files ------------------------------------------------------------------------------


def good_estimate() -> dict[str, Any]:
    """The first scenario of the version-2 fixture, as a one-scenario version-2 document."""
    doc = json.loads((FIXTURES / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    return {**doc, "active": 0, "scenarios": doc["scenarios"][:1]}


def edited(change: Callable[[dict[str, Any]], None]) -> bytes:
    doc = good_estimate()
    change(doc)
    return js(doc)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node: Any = doc
        *parents, last = path.split(".")
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        key: Any = int(last) if isinstance(node, list) else last
        if value is _DELETE:
            del node[key]
        else:
            node[key] = value

    return change


_DELETE = object()
S0 = "scenarios.0.inputs"


def estimate_files() -> Files:
    good = js(good_estimate())
    v1 = json.loads((FIXTURES / "estimate_v1.ftcost").read_text(encoding="utf-8"))
    out: Files = {
        "empty.ftcost": (b"", "refused", "is not valid JSON"),
        "whitespace.ftcost": (b" \n\t\n", "refused", "is not valid JSON"),
        "truncated.ftcost": (good[: len(good) // 2], "refused", "corrupt or truncated"),
        "not-json.ftcost": (b"this is not json\n", "refused", "is not valid JSON"),
        "utf16.ftcost": (good.decode().encode("utf-16"), "accepted", ""),  # JSON allows UTF-16
        "latin1-bytes.ftcost": (b'{"format": "\xff\xfe"}', "refused", "is not valid JSON"),
        "array.ftcost": (b"[1, 2, 3]\n", "refused", "is not an ftcost estimate file"),
        "string.ftcost": (b'"ftcost-estimate"\n', "refused", "is not an ftcost estimate file"),
        "null.ftcost": (b"null\n", "refused", "is not an ftcost estimate file"),
        "foreign-format.ftcost": (
            js({"format": "ftcost-gpu-catalog", "version": 2}),
            "refused",
            "is not an ftcost estimate file",
        ),
        "no-version.ftcost": (edited(_set("version", _DELETE)), "refused", "no valid format"),
        "version-string.ftcost": (edited(_set("version", "3")), "refused", "no valid format"),
        "version-true.ftcost": (edited(_set("version", True)), "refused", "no valid format"),
        "version-zero.ftcost": (edited(_set("version", 0)), "refused", "no valid format"),
        "version-float.ftcost": (edited(_set("version", 3.0)), "refused", "no valid format"),
        "version-newer.ftcost": (edited(_set("version", 99)), "refused", "newer ftcost"),
        "nan.ftcost": (
            good.replace(b'"mfu": 0.35', b'"mfu": NaN'),
            "refused",
            "NaN, which is not a number",
        ),
        "infinity.ftcost": (
            good.replace(b'"total_tokens": 120000000.0', b'"total_tokens": Infinity'),
            "refused",
            "Infinity, which is not a number",
        ),
        "1e5000.ftcost": (
            good.replace(b'"total_tokens": 120000000.0', b'"total_tokens": 1e5000'),
            "refused",
            "beyond the range of a float",
        ),
        "huge-int.ftcost": (
            good.replace(b'"num_layers": 32', b'"num_layers": ' + b"9" * 5000),
            "refused",
            "is not valid JSON",
        ),
        "deep-nesting.ftcost": (b"[" * 10_000 + b"]" * 10_000, "refused", "is not valid JSON"),
        "scenarios-object.ftcost": (
            edited(_set("scenarios", {"a": 1})),
            "refused",
            "scenarios: Input should be a valid",
        ),
        "scenarios-empty.ftcost": (edited(_set("scenarios", [])), "refused", "scenarios"),
        "scenario-not-object.ftcost": (edited(_set("scenarios.0", 7)), "refused", "scenarios[0]"),
        "scenario-without-inputs.ftcost": (
            edited(_set("scenarios.0.inputs", _DELETE)),
            "refused",
            "scenarios[0].inputs is missing",
        ),
        "model-without-num-layers.ftcost": (
            edited(_set(f"{S0}.model.num_layers", _DELETE)),
            "refused",
            "scenarios[0].inputs.model.num_layers is missing",
        ),
        "no-hardware.ftcost": (
            edited(_set(f"{S0}.hardware", _DELETE)),
            "refused",
            "scenarios[0].inputs.hardware is missing",
        ),
        "gpu-without-price.ftcost": (
            edited(_set(f"{S0}.hardware.gpu.on_demand_usd_per_hour", _DELETE)),
            "refused",
            "gpu.on_demand_usd_per_hour is missing",
        ),
        "optional-omitted.ftcost": (
            edited(_set(f"{S0}.efficiency.comm_overhead", _DELETE)),
            "refused",
            "efficiency.comm_overhead is missing",
        ),
        "no-rl-ratio.ftcost": (
            edited(_set(f"{S0}.overheads.rl_generation_ratio", _DELETE)),
            "refused",
            "no scenarios[0].inputs.overheads.rl_generation_ratio",
        ),
        "rl-ratio-true.ftcost": (
            edited(_set(f"{S0}.overheads.rl_generation_ratio", True)),
            "refused",
            "rl_generation_ratio = True, which is not a number",
        ),
        "no-active.ftcost": (edited(_set("active", _DELETE)), "refused", "active is missing"),
        "unknown-field.ftcost": (
            edited(_set(f"{S0}.training.warp_drive", 9)),
            "refused",
            "training.warp_drive is not a field",
        ),
        "currency-eur.ftcost": (
            edited(_set(f"{S0}.hardware.gpu.currency", "EUR")),
            "refused",
            "gpu.currency is not a field",
        ),
        "unknown-top-level.ftcost": (edited(_set("results", {})), "refused", "'results'"),
        "layers-true.ftcost": (
            edited(_set(f"{S0}.model.num_layers", True)),
            "refused",
            "model.num_layers: Input should be a valid integer",
        ),
        "layers-float.ftcost": (
            edited(_set(f"{S0}.model.num_layers", 32.5)),
            "refused",
            "model.num_layers: Input should be a valid integer",
        ),
        "layers-string.ftcost": (
            edited(_set(f"{S0}.model.num_layers", "32")),
            "refused",
            "model.num_layers: Input should be a valid integer",
        ),
        "tokens-string.ftcost": (
            edited(_set(f"{S0}.data.total_tokens", "1e8")),
            "refused",
            "data.total_tokens: Input should be a valid number",
        ),
        "packing-one.ftcost": (
            edited(_set(f"{S0}.data.packing", 1)),
            "refused",
            "data.packing = 1, which is not true or false",
        ),
        "targets-string.ftcost": (
            edited(_set(f"{S0}.training.lora_targets", "q_proj")),
            "refused",
            "training.lora_targets",
        ),
        "targets-empty.ftcost": (
            edited(_set(f"{S0}.training.lora_targets", [])),
            "refused",
            "training.lora_targets",
        ),
        "targets-unknown.ftcost": (
            edited(_set(f"{S0}.training.lora_targets", ["warp_proj"])),
            "refused",
            "training.lora_targets",
        ),
        "method-unknown.ftcost": (
            edited(_set(f"{S0}.training.method", "sgd")),
            "refused",
            "training.method: Input should be",
        ),
        "name-not-text.ftcost": (
            edited(_set(f"{S0}.model.name", 7)),
            "refused",
            "model.name: Input should be a valid string",
        ),
        "tokens-negative.ftcost": (
            edited(_set(f"{S0}.data.total_tokens", -5.0)),
            "refused",
            "data.total_tokens: Input should be greater",
        ),
        "mfu-zero.ftcost": (
            edited(_set(f"{S0}.efficiency.mfu", 0.0)),
            "refused",
            "efficiency.mfu: Input should be greater",
        ),
        "mfu-above-one.ftcost": (
            edited(_set(f"{S0}.efficiency.mfu", 1.5)),
            "refused",
            "efficiency.mfu: Input should be less",
        ),
        "download-5e-324.ftcost": (
            edited(_set(f"{S0}.overheads.download_gb_per_s", 5e-324)),
            "refused",
            "overheads.download_gb_per_s: Input should be greater",
        ),
        "memory-zero.ftcost": (
            edited(_set(f"{S0}.hardware.gpu.memory_gib", 0.0)),
            "refused",
            "gpu.memory_gib: Input should be greater",
        ),
        "heads-not-dividing.ftcost": (
            edited(_set(f"{S0}.model.num_kv_heads", 5)),
            "refused",
            "num_kv_heads must divide",
        ),
        "experts-top-k-too-large.ftcost": (
            edited(
                lambda d: d["scenarios"][0]["inputs"]["model"].update(
                    num_experts=8, experts_per_token=9, expert_intermediate_size=1024
                )
            ),
            "refused",
            "experts_per_token must be between",
        ),
        "active-out-of-range.ftcost": (edited(_set("active", 3)), "refused", "active scenario"),
        "active-negative.ftcost": (edited(_set("active", -1)), "refused", "active"),
        "duplicate-names.ftcost": (
            edited(lambda d: d["scenarios"].append(copy.deepcopy(d["scenarios"][0]))),
            "refused",
            "scenario names must be unique",
        ),
        "empty-name.ftcost": (edited(_set("scenarios.0.name", "")), "refused", "scenarios[0].name"),
        "long-name.ftcost": (
            edited(_set("scenarios.0.name", "n" * 201)),
            "refused",
            "scenarios[0].name",
        ),
        "lone-surrogate.ftcost": (
            good.replace(b'"name": "Full FT"', b'"name": "bad \\udcff name"'),
            "refused",
            "scenarios[0].name: a lone UTF-16 surrogate",
        ),
        "v1-without-inputs.ftcost": (
            js({k: v for k, v in v1.items() if k != "inputs"}),
            "refused",
            "no 'inputs' section",
        ),
        "v1-missing-field.ftcost": (
            js({**v1, "inputs": {**v1["inputs"], "model": {"name": "x"}}}),
            "refused",
            "scenarios[0].inputs.model.",
        ),
        # odd but valid: accepted, with names shown clean
        "v1-complete.ftcost": (js(v1), "accepted", ""),
        "good.ftcost": (good, "accepted", ""),
        "duplicate-keys.ftcost": (  # JSON allows it; the last value wins, as everywhere
            good.replace(b'"mfu": 0.35', b'"mfu": 0.9, "mfu": 0.35'),
            "accepted",
            "",
        ),
    }
    for kind, name in HOSTILE.items():
        out[f"name-{kind}.ftcost"] = (
            edited(
                lambda d, name=name: (
                    d["scenarios"][0].update(name=name),
                    d["scenarios"][0]["inputs"]["model"].update(name=name),
                    d["scenarios"][0]["inputs"]["hardware"]["gpu"].update(name=name),
                )
            ),
            "accepted",
            "",
        )
    return out


# --- GPU catalogs --------------------------------------------------------------------------------


CATALOG_ROW_V2 = {
    "id": "lab-box", "name": "Lab box", "vendor": "NVIDIA", "memory_gib": 268.6,
    "bf16_tflops": 2250.0, "bf16_supported": True, "memory_bandwidth_gb_s": 8000.0,
    "interconnect": "nvlink", "interconnect_gb_s": 1800.0, "on_demand_usd_per_hour": 7.4,
    "spot_usd_per_hour": 4.5, "price_as_of": "2026-10-07", "price_source": "our quote",
    "memory_vendor_gb": 288.0, "counting": "per_gpu", "tdp_w": 1100.0, "year": 2025,
    "spec_source": "S1", "notes": "", "provider": "", "region": "", "pricing_tier": "on_demand",
}  # fmt: skip


def good_catalog() -> dict[str, Any]:
    """A version-2 catalog document with one row."""
    return {
        "format": "ftcost-gpu-catalog", "version": 2, "app": "ftcost 0.1.0", "name": "Lab",
        "description": "", "currency": "USD", "gpus": [dict(CATALOG_ROW_V2)],
    }  # fmt: skip


def catalog_edit(change: Callable[[dict[str, Any]], None]) -> bytes:
    doc = good_catalog()
    change(doc)
    return js(doc)


def _row(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["gpus"][0].update(fields)


def catalog_files() -> Files:
    good = js(good_catalog())
    return {
        "empty.json": (b"", "refused", "not valid JSON"),
        "truncated.json": (good[: len(good) // 2], "refused", "not valid JSON"),
        "array.json": (b"[]\n", "refused", "not"),
        "estimate-file.json": (js(good_estimate()), "refused", "not"),
        "newer-version.json": (catalog_edit(lambda d: d.update(version=99)), "refused", "newer"),
        "row-only-id.json": (catalog_edit(lambda d: d.update(gpus=[{"id": "x"}])), "refused", ""),
        "currency-eur.json": (catalog_edit(lambda d: d.update(currency="EUR")), "refused", "EUR"),
        "price-negative.json": (catalog_edit(_row(on_demand_usd_per_hour=-1.0)), "refused", ""),
        "price-string.json": (catalog_edit(_row(on_demand_usd_per_hour="3")), "refused", ""),
        "memory-zero.json": (catalog_edit(_row(memory_gib=0)), "refused", "memory_gib"),
        "nan.json": (good.replace(b'"memory_gib": 268.6', b'"memory_gib": NaN'), "refused", ""),
        "unknown-field.json": (catalog_edit(_row(warp=1)), "refused", "warp"),
        "duplicate-ids.json": (
            catalog_edit(lambda d: d["gpus"].append(copy.deepcopy(d["gpus"][0]))),
            "refused",
            "",
        ),
        "deep-nesting.json": (b"[" * 10_000 + b"]" * 10_000, "refused", "not valid JSON"),
        "good.json": (good, "accepted", ""),
        "hostile-row-name.json": (
            catalog_edit(_row(name=HOSTILE["escape"] + HOSTILE["html"])),
            "accepted",
            "",
        ),
    }


# --- catalog CSV ---------------------------------------------------------------------------------


CSV_V2 = (
    "id,name,vendor,memory_gib,bf16_tflops,bf16_supported,memory_bandwidth_gb_s,interconnect,"
    "interconnect_gb_s,on_demand_usd_per_hour,spot_usd_per_hour,price_as_of,price_source,"
    "memory_vendor_gb,counting,tdp_w,year,spec_source,notes,provider,region,pricing_tier\r\n"
    'b300,B300,NVIDIA,268.6,2250,yes,8000,nvlink,1800,7.4,4.5,2026-10-07,"a, quoted source",'
    "288,per_gpu,1100,2025,S1,,,,on_demand\r\n"
    "a100,A100,NVIDIA,79.6,312,yes,2039,nvlink,600,1.8,,2026-10-07,,80,per_gpu,400,2020,S2,"
    '"two\nlines",,,on_demand\r\n'
)  # a catalog CSV as version 2 exported it


def csv_files() -> Files:
    good = CSV_V2.encode()
    header, first, *rest = CSV_V2.split("\r\n")
    return {
        "empty.csv": (b"", "refused", ""),
        "header-only.csv": ((header + "\r\n").encode(), "accepted", ""),  # nothing to import
        "not-utf8.csv": (b"id,name\r\n\xff\xfe,\xff\r\n", "refused", ""),
        "missing-columns.csv": (b"id,name\r\nx,y\r\n", "refused", ""),
        "binary.csv": (bytes(range(256)) * 4, "refused", ""),
        "good.csv": (good, "accepted", ""),
        "bad-cells.csv": (  # one row refused, one imported
            (
                header + "\r\n" + first.replace(",268.6,", ",-5,", 1) + "\r\n" + "\r\n".join(rest)
            ).encode(),
            "accepted",
            "",
        ),
        "formula-names.csv": (
            (
                header + "\r\n" + first.replace("B300", '"=HYPERLINK(""http://e.vil"",""x"")"', 1)
            ).encode()
            + b"\r\n",
            "accepted",
            "",
        ),
    }


# --- config.json ---------------------------------------------------------------------------------

LLAMA = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 2048,
    "intermediate_size": 8192, "num_attention_heads": 32, "num_hidden_layers": 16,
    "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": True,
    "max_position_embeddings": 131072, "head_dim": 64,
}  # fmt: skip


def config_files() -> Files:
    def cfg(**changes: Any) -> bytes:
        doc = {**LLAMA, **changes}
        return js({k: v for k, v in doc.items() if v is not _DELETE})

    return {
        "empty.json": (b"", "refused", "not valid JSON"),
        "truncated.json": (cfg()[:40], "refused", "not valid JSON"),
        "array.json": (b"[1]\n", "refused", "does not hold a JSON object"),
        "no-layers.json": (cfg(num_hidden_layers=_DELETE), "refused", "num_hidden_layers"),
        "layers-true.json": (cfg(num_hidden_layers=True), "refused", "num_hidden_layers"),
        "layers-string.json": (cfg(num_hidden_layers="16"), "refused", "num_hidden_layers"),
        "layers-fraction.json": (cfg(num_hidden_layers=16.5), "refused", "num_hidden_layers"),
        "hidden-zero.json": (cfg(hidden_size=0), "refused", "hidden_size"),
        "hidden-huge.json": (cfg(hidden_size=10**30), "refused", "hidden_size"),
        "heads-not-dividing.json": (cfg(num_key_value_heads=5), "refused", "num_kv_heads"),
        "unknown-type.json": (cfg(model_type="warp_drive"), "refused", "warp_drive"),
        "nan.json": (cfg().replace(b'"hidden_size": 2048', b'"hidden_size": NaN'), "refused", ""),
        "deep-nesting.json": (b"[" * 10_000 + b"]" * 10_000, "refused", "not valid JSON"),
        "good.json": (cfg(), "accepted", ""),
        "hostile-name.json": (cfg(_name_or_path=HOSTILE["escape"]), "accepted", ""),
    }


# --- safetensors ---------------------------------------------------------------------------------


def st(header: Any, data: int | None = None, raw: bytes | None = None) -> bytes:
    body = raw if raw is not None else json.dumps(header).encode()
    if data is None:
        ends = [v["data_offsets"][1] for v in header.values() if "data_offsets" in v]
        data = max(ends, default=0)
    return struct.pack("<Q", len(body)) + body + bytes(data)


def t(dtype: str, shape: list[int], begin: int, end: int) -> dict[str, Any]:
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def safetensors_files() -> Files:
    return {
        "empty.safetensors": (b"", "refused", "too short"),
        "short.safetensors": (b"\x01\x02", "refused", "too short"),
        "header-past-end.safetensors": (struct.pack("<Q", 10**6) + b"{}", "refused", "declares"),
        "header-huge.safetensors": (struct.pack("<Q", 2**63) + b"{}", "refused", "declares"),
        "header-not-json.safetensors": (st({}, 0, raw=b"not json"), "refused", "not valid JSON"),
        "header-array.safetensors": (st({}, 0, raw=b"[]"), "refused", "not a JSON object"),
        "no-dtype.safetensors": (
            st({"w": {"shape": [2], "data_offsets": [0, 4]}}, 4),
            "refused",
            "has no dtype",
        ),
        "negative-shape.safetensors": (st({"w": t("F16", [-2], 0, 4)}, 4), "refused", "shape"),
        "offsets-reversed.safetensors": (st({"w": t("F16", [2], 4, 0)}, 4), "refused", "offsets"),
        "data-truncated.safetensors": (
            st({"w": t("F32", [16], 0, 64)}, 8),
            "refused",
            "truncated",
        ),
        "claims-1e36.safetensors": (
            st({"w": t("BF16", [10**18, 10**18], 0, 32)}),
            "refused",
            "10^36",
        ),
        "overlap.safetensors": (
            st({"a": t("F32", [4], 0, 16), "b": t("F32", [4], 8, 24)}),
            "refused",
            "share bytes",
        ),
        "good.safetensors": (
            st({"w": t("BF16", [4, 4], 0, 32), "__metadata__": {}}),
            "accepted",
            "",
        ),
    }


BUILDERS: dict[str, Callable[[], Files]] = {
    "estimate": estimate_files,
    "catalog": catalog_files,
    "csv": csv_files,
    "config": config_files,
    "safetensors": safetensors_files,
}


def corpus() -> dict[str, tuple[bytes, str, str]]:
    """relative path -> (content, outcome, needle)."""
    return {
        f"{family}/{name}": entry
        for family, build in BUILDERS.items()
        for name, entry in sorted(build().items())
    }


def manifest(files: dict[str, tuple[bytes, str, str]]) -> bytes:
    doc = {
        path: {"family": path.split("/")[0], "outcome": outcome, "needle": needle}
        for path, (_, outcome, needle) in files.items()
    }
    return js(doc)


def main(argv: list[str]) -> int:
    files = corpus()
    wanted = {path: content for path, (content, _, _) in files.items()}
    wanted["MANIFEST.json"] = manifest(files)
    if "--check" in argv:
        stale = [
            p for p, c in wanted.items() if not (HERE / p).is_file() or (HERE / p).read_bytes() != c
        ]
        extra = [
            str(p.relative_to(HERE))
            for f in FAMILIES
            for p in (HERE / f).glob("*")
            if str(p.relative_to(HERE)) not in wanted
        ]
        for p in stale + extra:
            print(f"out of date: tests/data/bad/{p}")
        return 1 if stale or extra else 0
    for family in FAMILIES:
        for old in (HERE / family).glob("*"):
            old.unlink()
    for path, content in wanted.items():
        (HERE / path).parent.mkdir(parents=True, exist_ok=True)
        (HERE / path).write_bytes(content)
    print(f"wrote {len(files)} files under tests/data/bad/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
