"""The time model in the window (issue 11): the same file gives the window and the CLI the same
figures; cards say what was rented and whether checkpointing is on; a typed price is the user's;
the MFU field shows the default it stands for."""

from __future__ import annotations

import json

from ftcost_gui.cli import main
from ftcost_gui.cli.documents import finite
from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.io.estimate_file import save_document
from ftcost_gui.present.tables import price_rows
from tests.core.helpers import gpu, make


def _plan(tmp_path):
    doc = EstimateDocument.single(
        make("llama-3.1-70b", training__method="full_amp_adamw", hardware__gpu=gpu("H100 SXM")),
        "70B full",
    )
    doc = doc.added(
        make("llama-3.1-8b", training__method="lora", hardware__gpu=gpu("A100 80GB SXM")),
        "8B LoRA",
    )
    path = tmp_path / "plan.ftcost"
    save_document(path, doc)
    return path


def test_window_and_cli_give_identical_results_for_the_same_file(window, tmp_path, capsys):
    path = _plan(tmp_path)
    assert window.files.load_path(path)
    assert main(["estimate", str(path), "--json"]) == 0  # the file's active scenario
    cli = json.loads(capsys.readouterr().out)
    assert window.store.document.active == 1  # the file's active scenario opens selected
    result = window.store.recompute_now()
    assert cli["result"] == finite(result.model_dump(mode="json"))
    for index, name in enumerate(("70B full", "8B LoRA")):
        window.store.select_scenario(index)
        result = window.store.recompute_now()
        single = tmp_path / f"{index}.ftcost"
        save_document(single, EstimateDocument.single(window.store.inputs, name))
        assert main(["estimate", str(single), "--json"]) == 0
        cli = json.loads(capsys.readouterr().out)["result"]
        assert cli == finite(result.model_dump(mode="json"))


def test_cards_say_rented_gpus_and_checkpointing(window, tmp_path):
    assert window.files.load_path(_plan(tmp_path))
    window.store.select_scenario(0)
    window.store.recompute_now()
    gpus = window.results.headline.cards["gpus"]
    assert gpus.value.text() == "24 rented"
    assert gpus.detail.text().startswith("19 needed → 24 rented (3 × 8)")
    window.store.select_scenario(1)
    window.store.recompute_now()
    detail = window.results.headline.cards["gpu_hours"].detail.text()
    assert "checkpointing auto: off (with it: same 1 GPU, +$" in detail


def test_a_typed_price_is_credited_to_the_user(window):
    assert window.store.inputs.hardware.price_origin == "built-in"
    assert window.store.set_field("hardware.gpu", "on_demand_usd_per_hour", 1.75)
    hw = window.store.inputs.hardware
    assert (hw.price_origin, hw.gpu.price_as_of, hw.gpu.price_source) == ("typed by hand", "", "")
    assert [r.source for r in price_rows(window.store.document)] == ["Typed by hand"]


def test_the_mfu_field_shows_its_default(window):
    window.store.set_field("efficiency", "mfu", None)
    r = window.store.recompute_now()
    editor = window.panels["hardware"].editor("efficiency", "mfu")
    assert editor.specialValueText() == f"default {r.time.mfu_default:.0%}"
    assert "default for full fine-tuning on H100 SXM" in editor.toolTip()
