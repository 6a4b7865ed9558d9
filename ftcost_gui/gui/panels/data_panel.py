"""Data panel: examples × length × epochs, or a token total."""

from __future__ import annotations

from typing import ClassVar

from ...core.inputs import DataSpec, EstimateInputs
from .form import FormPanel

EXAMPLES_ONLY = ("num_examples", "mean_tokens_per_example", "epochs", "padding", "length_cv")
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
                "padding",
                "length_cv",
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
        self._objective_applicability(inputs, examples)

    # What the data rows mean under DPO (pairs) and GRPO/PPO (prompts; lengths from the objective).
    OBJECTIVE_LABELS: ClassVar[dict[str, dict[str, str]]] = {
        "dpo": {
            "num_examples": "Preference pairs",
            "mean_tokens_per_example": "Mean tokens / sequence",
        },
        "rl": {"num_examples": "Prompts"},
    }

    def _objective_applicability(self, inputs: EstimateInputs, examples: bool) -> None:
        objective = inputs.objective.objective
        kind = "rl" if objective in ("grpo", "ppo") else objective
        labels = self.OBJECTIVE_LABELS.get(kind, {})
        for name in ("num_examples", "mean_tokens_per_example"):
            label = self._labels[("data", name)]
            if not label.property("base_text"):
                label.setProperty("base_text", label.text())
            label.setText(labels.get(name, label.property("base_text")))
        if kind == "rl":  # rollouts take their lengths from the objective and are not packed
            for name in ("mean_tokens_per_example", "max_seq_len", "padding", "length_cv"):
                self.set_row_state("data", name, visible=False)
        else:
            self.set_row_state("data", "max_seq_len", visible=True)
            for name in ("padding", "length_cv"):  # examples only (update_applicability)
                self.set_row_state("data", name, visible=examples)
