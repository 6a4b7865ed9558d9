"""Shared by every test: offscreen Qt, and a temporary config dir (never the real one)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis profiles (issue 12). "default": quick local runs. "ci" (HYPOTHESIS_PROFILE=ci, set
# by .ci/run): the whole-input-space property (tests/core/test_properties.py) runs 10,000
# examples; each narrower property a share of that (tests/core/strategies.examples).
settings.register_profile(
    "default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", settings.get_profile("default"), max_examples=10_000, print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _tmp_config_dir(tmp_path, monkeypatch):
    """Point io.paths.config_dir() (and QSettings' ini file) at a per-test folder."""
    cfg = tmp_path / "config"
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(cfg))
    return cfg


def _examples(item: pytest.Item) -> int:
    """The examples a property test runs (0 for any other test)."""
    test = getattr(item, "obj", None)
    if getattr(test, "is_hypothesis_test", False):
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        return (chosen or settings.default).max_examples
    return 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The property tests first, the largest first; the rest in file order. At the CI size the
    whole-input-space ones take a minute or more each: started last, one of them would keep a
    core busy while the other has nothing left to run (-n auto spreads the rest around them,
    ``--dist worksteal`` in pyproject.toml)."""
    items.sort(key=_examples, reverse=True)  # stable: equal sizes keep their order
