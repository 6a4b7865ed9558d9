"""The input flags, generated from the same field metadata as the window's forms.

Every field of every section of ``EstimateInputs`` (nested models included, e.g.
``hardware.gpu``) becomes one flag: its name is the field's name with dashes (a nested model's
name in front: ``hardware.gpu.memory_gib`` -> ``--gpu-memory-gib``), its help, unit, range,
default and choices are the field's, and its value is parsed by kind (int, float, bool, choice,
list of choices; an optional field also takes ``none``). A new field or section is a new flag
without new code here. The tables below only hold what the metadata cannot say: the short names
the first release chose, the flags that set more than their field, and the fields that are not
flags (text: names and provenance, set by ``--model`` and ``--gpu``).
"""

from __future__ import annotations

import argparse
import functools
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from ..core.fields import FieldSpec, field_spec
from ..core.inputs import SECTIONS, EstimateInputs
from .values import Choice, Number, TextList

# Short names kept from the first release (path -> flag without dashes).
SHORT_NAMES: dict[str, str] = {
    "model.param_count_override": "params",
    "data.mode": "data-mode",
    "data.total_tokens": "tokens",
    "data.num_examples": "examples",
    "data.mean_tokens_per_example": "mean-tokens",
    "data.max_seq_len": "seq-len",
    "training.lora_rank": "rank",
    "training.lora_targets": "targets",
    "training.num_gpus": "gpus",
    "training.cpu_offload_optimizer": "offload",
    "hardware.gpu.on_demand_usd_per_hour": "price",
    "hardware.gpu.spot_usd_per_hour": "spot-price",
    "project.planned_runs": "runs",
    "efficiency.step_time_s": "step-time",
}
# Metavars kept from the first release; the rest come from the unit or the kind.
METAVARS: dict[str, str] = {
    "model.param_count_override": "N",
    "data.total_tokens": "N",
    "data.mean_tokens_per_example": "N",
    "data.epochs": "N",
    "training.lora_rank": "R",
    "efficiency.mfu": "F",
    "efficiency.step_time_s": "S",
}
_UNIT_METAVARS = {"$/GPU-h": "USD", "$/h": "USD", "$/GB-mo": "USD", "s": "S", "min": "MIN",
                  "h": "H", "GiB": "GIB", "GB/s": "GB_S"}  # fmt: skip
# Values shown (and accepted) instead of a choice field's own: flag name -> field value.
CHOICE_ALIASES: dict[str, dict[str, str]] = {
    "training.method": {
        "full": "full_amp_adamw",
        "full-8bit": "full_adamw_8bit",
        "full-bf16": "full_bf16_adamw",
        "lora": "lora",
        "qlora": "qlora",
    },
}
# Choice fields also written as --flag / --no-flag: (value for a bare --flag, value for
# --no-flag); --flag VALUE takes any of the field's choices (checkpointing: auto, none, full).
BOOL_CHOICES: dict[str, tuple[str, str]] = {"training.checkpointing": ("full", "none")}
# What a flag sets besides its own field.
IMPLIES: dict[str, dict[str, Any]] = {
    "data.total_tokens": {"data.mode": "tokens"},
    "data.num_examples": {"data.mode": "examples"},
    "data.mean_tokens_per_example": {"data.mode": "examples"},
    "training.num_gpus": {"training.auto_gpu_count": False},
}
# Flags that cannot be given together.
EXCLUSIVE: tuple[tuple[str, ...], ...] = (("data.total_tokens", "data.num_examples"),)
# Fields that are no flag (whole nested models, by path): what sets them instead.
NOT_FLAGS: dict[str, str] = {
    "data.length_histogram": "ftcost data FILE --into ESTIMATE (measured from a dataset)",
}
# Section titles of the help (the section's name where absent).
GROUP_TITLES = {"hardware": "hardware and prices"}
# The flags of one GPU; ``compare`` takes every GPU from the catalog and refuses them.
GPU_SECTION = "hardware.gpu"
DEST_PREFIX = "in."  # argparse dest of an input flag: "in." + the field's dotted path


@dataclass(frozen=True, slots=True, eq=False)
class InputFlag:
    """One field as one flag."""

    path: str  # "data.total_tokens"
    section: str  # "data"; "hardware.gpu" for a nested model's field
    spec: FieldSpec
    kind: Literal["number", "bool", "choice", "bool_choice", "list"]
    option: str  # "--tokens"
    metavar: str | None
    parser: Any  # the argparse ``type`` (None for booleans)
    implies: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return DEST_PREFIX + self.path

    @property
    def field_name(self) -> str:
        return self.path.rsplit(".", 1)[1]


