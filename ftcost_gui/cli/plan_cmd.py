"""``ftcost plan``: the flags of the plan search and how they become ``PlanConstraints``.

The scenario comes from FILE and the generated input flags, as ``ftcost estimate``; the search
runs over every GPU of the effective catalog (``--catalog``), so one GPU's facts and prices are
refused as in ``compare``. Durations take 90m, 12h, 1.5d or a number of hours; money a number of
dollars ('$500' too).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.plan_space import DEFAULT_METHODS, PlanConstraints, objective_weight
from .flags import CHOICE_ALIASES
from .values import quoted

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*$")
_UNIT_HOURS = {
    "": 1.0, "h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0,
    "m": 1 / 60, "min": 1 / 60, "mins": 1 / 60, "minute": 1 / 60, "minutes": 1 / 60,
    "s": 1 / 3600, "sec": 1 / 3600, "secs": 1 / 3600, "second": 1 / 3600, "seconds": 1 / 3600,
    "d": 24.0, "day": 24.0, "days": 24.0, "w": 168.0, "week": 168.0, "weeks": 168.0,
}  # fmt: skip
METHOD_ALIASES: dict[str, str] = {
    **CHOICE_ALIASES["training.method"],
    "8bit": "full_adamw_8bit",
    "adam8bit": "full_adamw_8bit",
}
METHOD_NAMES = {v: k for k, v in CHOICE_ALIASES["training.method"].items()}


class PlanValue:
    """An argparse ``type`` of a plan flag: a function, named so tests can classify the flag."""

    def __init__(self, parse: Callable[[str], Any]) -> None:
        self.parse = parse
        self.__name__ = parse.__name__

    def __call__(self, text: str) -> Any:
        return self.parse(text)


def duration_hours(text: str) -> float:
    """'90m' → 1.5, '12h' → 12, '2d' → 48, '36' → 36 (hours); argparse's type for --deadline."""
    m = _DURATION.match(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNIT_HOURS:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a duration: give e.g. 90m, 12h, 1.5d or a number of hours"
        )
    hours = float(m.group(1)) * _UNIT_HOURS[unit]
    if not math.isfinite(hours) or hours <= 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: a duration must be more than 0")
    return hours


def dollars(text: str) -> float:
    """'500', '$500', '1,200.50' → dollars; argparse's type for --budget."""
    t = text.strip().removeprefix("$").replace(",", "").strip()
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not an amount of dollars") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: a budget must be 0 or more")
    return value


def methods(text: str) -> list[str]:
    """'lora,qlora' → the methods' values; 'all' → the four the search defaults to."""
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return list(DEFAULT_METHODS)
    out = []
    for n in names:
        if n not in METHOD_ALIASES:
            shown = ", ".join(METHOD_NAMES[m] for m in DEFAULT_METHODS)
            raise argparse.ArgumentTypeError(
                f"unknown method {quoted(n)}: give a comma-separated list of {shown}, "
                "full-bf16, or all"
            )
        out.append(METHOD_ALIASES[n])
    if not out:
        raise argparse.ArgumentTypeError("needs at least one method, e.g. lora,qlora")
    return out


def objective(text: str) -> float:
    """'cheapest' → 1, 'fastest' → 0, or a weight on cost in [0, 1]."""
    t = text.strip().lower()
    if t in ("cheapest", "fastest"):
        return objective_weight(t)
    try:
        w = float(t)
    except ValueError:
        w = math.nan
    if not 0.0 <= w <= 1.0:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)}: give cheapest, fastest or a weight on cost between 0 and 1"
        )
    return w


def positive_int(text: str) -> int:
    try:
        n = int(text.strip())
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number of 1 or more")
    return n


def add_plan_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("plan search")
    add_constraint_flags(g)
    g.add_argument(
        "--fits-gpu",
        metavar="ID",
        action="append",
        default=[],
        help="also draw this GPU's memory in what fits (up to two; repeat the flag)",
    )
    g.add_argument(
        "--top",
        metavar="N",
        type=PlanValue(positive_int),
        default=10,
        help="front plans listed in the text output (default 10; --json lists all)",
    )


