"""pytest plugin for mutation runs only (tools/mutation.py loads it with ``-p``): fast tests first,
fewer property examples.

- A mutant is killed by its first failing test (mutmut runs pytest with ``-x``), so the tests run
  in the order of their recorded durations (mutmut's stats): a killed mutant costs the fast hand
  calculations, not the property suite.
- Every mutant's session starts with cold caches: mutmut forks each mutant from the process that
  ran the clean tests, so a ``functools.lru_cache`` filled there by the original code
  (core/lengths.py's padded rows, memory_step.py's activation inventory, io's built-in catalog)
  would answer for the mutant and let it survive unseen. The same holds for the module-level
  memos (``_MEMO`` lists: core/remembered.py remembers the last memory steps, counts, adapters).
- Property tests draw ``EXAMPLES`` examples (derandomised, no example database) instead of their
  own count: a mutation run repeats them for every surviving mutant. The kill rate is measured with
  that count, and docs/testing.md says so.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from hypothesis import settings

EXAMPLES = int(os.environ.get("FTCOST_MUTATION_EXAMPLES", "25"))


def pytest_sessionstart(session: Any) -> None:
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] != "ftcost_gui":
            continue
        for key, value in list(vars(module).items()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()
            elif key.endswith("_MEMO") and isinstance(value, list | dict):
                value.clear()


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    stats = Path("mutmut-stats.json")
    durations: dict[str, float] = {}
    if stats.exists():
        durations = json.loads(stats.read_text(encoding="utf-8")).get("duration_by_test", {})
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
    for item in items:
        test = getattr(item, "obj", None)
        if getattr(test, "is_hypothesis_test", False):
            own = test._hypothesis_internal_use_settings
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=min(own.max_examples, EXAMPLES), derandomize=True, database=None
            )