def _unwrap(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _literal_items(annotation: Any) -> tuple[str, ...] | None:
    """The choices of a ``tuple[Literal[...], ...]`` field, else None."""
    if typing.get_origin(annotation) is not tuple:
        return None
    args = typing.get_args(annotation)
    if len(args) == 2 and args[1] is Ellipsis and typing.get_origin(args[0]) is Literal:
        return tuple(str(a) for a in typing.get_args(args[0]))
    return None


def _fields(model: type[BaseModel], prefix: str) -> Iterator[tuple[str, type[BaseModel], str]]:
    """(dotted path, owning model, field name) of every leaf field, nested models walked."""
    for name, info in model.model_fields.items():
        ann = _unwrap(info.annotation)
        if f"{prefix}.{name}" in NOT_FLAGS:
            yield f"{prefix}.{name}", model, name
        elif _is_model(ann):
            yield from _fields(ann, f"{prefix}.{name}")
        else:
            yield f"{prefix}.{name}", model, name


def _metavar(path: str, spec: FieldSpec) -> str:
    if path in METAVARS:
        return METAVARS[path]
    if spec.unit in _UNIT_METAVARS:
        return _UNIT_METAVARS[spec.unit]
    return "N" if spec.kind == "int" else "X"


def _flag(path: str, model: type[BaseModel], name: str) -> InputFlag | None:
    if path in NOT_FLAGS:
        return None
    spec = field_spec(model, name)
    section = path.rsplit(".", 1)[0]
    nested = section.split(".")[1:]  # "hardware.gpu" -> ["gpu"]
    option = "--" + SHORT_NAMES.get(path, "-".join([*nested, name]).replace("_", "-"))
    implies = IMPLIES.get(path, {})
    base = {"path": path, "section": section, "spec": spec, "option": option, "implies": implies}
    if path in BOOL_CHOICES:
        return InputFlag(kind="bool_choice", metavar=None, parser=None, **base)
    if spec.kind in ("int", "float"):
        number = Number(integer=spec.kind == "int", optional=spec.optional)
        return InputFlag(kind="number", metavar=_metavar(path, spec), parser=number, **base)
    if spec.kind == "bool":
        return InputFlag(kind="bool", metavar=None, parser=None, **base)
    if spec.kind == "choice":
        choice = Choice(spec.choices, CHOICE_ALIASES.get(path, {}))
        return InputFlag(kind="choice", metavar=None, parser=choice, **base)
    listed = _literal_items(_unwrap(model.model_fields[name].annotation))
    if listed is not None:
        example = ",".join(listed[:2])
        return InputFlag(kind="list", metavar="LIST", parser=TextList(example), **base)
    if spec.kind == "str":
        return None  # names and provenance: --model and --gpu set them with their section
    raise TypeError(f"{path}: no flag for a field of this kind; teach cli/flags.py its kind")


@functools.cache
def input_flags() -> tuple[InputFlag, ...]:
    """Every input flag, in section and field order."""
    flags: list[InputFlag] = []
    for section in SECTIONS:
        model = _unwrap(EstimateInputs.model_fields[section].annotation)
        for path, owner, name in _fields(model, section):
            flag = _flag(path, owner, name)
            if flag is not None:
                flags.append(flag)
    return tuple(flags)


def skipped_fields() -> list[str]:
    """The fields that are not flags (text fields, ``NOT_FLAGS``), for the docs and the tests."""
    shown = {f.path for f in input_flags()}
    out = []
    for section in SECTIONS:
        model = _unwrap(EstimateInputs.model_fields[section].annotation)
        out += [p for p, _, _ in _fields(model, section) if p not in shown]
    return out


# --- Help text ----------------------------------------------------------------------------------


def fmt_number(x: float) -> str:
    """A bound or default as people write it: 10,000 · 0.85 · 1e15."""
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    if x == int(x) and abs(x) <= 1e7:
        return f"{int(x):,}"
    if x == int(x):
        mantissa, exp = f"{x:e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exp)}"
    return f"{x:g}"


def range_text(spec: FieldSpec) -> str:
    """'16 to 10,000,000', 'over 0 to 1', 'at least 0'."""
    lo, hi = spec.minimum, spec.maximum
    low = None if lo is None else ("over " if spec.exclusive_min else "") + fmt_number(lo)
    high = None if hi is None else ("under " if spec.exclusive_max else "") + fmt_number(hi)
    if low and high:
        return f"{low} to {high}"
    return low or high or ""


def default_text(flag: InputFlag) -> str:
    value = flag.spec.default
    if value is None:
        return "none"
    if flag.kind == "bool_choice":
        on, off = BOOL_CHOICES[flag.path]
        if value in (on, off):
            return flag.option if value == on else f"--no-{flag.option[2:]}"
        return f"{flag.option} {value}"
    if flag.kind == "bool":
        return flag.option if value else f"--no-{flag.option[2:]}"
    if flag.kind == "choice":
        shown = {v: k for k, v in CHOICE_ALIASES.get(flag.path, {}).items()}
        return shown.get(value, str(value))
    if flag.kind == "list":
        return ",".join(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return fmt_number(value)
    return str(value)


def implies_text(flag: InputFlag) -> str:
    return ", ".join(f"{p} = {str(v).lower()}" for p, v in flag.implies.items())


@functools.cache
def help_text(flag: InputFlag) -> str:
    """The field's help with its unit, range, default and side effects (plain text)."""
    spec = flag.spec
    facts = []
    if flag.kind == "number":
        unit = f" {spec.unit}" if spec.unit else ""
        facts.append(f"{range_text(spec)}{unit}")
        if spec.zero_text:
            facts.append(f"0 = {spec.zero_text}")
    if flag.kind == "bool_choice":
        on, off = BOOL_CHOICES[flag.path]
        facts.append(f"{flag.option} alone = {on}, --no-{flag.option[2:]} = {off}")
    if flag.kind == "choice" and CHOICE_ALIASES.get(flag.path):
        facts.append(
            ", ".join(f"{k} = {v}" for k, v in CHOICE_ALIASES[flag.path].items() if k != v)
        )
    if flag.kind == "list":
        facts.append(f"comma-separated, of {', '.join(list_choices(flag))}")
    if spec.optional:
        facts.append("'none' clears it")
    facts.append(f"default {default_text(flag)}")
    if flag.implies:
        facts.append(f"also sets {implies_text(flag)}")
    return f"{spec.tooltip} [{'; '.join(f for f in facts if f)}]"


def list_choices(flag: InputFlag) -> tuple[str, ...]:
    model_path, name = flag.path.rsplit(".", 1)
    model = _model_at(model_path)
    return _literal_items(_unwrap(model.model_fields[name].annotation)) or ()


def _model_at(dotted: str) -> type[BaseModel]:
    model: type[BaseModel] = EstimateInputs
    for part in dotted.split("."):
        model = _unwrap(model.model_fields[part].annotation)
    return model


def group_title(section: str) -> str:
    top = section.split(".")[0]
    return GROUP_TITLES.get(top, top)


def group_description(section: str) -> str | None:
    doc = (_model_at(section).__doc__ or "").strip()
    return doc.splitlines()[0] if doc and not doc.startswith("Usage docs") else None


# --- argparse -----------------------------------------------------------------------------------


def section_groups(parser: argparse.ArgumentParser) -> dict[str, Any]:
    """One argument group per section, in section order (section -> group), so the caller can
    put its own flags (``--model``, ``--gpu``) into the section they belong to."""
    return {s: parser.add_argument_group(group_title(s), group_description(s)) for s in SECTIONS}


def add_input_flags(parser: argparse.ArgumentParser, groups: dict[str, Any]) -> None:
    """Add every input flag to its section's group (``section_groups``).

    Every flag defaults to "absent" (``SUPPRESS``): only the flags given are applied.
    """
    exclusive: dict[str, Any] = {}
    for flag in input_flags():
        target = groups[flag.section.split(".")[0]]
        for members in EXCLUSIVE:
            if flag.path in members:
                key = "|".join(members)
                if key not in exclusive:
                    exclusive[key] = target.add_mutually_exclusive_group()
                target = exclusive[key]
        help_ = help_text(flag).replace("%", "%%")
        common = {"dest": flag.dest, "default": argparse.SUPPRESS, "help": help_}
        if flag.kind == "bool":
            target.add_argument(flag.option, action=argparse.BooleanOptionalAction, **common)
            continue
        if flag.kind == "bool_choice":
            on, off = BOOL_CHOICES[flag.path]
            choice = Choice(flag.spec.choices, {})
            metavar = "{" + ",".join(flag.spec.choices) + "}"
            target.add_argument(
                flag.option, nargs="?", const=on, type=choice, metavar=metavar, **common
            )
            target.add_argument(
                f"--no-{flag.option[2:]}", action="store_const", const=off, dest=flag.dest,
                default=argparse.SUPPRESS, help=f"same as {flag.option} {off}",
            )  # fmt: skip
            continue
        metavar = flag.metavar
        if flag.kind == "choice":
            metavar = "{" + ",".join(flag.parser.shown) + "}"
        target.add_argument(flag.option, type=flag.parser, metavar=metavar, **common)


def given_values(args: argparse.Namespace) -> dict[str, Any]:
    """{field path: value} of the input flags given on the command line."""
    return {k[len(DEST_PREFIX) :]: v for k, v in vars(args).items() if k.startswith(DEST_PREFIX)}


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, name = path.split(".")
    node = doc
    for part in parents:
        node = node[part]
    node[name] = value


def apply_flags(doc: dict[str, Any], given: Mapping[str, Any]) -> None:
    """Set the given flags' fields in ``doc`` (a model_dump): side effects first, so a flag
    given explicitly (``--data-mode``) wins over one implied (``--tokens``)."""
    flags = {f.path: f for f in input_flags()}
    for path in given:
        for other, value in flags[path].implies.items():
            set_path(doc, other, value)
    for path, value in given.items():
        set_path(doc, path, value)


def flag_for(path: str) -> InputFlag | None:
    """The flag that sets the field at ``path`` (or a field inside it), for error messages."""
    for flag in input_flags():
        if path == flag.path or path.startswith(flag.path + "."):
            return flag
    return None
