"""The "Which GPU" table as a Qt model: one row per compared GPU, in ranking order.

A model, not a table of items: a 5,000-row catalog is shown without 70,000 cell objects, and a
new ranking is one model reset. The texts of a row are ``row_texts`` (what tests compare with
``compare_gpus``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.catalog import BUILTIN_ORIGIN
from ...core.compare import GpuComparison
from ...core.units import SECONDS_PER_HOUR, fmt_hours, fmt_usd
from ...io.names import plain
from ..rich_text import rich_text
from .text import origin_label, tier_label

GREY_TEXT = QColor(120, 120, 120)
Index = QModelIndex | QPersistentModelIndex

COLUMNS: tuple[tuple[str, str], ...] = (
    ("#", "Rank among the GPUs that fit (– : does not fit)"),
    ("GPU", "★ cheapest GPU that fits · » fastest GPU that fits · ◀ this estimate's GPU"),
    ("Provider", "Who rents it out, and where (the catalog row's provider and region)"),
    ("Tier", "How the row is billed: on-demand, spot, 1- or 3-year committed"),
    ("Fits", "The job fits in memory at the current settings"),
    ("GPUs", "GPUs the row is priced for; 'needs M' when the memory floor forces more"),
    (
        "TFLOPS\nper GPU",
        "Achieved TFLOPS per GPU: dense peak × MFU ÷ (QLoRA, communication, offload slowdowns)",
    ),
    ("$ per\n1e18 FLOP", "On-demand price ÷ achieved FLOP/s: dollars per 10^18 FLOPs of work"),
    ("Wall-\nclock", "Held wall-clock: training plus start-up, checkpoints, evaluation"),
    (
        "$ per run",
        "Cost of one run at the row's tier: GPU-hours held × its price (on-demand or committed "
        "rate); a spot row on spot, interruptions included",
    ),
    ("$ per run\nspot", "Cost of one run on spot, interruptions included; – : no spot price"),
    ("GPU-h\nheld", "GPU-hours held: GPUs × held wall-clock, what is billed"),
    ("Origin", "built-in, or user (the active catalog); ▲: replaces the built-in row"),
)

COL_RANK, COL_GPU, COL_PROVIDER, COL_TIER, COL_FITS, COL_GPUS = range(6)
COL_RUN, COL_ORIGIN = 9, 12
_NUMERIC = frozenset({COL_RANK, COL_GPUS, *range(6, 12)})
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_R = Qt.ItemDataRole
_ROLES = frozenset(  # the roles ``data`` answers
    int(r.value) for r in (_R.DisplayRole, _R.TextAlignmentRole, _R.FontRole, _R.ForegroundRole,
                           _R.ToolTipRole, _R.UserRole)
)  # fmt: skip


def gpus_text(r: GpuComparison) -> str:
    if r.gpus_needed is None:
        return f"{r.num_gpus} (no count fits)"
    if not r.fits and r.gpus_needed > r.num_gpus:
        return f"{r.num_gpus} (needs {r.gpus_needed})"
    return str(r.num_gpus)


def short_origin(origin: str | None) -> str:
    if not origin:
        return ""
    return "built-in" if origin == BUILTIN_ORIGIN else "user"


def provider_text(r: GpuComparison) -> str:
    return " · ".join(plain(t) for t in (r.provider, r.region) if t)


def row_texts(r: GpuComparison, rank: int | None, marks: str) -> list[str]:
    """The table's cells for one GPU."""
    # Names from catalog files are data: no control or bidi characters (io/names.py).
    name = plain(r.gpu_name) + ("" if r.bf16_supported else " (FP16)")
    return [
        str(rank) if rank is not None else "–",
        f"{marks} {name}".strip(),
        provider_text(r),
        tier_label(r.pricing_tier),
        "yes" if r.fits else "no",
        gpus_text(r),
        f"{r.achieved_tflops:,.0f}" if r.achieved_tflops >= 100 else f"{r.achieved_tflops:,.1f}",
        f"${r.usd_per_1e18_flops:,.2f}",
        fmt_hours(r.wall_clock_s / SECONDS_PER_HOUR),
        fmt_usd(r.run_usd),
        fmt_usd(r.spot_usd) if r.spot_usd is not None else "–",
        f"{r.held_gpu_hours:,.1f}",
        short_origin(r.origin),
    ]


class ComparisonModel(QAbstractTableModel):
    """Ranked comparison rows; ``set_rows`` replaces them all (one reset)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.rows: list[GpuComparison] = []
        self.cheapest: GpuComparison | None = None
        self.fastest: GpuComparison | None = None
        self._ranks: list[int | None] = []
        self._texts: dict[int, list[str]] = {}  # made when a row is first shown
        self.bold_font = QFont()  # the cheapest row's (the table's column widths measure it)
        self.bold_font.setBold(True)

    def set_rows(
        self,
        rows: Sequence[GpuComparison],
        cheapest: GpuComparison | None,
        fastest: GpuComparison | None,
    ) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.cheapest, self.fastest = cheapest, fastest
        rank, ranks = 0, []
        for r in self.rows:
            if r.fits:
                rank += 1
            ranks.append(rank if r.fits else None)
        self._ranks = ranks
        self._texts.clear()
        self.endResetModel()

    def marks(self, r: GpuComparison) -> str:
        return (
            ("★" if r is self.cheapest else "")
            + ("»" if r is self.fastest else "")
            + ("◀" if r.current else "")
        )

    def texts(self, row: int) -> list[str]:
        texts = self._texts.get(row)
        if texts is None:
            r = self.rows[row]
            texts = self._texts[row] = row_texts(r, self._ranks[row], self.marks(r))
        return texts

    def tip(self, r: GpuComparison) -> str:
        tips = []
        if r is self.cheapest:
            tips.append("Cheapest GPU that fits (cost per run at its tier)")
        if r is self.fastest:
            tips.append("Fastest GPU that fits (held wall-clock)")
        if r.current:
            tips.append("This estimate's GPU")
        if r.origin:
            tips.append(f"From {origin_label(r.origin)}")
        # A tooltip guesses rich text, and the warnings name the GPU (data): shown as written.
        text = "\n".join([*tips, *map(plain, r.warnings)])
        return rich_text(text)

    # --- Qt model --------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][1]
        return None

    def data(self, index: Index, role: int = 0) -> Any:
        # A painted cell asks ~8 roles, most of which no row sets (decoration, background,
        # check state, size hint…): those answer at once.
        if role not in _ROLES or not index.isValid():
            return None
        row, col = index.row(), index.column()
        r = self.rows[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.texts(row)[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in _NUMERIC:
            return _RIGHT
        if role == Qt.ItemDataRole.FontRole and r is self.cheapest:
            return self.bold_font
        if role == Qt.ItemDataRole.ForegroundRole and not r.fits:
            return QBrush(GREY_TEXT)
        if role == Qt.ItemDataRole.ToolTipRole and col == COL_GPU:
            return self.tip(r) or None
        if role == Qt.ItemDataRole.UserRole:
            return r.gpu_id
        return None
