"""Scenario operations of an estimate document (core/document.py), each checked by hand: the
order of the scenarios, the selection and the names after each operation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftcost_gui.core.document import MAX_NAME, EstimateDocument, Scenario, compare_methods

from .helpers import make

A, B, C = (make(data__num_examples=n) for n in (100, 200, 300))


def doc(active=0):
    return EstimateDocument(
        scenarios=(Scenario(name="a", inputs=A), Scenario(name="b", inputs=B),
                   Scenario(name="c", inputs=C)),
        active=active,
    )  # fmt: skip


def names(d):
    return [s.name for s in d.scenarios]


def test_single_and_current():
    d = EstimateDocument.single(B, "only")
    assert (names(d), d.active, d.current.inputs) == (["only"], 0, B)
    assert doc(2).current.name == "c"


def test_unique_names():
    d = doc()
    assert d.unique_name("new") == "new"
    assert d.unique_name("  a  ") == "a (2)"
    assert d.added(A, "a").unique_name("a") == "a (3)"
    assert d.unique_name("   ") == "Scenario"
    long = "x" * (MAX_NAME + 50)
    assert d.unique_name(long) == "x" * MAX_NAME
    taken = d.added(A, "x" * MAX_NAME)
    assert taken.unique_name(long) == "x" * (MAX_NAME - 4) + " (2)"
    assert len(taken.unique_name(long)) == MAX_NAME


def test_with_inputs_replaces_only_the_selected():
    d = doc(1).with_inputs(C)
    assert [s.inputs for s in d.scenarios] == [A, C, C]
    assert (names(d), d.active) == (["a", "b", "c"], 1)


def test_selected():
    assert doc().selected(2).active == 2
    with pytest.raises(ValidationError):
        doc().selected(3)


def test_added_appends_and_selects():
    d = doc(0).added(B, "b")
    assert (names(d), d.active, d.current.inputs) == (["a", "b", "c", "b (2)"], 3, B)


def test_duplicated_inserts_after_and_selects():
    d = doc(2).duplicated(0)
    assert (names(d), d.active) == (["a", "a (2)", "b", "c"], 1)
    assert d.scenarios[1].inputs == A


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("b", ""),  # its own name
        ("  ", "A scenario needs a name."),
        ("x" * (MAX_NAME + 1), f"Scenario names are at most {MAX_NAME} characters."),
        ("c", "There is already a scenario named 'c'."),
        ("  new   name ", ""),
    ],
)
def test_rename_problem(name, problem):
    assert doc().rename_problem(1, name) == problem


def test_renamed_collapses_spaces_and_keeps_the_selection():
    d = doc(2).renamed(1, "  new   name ")
    assert (names(d), d.active) == (["a", "new name", "c"], 2)
    assert d.scenarios[1].inputs == B


@pytest.mark.parametrize(
    ("active", "index", "left", "selected"),
    [
        (0, 1, ["a", "c"], 0),  # after the selection: it stays
        (2, 0, ["b", "c"], 1),  # before it: the selection moves down with its scenario
        (1, 1, ["a", "c"], 1),  # the selected one: its right neighbour
        (2, 2, ["a", "b"], 1),  # the selected last one: its left neighbour
    ],
)
def test_deleted(active, index, left, selected):
    d = doc(active).deleted(index)
    assert d is not None
    assert (names(d), d.active) == (left, selected)


def test_deleted_refuses_the_last_scenario_and_bad_indexes():
    assert EstimateDocument.single(A).deleted(0) is None
    assert doc().deleted(3) is None and doc().deleted(-1) is None


@pytest.mark.parametrize(
    ("active", "index", "to", "order", "selected"),
    [
        (0, 0, 2, ["b", "c", "a"], 2),  # the selected one moves: the selection follows it
        (1, 0, 2, ["b", "c", "a"], 0),  # another moves past it
        (2, 2, 0, ["c", "a", "b"], 0),
        (0, 2, 1, ["a", "c", "b"], 0),
    ],
)
def test_moved(active, index, to, order, selected):
    d = doc(active).moved(index, to)
    assert d is not None
    assert (names(d), d.active) == (order, selected)


def test_moved_refuses_no_move_and_bad_indexes():
    d = doc()
    assert d.moved(1, 1) is None and d.moved(0, 3) is None and d.moved(-1, 0) is None


def test_a_document_refuses_duplicate_names_and_a_bad_selection():
    with pytest.raises(ValidationError):
        EstimateDocument(scenarios=(Scenario(name="a"), Scenario(name="a")))
    with pytest.raises(ValidationError):
        EstimateDocument(scenarios=(Scenario(name="a"),), active=1)


def test_compare_methods_appends_three_and_selects_the_first():
    d = compare_methods(doc(1))
    assert names(d)[:3] == ["a", "b", "c"]
    assert len(d.scenarios) == 6 and d.active == 3
    assert all(n.startswith("b · ") for n in names(d)[3:])
    assert [s.inputs.training.method for s in d.scenarios[3:]] == [
        "full_amp_adamw",
        "lora",
        "qlora",
    ]
