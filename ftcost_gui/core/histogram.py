"""A measured length histogram: the data section's record of how long the examples really are.

``File → Measure Dataset…`` and ``ftcost data`` count every example of a dataset into the bins
below and store the counts with the estimate (``data.length_histogram``). The estimate reads it as
the SHAPE of the length distribution (core/lengths.py): the bins are scaled so that their mean is
the data section's mean tokens per example, so an edited mean keeps the measured shape (as an
edited mean keeps the spread of the log-normal), and the measured mean reproduces the measured
lengths.

The bins: one per token length up to 32 tokens, then 16 per octave (each about 4.4% wider than
the last), rounded to whole tokens. Within a bin the lengths are taken as spread evenly (the
distribution's CDF is piecewise linear), so the histogram's mean is within half a bin's width of
the true mean: at most 2.2% off past 32 tokens (scaling to the measured mean removes that).
"""

from __future__ import annotations

import bisect
import functools
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_BINS = 1024
MAX_EDGE = 10**9  # tokens: no example is longer (a reader puts longer ones in the last bin)
MAX_COUNT = 10**13  # examples in one bin
_UNIT_BINS = 32  # one bin per length below this
_PER_OCTAVE = 16

Edge = Annotated[int, Field(ge=0, le=MAX_EDGE)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


class LengthHistogram(BaseModel):
    """Examples per length bin: ``counts[i]`` examples of ``edges[i]`` to ``edges[i+1]`` tokens
    (the upper edge excluded)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    edges: tuple[Edge, ...] = Field(
        (0, 1),
        title="Bin edges",
        description="Bin edges in tokens, strictly increasing; one more than the counts.",
        min_length=2,
        max_length=MAX_BINS + 1,
        json_schema_extra={"unit": "tokens"},
    )
    counts: tuple[Count, ...] = Field(
        (1,),
        title="Examples per bin",
        description="Examples whose length falls in each bin.",
        min_length=1,
        max_length=MAX_BINS,
        json_schema_extra={"unit": "examples"},
    )
    source: str = Field(
        "",
        title="Measured from",
        # No max_length, as no other text input has one: pydantic checks a length through UTF-8,
        # which refuses a name with a lone surrogate that every other text field keeps.
        description="The file, record shape and tokenizer the lengths were measured with.",
        json_schema_extra={"unit": ""},
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if len(self.edges) != len(self.counts) + 1:
            raise ValueError(
                f"a length histogram needs one more edge than counts "
                f"({len(self.edges)} edges, {len(self.counts)} counts)"
            )
        if any(b <= a for a, b in zip(self.edges, self.edges[1:], strict=False)):
            raise ValueError("the length histogram's edges must increase strictly")
        if sum(self.counts) < 1:
            raise ValueError("a length histogram needs at least one example")
        return self

    @property
    def examples(self) -> int:
        return sum(self.counts)

    @property
    def mean(self) -> float:
        """Mean length with lengths spread evenly within each bin (module docstring)."""
        total = sum(self.counts)
        mids = ((a + b) / 2.0 for a, b in zip(self.edges, self.edges[1:], strict=False))
        return sum(c * m for c, m in zip(self.counts, mids, strict=True)) / total

    @property
    def longest(self) -> int:
        """The upper edge of the last bin that holds an example."""
        last = max(i for i, c in enumerate(self.counts) if c)
        return self.edges[last + 1]


@functools.cache
def standard_edges() -> tuple[int, ...]:
    """The readers' bin edges: every length to 32 tokens, then 16 bins per octave, up to
    ``MAX_EDGE``."""
    edges = list(range(_UNIT_BINS + 1))
    k = 0
    while edges[-1] < MAX_EDGE:
        k += 1
        edge = round(_UNIT_BINS * 2 ** (k / _PER_OCTAVE))
        if edge > edges[-1]:
            edges.append(min(edge, MAX_EDGE))
    return tuple(edges)


def bin_index(length: int) -> int:
    """The standard bin of a length in tokens (lengths past ``MAX_EDGE`` go to the last bin)."""
    edges = standard_edges()
    if length < _UNIT_BINS:
        return max(length, 0)
    return min(bisect.bisect_right(edges, length) - 1, len(edges) - 2)


def from_counts(counts: dict[int, int], source: str) -> LengthHistogram:
    """A histogram of the standard bins with these counts by bin index, trimmed to the bins from
    the first to the last one that holds an example."""
    used = sorted(i for i, c in counts.items() if c)
    if not used:
        raise ValueError("no example to make a length histogram of")
    edges = standard_edges()
    first, last = used[0], used[-1]
    return LengthHistogram(
        edges=edges[first : last + 2],
        counts=tuple(counts.get(i, 0) for i in range(first, last + 1)),
        source=source,
    )
