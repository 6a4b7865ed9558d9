"""A remembered estimate is the estimate (issue 17): over the whole input space, an estimate made
right after another one (whose memory steps, plan, job and bands the core remembers) equals the
same estimate made with nothing remembered.

The memos are keyed by what each step reads (core/remembered.py, estimate._job, ranges); a key
that leaves out a field the step reads gives the previous inputs' figures after an edit of that
field. So the second inputs are the first with ONE field drawn anew — every field of the layout
in turn over the draws, the edit the window makes — where such a gap shows; and a second draw
from anywhere, for edits of many fields at once.
"""

from __future__ import annotations

import importlib
import pkgutil

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ftcost_gui.core as core_package
from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.results import EstimateResult

from .strategies import _validated, examples, input_docs, layout, one_field_edited

# One field edited: ~130 fields share the draws (CI: ~23 edits of each field; default: 300 draws).
EDITS = settings(max_examples=examples(0.3, least=300))
ANY = settings(max_examples=examples(0.1))


def _memos() -> list[list[object]]:
    """Every memo of the core: module-level lists named ``*_MEMO`` (core/remembered.py's and
    any a module keeps of its own), found by name so a new memo is forgotten too."""
    out = []
    for info in pkgutil.iter_modules(core_package.__path__):
        module = importlib.import_module(f"{core_package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if name.endswith("_MEMO") and isinstance(value, list):
                out.append(value)
    return out


MEMOS = _memos()


def _afresh(inputs: EstimateInputs) -> EstimateResult:
    for memo in MEMOS:
        memo.clear()
    return estimate(inputs)


def _same(warm: EstimateResult, cold: EstimateResult) -> None:
    assert repr(warm.model_dump()) == repr(cold.model_dump())  # repr: NaN equals NaN


def test_the_memos_are_found():
    assert len(MEMOS) >= 6  # remembered.py's six, estimate's jobs, ranges' memory bands


@EDITS
@given(input_docs(), st.integers(0, len(layout()) - 1), st.integers(0, 2**32 - 1))
def test_an_estimate_after_an_edit_of_one_field_equals_one_made_afresh(doc, index, code):
    pair = one_field_edited(doc, index, code)
    assume(pair is not None)
    first, edited = pair
    _afresh(first)
    warm = estimate(edited)
    _same(warm, _afresh(edited))


@ANY
@given(input_docs(), input_docs())
def test_an_estimate_after_any_other_equals_one_made_afresh(doc, other):
    first, second = _validated(doc), _validated(other)
    assume(first is not None and second is not None)
    _afresh(first)
    warm = estimate(second)
    _same(warm, _afresh(second))
