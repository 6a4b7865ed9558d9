"""Write resources/examples/*.ftcost from ftcost_gui.gui.defaults (run once from the repo root)."""

from pathlib import Path

from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.gui.defaults import DOCUMENT_EXAMPLES, EXAMPLES
from ftcost_gui.io.estimate_file import save_document

# Scenario names shown in the window's tabs, one per article's worked example.
NAMES = {
    "article-000-qwen2.5-7b-full.ftcost": "000 · Qwen2.5-7B full FT",
    "article-001-7b-lora.ftcost": "001 · 7B LoRA",
    "article-003-70b-qlora.ftcost": "003 · 70B QLoRA",
    "article-004-7b-lora-a100.ftcost": "004 · 7B LoRA on A100",
}

out = Path("resources/examples")
out.mkdir(parents=True, exist_ok=True)
for name, fn in EXAMPLES.items():
    save_document(out / name, EstimateDocument.single(fn(), name=NAMES.get(name, "Scenario 1")))
    print(out / name)
for name, make_document in DOCUMENT_EXAMPLES.items():  # several scenarios (e.g. project stages)
    save_document(out / name, make_document())
    print(out / name)
