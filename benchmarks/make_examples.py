"""Write resources/examples/*.ftcost from ftcost_gui.gui.defaults (run once from the repo root)."""

from pathlib import Path

from ftcost_gui.gui.defaults import EXAMPLES
from ftcost_gui.io.estimate_file import save_estimate

out = Path("resources/examples")
out.mkdir(parents=True, exist_ok=True)
for name, fn in EXAMPLES.items():
    save_estimate(out / name, fn())
    print(out / name)
