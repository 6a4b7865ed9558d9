"""A plan: one or more named scenarios ("full vs LoRA vs QLoRA", "H100 vs A100", …)."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .inputs import EstimateInputs


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("Scenario 1", min_length=1, max_length=200, title="Scenario name")
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
        """base, or 'base (2)', 'base (3)', … whichever is free."""
        names = {s.name for s in self.scenarios}
        if base not in names:
            return base
        i = 2
        while f"{base} ({i})" in names:
            i += 1
        return f"{base} ({i})"
