"""A plan: one or more named scenarios ("full vs LoRA vs QLoRA", "H100 vs A100", …)."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .inputs import EstimateInputs

MAX_NAME = 200


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("Scenario 1", min_length=1, max_length=MAX_NAME, title="Scenario name")
    inputs: EstimateInputs = Field(default_factory=EstimateInputs)


class EstimateDocument(BaseModel):
    """The content of an estimate file: scenarios in order and the one being edited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenarios: tuple[Scenario, ...] = Field(default=(Scenario(),), min_length=1)
    active: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.active >= len(self.scenarios):
            raise ValueError("active scenario index out of range")
        names = [s.name for s in self.scenarios]
        if len(set(names)) != len(names):
            raise ValueError("scenario names must be unique")
        return self

    @property
    def current(self) -> Scenario:
        return self.scenarios[self.active]

    @classmethod
    def single(cls, inputs: EstimateInputs, name: str = "Scenario 1") -> EstimateDocument:
        return cls(scenarios=(Scenario(name=name, inputs=inputs),), active=0)

    def unique_name(self, base: str) -> str:
        """base, or 'base (2)', 'base (3)', … whichever is free; never longer than MAX_NAME."""
        names = {s.name for s in self.scenarios}
        base = base.strip()[:MAX_NAME].rstrip() or "Scenario"
        if base not in names:
            return base
        i = 2
        while True:
            suffix = f" ({i})"
            candidate = base[: MAX_NAME - len(suffix)].rstrip() + suffix
            if candidate not in names:
                return candidate
            i += 1