def add_report_plan_flags(p: argparse.ArgumentParser) -> None:
    """``report``: the recommendation's search (the selected scenario, the active catalog)."""
    g = p.add_argument_group("recommendation (the plan search of 'ftcost plan')")
    add_constraint_flags(g)
    g.add_argument(
        "--objective",
        metavar="GOAL",
        type=PlanValue(objective),
        default=1.0,
        dest="goal",
        help="cheapest (default), fastest, or a weight on cost between 0 and 1",
    )
    g.add_argument(
        "--no-plan", action="store_true", help="leave the recommendation and its plots out"
    )


def add_constraint_flags(g: Any) -> None:
    g.add_argument(
        "--deadline",
        metavar="TIME",
        type=PlanValue(duration_hours),
        help="longest wall-clock of one run, start-up and evaluation included: 90m, 12h, 2d "
        "or hours (on spot: with the expected interruptions)",
    )
    g.add_argument(
        "--budget", metavar="USD", type=PlanValue(dollars), help="most one run may cost, in dollars"
    )
    g.add_argument(
        "--max-gpus",
        metavar="N",
        type=PlanValue(positive_int),
        help="most GPUs the job may hold (default: any count that splits the effective batch)",
    )
    g.add_argument(
        "--methods",
        metavar="LIST",
        type=PlanValue(methods),
        help="methods a plan may use, comma-separated: full, full-8bit, lora, qlora, full-bf16 "
        "(default: full,full-8bit,lora,qlora)",
    )
    g.add_argument(
        "--effective-batch",
        metavar="SEQS",
        type=PlanValue(positive_int),
        help="sequences per optimizer step every plan keeps (default: the scenario's micro-batch "
        "× accumulation × GPUs)",
    )
    g.add_argument(
        "--no-memory-margin",
        dest="memory_margin",
        action="store_false",
        help="let plans use the near-limit margin of GPU memory (--near-limit-fraction) too "
        "(default: every plan leaves it free)",
    )


@dataclass(frozen=True, slots=True)
class Goal:
    """A plan goal given to ``--objective`` (its weight on cost)."""

    weight: float


class _ObjectiveOrGoal(argparse._StoreAction):
    """``--objective`` in ``plan``: the training objective (sft, dpo, grpo, ppo) as everywhere,
    or the search's goal (cheapest, fastest, a weight on cost), each kept in its own place."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        if isinstance(values, Goal):
            namespace.goal = values.weight
        else:
            setattr(namespace, self.dest, values)


def share_objective_flag(p: argparse.ArgumentParser) -> None:
    """Let the generated ``--objective`` also take the plan's goal (call after the input flags).

    The issue's ``--objective cheapest|fastest|WEIGHT`` and the objective section's
    ``--objective sft|dpo|grpo|ppo`` are one flag: the values do not overlap.
    """
    action = p._option_string_actions["--objective"]
    training = action.type

    def either(text: str) -> object:
        t = text.strip().lower()
        if t in ("cheapest", "fastest") or _is_number(t):
            return Goal(objective(text))
        return training(text) if callable(training) else text

    action.type = PlanValue(either)
    action.__class__ = _ObjectiveOrGoal
    action.metavar = "GOAL"
    action.help = (
        "the training objective (sft, dpo, grpo, ppo), and the plan's goal: cheapest (default), "
        "fastest, or a weight on cost between 0 and 1 (0.5: cost and wall-clock, each relative "
        "to its best, count alike); give it twice for both"
    )
    p.set_defaults(goal=1.0)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def constraints_from_args(args: argparse.Namespace, billing: str) -> PlanConstraints:
    """The flags as constraints, validated (a ValidationError names the field); ``billing`` is
    the scenario's (``--billing``: the project's billing is the plan's)."""
    doc: dict[str, Any] = {
        "deadline_h": args.deadline,
        "budget_usd": args.budget,
        "max_gpus": args.max_gpus,
        "billing": billing,
        "cost_weight": args.goal,
        "effective_batch": args.effective_batch,
        "memory_margin": args.memory_margin,
    }
    if args.methods:
        doc["methods"] = tuple(args.methods)
    return PlanConstraints.model_validate(doc)


def method_names(values: Sequence[str]) -> str:
    return ",".join(METHOD_NAMES.get(v, v) for v in values)
