"""The manager's "Effective catalog" tab: what estimates use with the selected catalog active."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from ...core.catalog import EffectiveRow
from ...io.catalog_cells import BY_FIELD
from ...io.names import plain
from .text import fmt_price, origin_label, tier_label

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NUMERIC = range(6, 10)


def fill_effective(table: QTableWidget, rows: Sequence[EffectiveRow]) -> int:
    """Fill the table (one row per GPU, overriding rows bold and marked ▲); returns how many
    built-in rows are overridden."""
    table.setUpdatesEnabled(False)
    table.setRowCount(0)  # cheaper than reusing items: every cell is set below
    table.setRowCount(len(rows))
    bold = QFont(table.font())
    bold.setBold(True)
    memory = BY_FIELD["memory_gib"]
    n_over = 0
    for i, r in enumerate(rows):
        g = r.gpu
        over = ""
        if r.overrides_builtin and r.builtin is not None:
            over = f"▲ built-in ({fmt_price(r.builtin.on_demand_usd_per_hour)})"
            n_over += 1
        cells = (
            origin_label(r.origin),
            over,
            g.name,
            g.id,
            g.provider,
            tier_label(g.pricing_tier),
            memory.format(g.memory_gib),
            f"{g.bf16_tflops:,.1f}",
            fmt_price(g.on_demand_usd_per_hour),
            fmt_price(g.spot_usd_per_hour) if g.spot_usd_per_hour is not None else "—",
            g.price_as_of,
        )
        for j, text in enumerate(cells):
            item = QTableWidgetItem(plain(text))  # names from catalog files are data
            if r.overrides_builtin:
                item.setFont(bold)
                if j == 1 and r.builtin is not None:
                    item.setToolTip(
                        f"Replaces the built-in row {r.builtin.name}: built-in on-demand "
                        f"{fmt_price(r.builtin.on_demand_usd_per_hour)}"
                    )
            if j in _NUMERIC:
                item.setTextAlignment(_RIGHT)
            table.setItem(i, j, item)
    table.resizeColumnsToContents()
    table.setUpdatesEnabled(True)
    return n_over
