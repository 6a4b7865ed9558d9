"""``ftcost estimate``'s table: ``present.sections`` laid out as aligned text."""

from __future__ import annotations

from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from ..io.names import for_terminal as term
from ..present.sections import estimate_sections, headline

LABEL_WIDTH = 27


def format_estimate(inputs: EstimateInputs, r: EstimateResult) -> str:
    """A headline, then one block per section: its title and '  label  value' rows."""
    lines = [term(headline(inputs, r)), ""]
    for section in estimate_sections(inputs, r):
        lines.append(term(section.title))
        # A longer label ('Cost per run (3-year committed)') widens its section's column: a
        # value never runs into its label.
        width = max([LABEL_WIDTH, *(len(label) + 1 for label, _ in section.rows)])
        lines += [f"  {label:<{width}}{term(value)}" for label, value in section.rows]
        lines += [f"  - {term(item)}" for item in section.items]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
