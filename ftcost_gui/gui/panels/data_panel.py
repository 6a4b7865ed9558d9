"""Data panel: examples × length × epochs, or a token total."""

from __future__ import annotations

from typing import ClassVar

from ...core.inputs import DataSpec, EstimateInputs
from .form import FormPanel

EXAMPLES_ONLY = ("num_examples", "mean_tokens_per_example", "epochs")
TOKENS_ONLY = ("total_tokens",)


class DataPanel(FormPanel):
    GROUPS = (
        (
            "Training data",
            "data",
            DataSpec,
            (
                "mode",
                "num_examples",
                "mean_tokens_per_example",
                "epochs",
                "total_tokens",
                "max_seq_len",
                "packing",
                "useful_fraction_override",
            ),
        ),
    )
    CHOICE_LABELS: ClassVar[dict[str, dict[str, str]]] = {
        "mode": {"examples": "examples × length × epochs", "tokens": "total useful tokens"}
    }
    SPECIAL_TEXT: ClassVar[dict[str, str]] = {"useful_fraction_override": "auto"}

    def update_applicability(self, inputs: EstimateInputs) -> None:
        examples = inputs.data.mode == "examples"
        for name in EXAMPLES_ONLY:
            self.set_row_state("data", name, visible=examples)
        for name in TOKENS_ONLY:
            self.set_row_state("data", name, visible=not examples)
