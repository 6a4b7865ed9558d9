"""A plan: one or more named scenarios ("full vs LoRA vs QLoRA", "H100 vs A100", …).

The scenario operations (add, duplicate, rename, delete, move, select, compare methods) are pure:
each returns a new document, which the window's store records as one undo step.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .inputs import EstimateInputs
from .variants import METHOD_SCENARIOS, with_method

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

    # --- operations: each returns a new document ------------------------------------------------
    def with_inputs(self, inputs: EstimateInputs) -> EstimateDocument:
        """The selected scenario's inputs replaced."""
        scenarios = list(self.scenarios)
        scenarios[self.active] = Scenario(name=self.current.name, inputs=inputs)
        return EstimateDocument(scenarios=tuple(scenarios), active=self.active)

    def selected(self, index: int) -> EstimateDocument:
        return EstimateDocument(scenarios=self.scenarios, active=index)

    def added(self, inputs: EstimateInputs, name: str = "Scenario") -> EstimateDocument:
        """A scenario appended (a free name derived from ``name``) and selected."""
        scenario = Scenario(name=self.unique_name(name), inputs=inputs)
        return EstimateDocument(scenarios=(*self.scenarios, scenario), active=len(self.scenarios))

    def duplicated(self, index: int) -> EstimateDocument:
        """A copy of scenario ``index`` right after it, selected."""
        src = self.scenarios[index]
        copy = Scenario(name=self.unique_name(src.name), inputs=src.inputs)
        scenarios = (*self.scenarios[: index + 1], copy, *self.scenarios[index + 1 :])
        return EstimateDocument(scenarios=scenarios, active=index + 1)

    def rename_problem(self, index: int, name: str) -> str:
        """Why scenario ``index`` cannot be called ``name`` (spaces collapsed), or ''."""
        name = " ".join(name.split())
        if name == self.scenarios[index].name:
            return ""
        if not name:
            return "A scenario needs a name."
        if len(name) > MAX_NAME:
            return f"Scenario names are at most {MAX_NAME} characters."
        if any(s.name == name for s in self.scenarios):
            return f"There is already a scenario named {name!r}."
        return ""

    def renamed(self, index: int, name: str) -> EstimateDocument:
        """Scenario ``index`` named ``name`` (spaces collapsed); check ``rename_problem`` first."""
        scenarios = list(self.scenarios)
        scenarios[index] = Scenario(name=" ".join(name.split()), inputs=scenarios[index].inputs)
        return EstimateDocument(scenarios=tuple(scenarios), active=self.active)

    def deleted(self, index: int) -> EstimateDocument | None:
        """Scenario ``index`` removed, the selection kept on a neighbour; None for the last one."""
        n = len(self.scenarios)
        if n <= 1 or not 0 <= index < n:
            return None
        scenarios = self.scenarios[:index] + self.scenarios[index + 1 :]
        active = self.active
        if index < active or (index == active and active == n - 1):
            active -= 1
        return EstimateDocument(scenarios=scenarios, active=active)

    def moved(self, index: int, to: int) -> EstimateDocument | None:
        """The scenario at ``index`` moved to ``to``; the selection follows its scenario."""
        n = len(self.scenarios)
        if index == to or not (0 <= index < n and 0 <= to < n):
            return None
        order = list(range(n))
        order.insert(to, order.pop(index))
        scenarios = tuple(self.scenarios[i] for i in order)
        return EstimateDocument(scenarios=scenarios, active=order.index(self.active))


def compare_methods(document: EstimateDocument) -> EstimateDocument:
    """'Compare methods': full / LoRA / QLoRA scenarios built from the current one, appended
    (another method, fewest GPUs), the first of them selected."""
    current = document.current
    scenarios = list(document.scenarios)
    for label, method in METHOD_SCENARIOS:
        probe = EstimateDocument(scenarios=tuple(scenarios), active=0)
        name = probe.unique_name(f"{current.name} · {label}")
        scenarios.append(Scenario(name=name, inputs=with_method(current.inputs, method)))
    return EstimateDocument(scenarios=tuple(scenarios), active=len(document.scenarios))
