"""Headline figures in large type and a breakdown table, both read from one EstimateResult."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.inputs import EstimateInputs
from ..core.results import MEMORY_PART_LABELS, EstimateResult
from ..core.units import fmt_gib, fmt_hours, fmt_pct, fmt_usd
from .explain import sci

HEADLINES: tuple[tuple[str, str], ...] = (
    ("memory", "Memory per GPU"),
    ("gpus", "GPUs"),
    ("gpu_hours", "Compute GPU-hours"),
    ("wall", "Wall-clock (held)"),
    ("cost", "Cost per run"),
    ("project", "Project total"),
)


class HeadlineCard(QFrame):
    """One figure: a small caption, the value in large type, a detail line."""

    def __init__(self, key: str, caption: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"card_{key}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(1)
        self.caption = QLabel(caption, self)
        self.caption.setStyleSheet("color: palette(dark);")
        self.value = QLabel("—", self)
        self.value.setObjectName(f"value_{key}")
        font = QFont(self.value.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.value.setFont(font)
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel("", self)
        self.detail.setObjectName(f"detail_{key}")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.caption)
        lay.addWidget(self.value)
        lay.addWidget(self.detail)
        lay.addStretch(1)

    def set(self, value: str, detail: str, tooltip: str = "", ok: bool | None = None) -> None:
        self.value.setText(value)
        self.detail.setText(detail)
        color = "" if ok is None else ("color: #1b5e20;" if ok else "color: #b71c1c;")
        self.value.setStyleSheet(color)
        self.setToolTip(tooltip)
        self.value.setAccessibleName(f"{self.caption.text()}: {value}")


def headline_texts(inputs: EstimateInputs, r: EstimateResult) -> dict[str, tuple[str, str, str]]:
    """(value, detail, tooltip) per headline key; pure, so tests compare against it."""
    mem, t, c, p = r.memory, r.time, r.cost, r.project
    need = "none fits" if mem.gpus_needed is None else f"{mem.gpus_needed} needed"
    if c.spot_usd is not None:
        advice = "take spot" if c.take_spot else "stay on-demand"
        spot = f"spot {fmt_usd(c.spot_usd)} (F = {c.spot_factor:.3f}: {advice})"
    else:
        spot = "no spot price"
    return {
        "memory": (
            f"{fmt_gib(mem.total_bytes)} of {fmt_gib(mem.usable_bytes)} usable",
            f"{'fits' if mem.fits else 'does NOT fit'} · "
            f"{inputs.hardware.usable_memory_fraction:.0%} of "
            f"{inputs.hardware.gpu.memory_gib:g} GiB "
            f"{inputs.hardware.gpu.name}",
            "Peak memory of one GPU vs the usable share of its reported memory.",
        ),
        "gpus": (
            f"{t.num_gpus} used",
            f"{need} · {t.nodes} node{'s' if t.nodes != 1 else ''} of "
            f"{inputs.hardware.gpus_per_node}",
            "GPUs needed: the fewest whose per-GPU memory fits with the chosen sharding.",
        ),
        "gpu_hours": (
            f"{t.compute_gpu_hours:,.1f} GPU-h",
            f"{sci(r.flops.total_flops)} FLOPs at {fmt_pct(t.effective_mfu)} effective MFU",
            "FLOPs ÷ achieved FLOP/s per GPU ÷ 3600 (article 000).",
        ),
        "wall": (
            fmt_hours(t.held_wall_s / 3600),
            f"{t.held_gpu_hours:,.1f} GPU-h held · training {fmt_hours(t.train_wall_s / 3600)}",
            "Wall-clock the GPUs are held: training plus start-up, checkpoints, evaluation.",
        ),
        "cost": (
            f"{fmt_usd(c.on_demand_usd)} on-demand",
            f"{spot} · range {fmt_usd(c.low_usd)} – {fmt_usd(c.high_usd)}",
            "Held GPU-hours × your price; range at the MFU band's ends.",
        ),
        "project": (
            fmt_usd(p.total_usd),
            f"{p.runs} runs × {fmt_usd(p.run_usd)} + storage + eng. · "
            f"{fmt_usd(p.low_usd)} – {fmt_usd(p.high_usd)}",
            "Runs (planned + failed) × cost per run + checkpoint storage + engineering hours.",
        ),
    }


def breakdown_rows(inputs: EstimateInputs, r: EstimateResult) -> list[tuple[str, str, str]]:
    """(group, item, value) rows of the breakdown table."""
    rows: list[tuple[str, str, str]] = []
    mem = r.memory
    for key, value in mem.parts():
        rows.append(("Memory per GPU", MEMORY_PART_LABELS[key], fmt_gib(value, 2)))
    rows.append(("Memory per GPU", "Total", fmt_gib(mem.total_bytes, 2)))
    rows.append(("Memory per GPU", "Usable", fmt_gib(mem.usable_bytes, 2)))
    if mem.cpu_offloaded_bytes:
        rows.append(
            ("Memory per GPU", "Offloaded to CPU (all GPUs)", fmt_gib(mem.cpu_offloaded_bytes))
        )
    f = r.flops
    for name, v in (
        ("Parameter matmuls", f.base_per_token),
        ("Recompute (checkpointing)", f.recompute_per_token),
        ("Attention", f.attention_per_token),
        ("Adapters", f.adapters_per_token),
        ("Total per token", f.per_token),
    ):
        rows.append(("FLOPs per token", name, sci(v)))
    rows.append(("FLOPs per token", "Training FLOPs (× D)", sci(f.total_flops)))
    c = r.cost
    for name, v in (
        ("Training", c.training_usd),
        ("Start-up", c.startup_usd),
        ("Checkpoint writes", c.checkpoint_usd),
        ("Evaluation", c.evaluation_usd),
        ("RL generation", c.rl_generation_usd),
        ("Idle", c.idle_usd),
        ("Total on-demand", c.on_demand_usd),
    ):
        rows.append(("Cost per run", name, fmt_usd(v)))
    if c.spot_usd is not None:
        rows.append(("Cost per run", "Total spot", fmt_usd(c.spot_usd)))
    rows.append(("Cost per run", "Per 1e18 FLOPs", fmt_usd(c.usd_per_1e18_flops)))
    t = r.time
    for name, s in (
        ("Training", t.train_wall_s),
        ("Provisioning", t.provisioning_s),
        ("Weight download", t.download_s),
        ("Warm-up", t.warmup_s),
        ("NCCL init", t.nccl_s),
        ("Checkpoint writes", t.checkpoint_writes_s),
        ("Evaluation", t.eval_s),
        ("RL generation", t.rl_generation_s),
        ("Idle", t.idle_s),
        ("Total held", t.held_wall_s),
    ):
        rows.append(("Wall-clock", name, fmt_hours(s / 3600)))
    p = r.project
    rows.append(("Project", f"Runs ({p.runs})", fmt_usd(p.runs_usd)))
    rows.append(("Project", "Storage", fmt_usd(p.storage_usd)))
    rows.append(("Project", "Engineering", fmt_usd(p.engineering_usd)))
    rows.append(("Project", "Total", fmt_usd(p.total_usd)))
    return rows


class HeadlineView(QWidget):
    """A grid of headline cards plus a warnings line."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        self.cards: dict[str, HeadlineCard] = {}
        for i, (key, caption) in enumerate(HEADLINES):
            card = HeadlineCard(key, caption, self)
            grid.addWidget(card, i // 3, i % 3)
            self.cards[key] = card
        for col in range(3):
            grid.setColumnStretch(col, 1)
        self.warnings = QLabel("", self)
        self.warnings.setObjectName("warnings")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #b71c1c;")
        self.warnings.hide()
        grid.addWidget(self.warnings, 2, 0, 1, 3)

    def set_result(self, inputs: EstimateInputs, r: EstimateResult) -> None:
        texts = headline_texts(inputs, r)
        for key, (value, detail, tip) in texts.items():
            ok = r.memory.fits if key == "memory" else None
            self.cards[key].set(value, detail, tip, ok)
        self.warnings.setText("⚠ " + "  ⚠ ".join(r.warnings) if r.warnings else "")
        self.warnings.setVisible(bool(r.warnings))


class BreakdownTable(QTableWidget):
    """Memory parts, FLOP parts per token, cost parts and time parts."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 3, parent)
        self.setObjectName("breakdown")
        self.setHorizontalHeaderLabels(["Group", "Part", "Value"])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        hh = self.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.setAccessibleName("Breakdown table")

    def set_result(self, inputs: EstimateInputs, r: EstimateResult) -> None:
        rows = breakdown_rows(inputs, r)
        self.setRowCount(len(rows))
        previous = None
        for i, (group, item, value) in enumerate(rows):
            cells = (group if group != previous else "", item, value)
            previous = group
            for j, text in enumerate(cells):
                cell = self.item(i, j)
                if cell is None:
                    cell = QTableWidgetItem()
                    self.setItem(i, j, cell)
                cell.setText(text)
                if j == 2:
                    cell.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if j == 0:
                    f = cell.font()
                    f.setBold(True)
                    cell.setFont(f)

    def values(self) -> list[tuple[str, str]]:
        return [(self.item(i, 1).text(), self.item(i, 2).text()) for i in range(self.rowCount())]
