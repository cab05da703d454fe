"""Snapshot diff: every task lands in exactly one bucket, and applying the diff rebuilds the newer map."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.ground_truth.diff import diff_labels

label_maps = st.dictionaries(st.integers(0, 40), st.integers(-1, 3), max_size=30)


def test_worked_example():
    diff = diff_labels({1: 0, 2: 1, 3: 1}, {2: 0, 3: 1, 4: 2})
    assert diff.changed == [(2, 1, 0)]
    assert diff.added == [(4, 2)]
    assert diff.removed == [(1, 0)]
    assert diff.unchanged_count == 1


@settings(max_examples=200, deadline=None)
@given(label_maps, label_maps)
def test_applying_the_diff_to_the_old_map_gives_the_new_one(old, new):
    diff = diff_labels(old, new)
    rebuilt = dict(old)
    for task, _label in diff.removed:
        del rebuilt[task]
    for task, before, after in diff.changed:
        assert rebuilt[task] == before
        rebuilt[task] = after
    for task, label in diff.added:
        assert task not in rebuilt
        rebuilt[task] = label
    assert rebuilt == new
    shared = old.keys() & new.keys()
    assert diff.unchanged_count == sum(old[t] == new[t] for t in shared)


@settings(max_examples=50, deadline=None)
@given(label_maps)
def test_a_snapshot_against_itself_has_no_differences(labels):
    diff = diff_labels(labels, labels)
    assert (diff.changed, diff.added, diff.removed) == ([], [], [])
    assert diff.unchanged_count == len(labels)
