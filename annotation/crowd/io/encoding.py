"""Crowd labels as integer arrays: the one shape every agreement and aggregation function works on.

Judgements arrive as (item, annotator, label) triples (a list of tuples, e.g. Django's
``values_list("task_id", "annotator_id", "label")``), as a pandas DataFrame with columns
``item`` (or ``task``, crowd-kit's name), ``annotator`` (or ``worker``, crowd-kit's name) and
``label``, or already encoded. ``encode`` turns triples or a DataFrame into integer codes; every
agreement, aggregation, bootstrap and quality function accepts its result (an ``Encoded``) in
their place and then encodes nothing, so a caller computing several figures from the same
judgements calls ``encode`` once and passes the result on::

    data = encode(triples)
    summary = agreement_summary(data, intervals=True)
    vote = majority_vote(data)
    rows = agreement_with_aggregate(data, vote)

One label per (item, annotator)
-------------------------------
Every figure of this package assumes that an annotator labels an item at most once: Cohen's kappa
cross-tabulates one label per annotator, Fleiss' kappa counts n ratings from n annotators, alpha
pairs an annotator's label with the others' labels, a vote gives each annotator one vote. Two rows
for the same (item, annotator) are therefore settled here, in the one step that encodes, so that
every agreement, aggregation, bootstrap and quality function (and the ground-truth job, and
``cranfield agreement``) follows the same rule, named by ``duplicates``:

- ``"refuse"`` (the default): ``DuplicateLabelError`` (a ``ValueError``) naming the first row that
  repeats an (item, annotator) and the earlier row it repeats. Repeated rows are more often a
  mistake (a file concatenated twice, an export that joins on revisions) than a deliberate
  correction, and any silent choice changes the figures.
- ``"newest"``: keep the last row of each (item, annotator), in input order, as a correction
  replaces what it corrects; ``Encoded.duplicates_dropped`` says how many rows were dropped. The
  result is exactly what encoding the rows without the older ones gives.

An ``Encoded`` records the rule it was made under (``Encoded.duplicates``); given one, functions
trust it and check nothing again.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is passed (it costs 0.4 s to import)
    import pandas as pd

Triple = tuple[Hashable, Hashable, Hashable]

DUPLICATE_RULES = ("refuse", "newest")


class DuplicateLabelError(ValueError):
    """An (item, annotator) labelled twice under ``duplicates="refuse"``.

    ``item`` and ``annotator`` are the first repeated pair; ``row`` is the row (from 0, in input
    order) that repeats it and ``first_row`` the earlier row it repeats.
    """

    def __init__(self, item: Hashable, annotator: Hashable, first_row: int, row: int) -> None:
        self.item, self.annotator, self.first_row, self.row = item, annotator, first_row, row
        super().__init__(
            f"item {item!r} has a second label from annotator {annotator!r} (rows {first_row} and "
            f"{row}, counting from 0): every agreement and aggregation figure needs one label per "
            "(item, annotator); remove the older row, or pass duplicates='newest' to keep the last "
            "row of each"
        )


def check_duplicates_rule(duplicates: str) -> None:
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates must be one of {', '.join(DUPLICATE_RULES)}, not {duplicates!r}")


def label_order(label: Hashable) -> tuple:
    # Numbers in numeric order, anything else after them in string order.
    return (0, label, "") if isinstance(label, int | float) else (1, 0, str(label))


@dataclass(frozen=True, eq=False)
class Encoded:
    """Judgements as integer arrays, with the original items, annotators and labels for decoding.

    ``items`` and ``annotators`` are in first-seen order; ``classes`` are sorted numbers first (so
    graded labels keep their order). Row r of the arrays is one judgement: ``items[item_index[r]]``
    was labelled ``classes[label_index[r]]`` by ``annotators[annotator_index[r]]``. No
    (item, annotator) occurs twice; ``duplicates`` names the rule that made it so (see the module
    notes) and ``duplicates_dropped`` how many older rows the ``newest`` rule dropped.
    """

    items: list
    annotators: list
    classes: list
    item_index: np.ndarray
    annotator_index: np.ndarray
    label_index: np.ndarray
    duplicates: str = "refuse"
    duplicates_dropped: int = 0

    def __len__(self) -> int:
        return len(self.item_index)

    @cached_property
    def ratings_per_item(self) -> np.ndarray:
        return np.bincount(self.item_index, minlength=len(self.items))

    @cached_property
    def counts(self) -> np.ndarray:
        """Items × classes matrix: how many labels of each class every item received."""
        n_classes = len(self.classes)
        flat = np.bincount(
            self.item_index * n_classes + self.label_index, minlength=len(self.items) * n_classes
        )
        return flat.reshape(len(self.items), n_classes)

    def triples(self) -> list[Triple]:
        """Back to (item, annotator, label) tuples, in row order."""
        items = np.array(self.items, dtype=object)[self.item_index]
        annotators = np.array(self.annotators, dtype=object)[self.annotator_index]
        classes = np.array(self.classes, dtype=object)[self.label_index]
        return list(zip(items.tolist(), annotators.tolist(), classes.tolist(), strict=True))

    def select(self, rows: slice | np.ndarray) -> Encoded:
        """The judgements of ``rows`` (a slice, a boolean mask or row numbers), coded as ``encode``
        would code them alone: only the items, annotators and labels they use, items and annotators
        in first-seen order. Works on the integer codes, without encoding anything again."""
        return _from_codes(
            self.item_index[rows],
            self.annotator_index[rows],
            self.label_index[rows],
            self.items,
            self.annotators,
            self.classes,
            duplicates=None,  # a subset of unique (item, annotator) rows is unique
            rule=self.duplicates,
            dropped=self.duplicates_dropped,
        )


Labels: TypeAlias = "Iterable[Triple] | pd.DataFrame | Encoded"


def factorize(values: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, list]:
    """Codes 0…k−1 in first-seen order, and the k distinct values (what ``pandas.factorize(values,
    sort=False)`` gives, without importing pandas). Integer arrays go through NumPy; anything else
    through one dict, so equal values (1 and 1.0) share a code as they do in a Python set."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iub":
        sorted_values, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank[inverse.ravel()], list(sorted_values[order].tolist())
    items: list[Any] = values.tolist() if isinstance(values, np.ndarray) else list(values)
    distinct = list(dict.fromkeys(items))  # first-seen order, at C speed
    code_of = {value: code for code, value in enumerate(distinct)}
    return np.fromiter(map(code_of.__getitem__, items), dtype=np.int64, count=len(items)), distinct


def _is_frame(labels: object) -> bool:
    return type(labels).__name__ == "DataFrame" and type(labels).__module__.startswith("pandas")


def encode(labels: Labels, *, duplicates: str = "refuse") -> Encoded:
    """Integer codes for items and annotators (first-seen order) and labels (numbers first).

    The one function that encodes: call it once and pass its result to every function of this
    package. A list of all-integer tuples takes a fast path through one NumPy array (booleans count
    as the integers 0 and 1); anything else goes through a dict (``factorize``). A pandas
    DataFrame (crowd-kit's ``task``/``worker``/``label`` columns, or ``item``/``annotator``/``label``)
    is read by its columns. An ``Encoded`` is returned as it is.

    ``duplicates``: what to do with two rows for one (item, annotator): ``"refuse"`` (raise
    ``DuplicateLabelError``) or ``"newest"`` (keep the last); see the module notes.
    """
    check_duplicates_rule(duplicates)
    if isinstance(labels, Encoded):
        return labels
    if _is_frame(labels):
        return _encode_columns(*_frame_columns(labels), duplicates)
    triples = labels if isinstance(labels, list) else list(labels)
    if not triples:
        empty = np.zeros(0, dtype=np.int64)
        return Encoded([], [], [], empty, empty, empty, duplicates)
    array = np.array(triples) if isinstance(triples[0], tuple) else None
    if array is not None and array.dtype.kind in "iub" and array.shape == (len(triples), 3):
        return _encode_columns(array[:, 0], array[:, 1], array[:, 2], duplicates)
    bad = next((row for row in triples if len(row) != 3), None)
    if bad is not None:
        raise ValueError(f"labels must be (item, annotator, label) triples, not {bad!r}")
    items, annotators, labels_given = (list(column) for column in zip(*triples, strict=True))
    return _encode_columns(items, annotators, labels_given, duplicates)


def as_encoded(labels: Labels) -> Encoded:
    """``labels`` if already encoded, else ``encode(labels)`` under the default duplicates rule
    (``refuse``): what every function of the package does with its input, so that an ``Encoded``
    passed in is never encoded again. To keep the newest of repeated labels, encode first with
    ``encode(labels, duplicates="newest")`` and pass the result."""
    return labels if isinstance(labels, Encoded) else encode(labels)


def on_scale(labels: Labels, classes: Sequence[Hashable]) -> Encoded:
    """The judgements coded against ``classes``, in that order, rather than against the labels given.

    Weighted kappa weighs a disagreement by the distance between class positions, so an ordered
    scale must keep the levels no one used: on a 0–3 scale where no one said 2, a 1 against a 3 is
    two steps apart, not one. ``classes`` must hold every label given (ValueError otherwise).
    """
    data = as_encoded(labels)
    position = {label: index for index, label in enumerate(classes)}
    outside = [label for label in data.classes if label not in position]
    if outside:
        raise ValueError(f"labels outside the scale {list(classes)}: {outside[:3]}")
    remap = np.array([position[label] for label in data.classes], dtype=np.int64)
    return Encoded(
        data.items,
        data.annotators,
        list(classes),
        data.item_index,
        data.annotator_index,
        remap[data.label_index] if len(data) else data.label_index,
        data.duplicates,
        data.duplicates_dropped,
    )


def _frame_columns(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # crowd-kit names the columns task, worker, label; both spellings are read.
    item = "item" if "item" in frame.columns else "task"
    annotator = "annotator" if "annotator" in frame.columns else "worker"
    missing = [name for name in (item, annotator, "label") if name not in frame.columns]
    if missing:
        raise ValueError(
            f"the DataFrame needs columns item (or task), annotator (or worker), label; missing {missing}"
        )
    if frame[[item, annotator, "label"]].isna().to_numpy().any():
        raise ValueError("the DataFrame has missing values in item, annotator or label")
    return frame[item].to_numpy(), frame[annotator].to_numpy(), frame["label"].to_numpy()


def _encode_columns(
    items: Sequence[Any] | np.ndarray,
    annotators: Sequence[Any] | np.ndarray,
    labels: Sequence[Any] | np.ndarray,
    duplicates: str = "refuse",
) -> Encoded:
    item_index, item_values = factorize(items)
    annotator_index, annotator_values = factorize(annotators)
    label_codes, label_values = factorize(labels)
    return _from_codes(
        item_index,
        annotator_index,
        label_codes,
        item_values,
        annotator_values,
        label_values,
        compact=True,
        duplicates=duplicates,
    )


def _not_first(key: np.ndarray) -> np.ndarray:
    """A mask of the rows whose key occurred on an earlier row."""
    mask = np.ones(len(key), dtype=bool)
    mask[np.unique(key, return_index=True)[1]] = False
    return mask


def repeated_rows(item_codes: np.ndarray, annotator_codes: np.ndarray, n_annotators: int) -> np.ndarray:
    """A mask of the rows whose (item, annotator) occurs again later (the rows ``newest`` drops);
    one hash pass over an int64 key per row."""
    key = item_codes.astype(np.int64) * max(n_annotators, 1) + annotator_codes
    return _not_first(key[::-1])[::-1]


def _settle_duplicates(
    item_codes: np.ndarray,
    annotator_codes: np.ndarray,
    item_values: list,
    annotator_values: list,
    duplicates: str,
) -> np.ndarray | None:
    """None when every (item, annotator) is unique; else, under ``newest``, the rows to keep.
    Under ``refuse`` raises ``DuplicateLabelError`` for the first row repeating an earlier one."""
    check_duplicates_rule(duplicates)
    older = repeated_rows(item_codes, annotator_codes, len(annotator_values))
    if not older.any():
        return None
    if duplicates == "newest":
        return ~older
    key = item_codes.astype(np.int64) * max(len(annotator_values), 1) + annotator_codes
    row = int(np.argmax(_not_first(key)))
    first_row = int(np.argmax(key == key[row]))
    raise DuplicateLabelError(
        item_values[int(item_codes[row])], annotator_values[int(annotator_codes[row])], first_row, row
    )


def _from_codes(
    item_codes: np.ndarray,
    annotator_codes: np.ndarray,
    label_codes: np.ndarray,
    item_values: list,
    annotator_values: list,
    label_values: list,
    *,
    compact: bool = False,
    duplicates: str | None = "refuse",
    rule: str | None = None,
    dropped: int = 0,
) -> Encoded:
    """Compact codes (only values that occur, items and annotators in first-seen order, classes sorted).

    ``compact``: item and annotator codes are already 0..n-1 in first-seen order (fresh from factorize).
    ``duplicates``: the rule for repeated (item, annotator) rows, applied before anything else; None
    when the rows are known to be unique (``rule`` and ``dropped`` are then recorded as given).
    """
    if duplicates is not None:
        keep = _settle_duplicates(item_codes, annotator_codes, item_values, annotator_values, duplicates)
        rule = duplicates
        if keep is not None:
            # Encoded afresh from the kept rows, so that first-seen orders are those of the rows
            # kept: exactly what encoding the rows without the older ones gives.
            return _from_codes(
                item_codes[keep],
                annotator_codes[keep],
                label_codes[keep],
                item_values,
                annotator_values,
                label_values,
                duplicates=None,
                rule=duplicates,
                dropped=int(len(keep) - np.count_nonzero(keep)),
            )
    if compact:
        item_index, items = item_codes, item_values
        annotator_index, annotators = annotator_codes, annotator_values
    else:
        item_index, item_first = factorize(np.asarray(item_codes, dtype=np.int64))
        annotator_index, annotator_first = factorize(np.asarray(annotator_codes, dtype=np.int64))
        items = [item_values[code] for code in item_first]
        annotators = [annotator_values[code] for code in annotator_first]
    present = np.flatnonzero(np.bincount(label_codes, minlength=len(label_values)))
    classes = sorted((label_values[code] for code in present.tolist()), key=label_order)
    position = {label: index for index, label in enumerate(classes)}
    remap = np.zeros(max(len(label_values), 1), dtype=np.int64)
    remap[present] = [position[label_values[code]] for code in present.tolist()]
    return Encoded(
        items,
        annotators,
        classes,
        item_index.astype(np.int64, copy=False),
        annotator_index.astype(np.int64, copy=False),
        remap[label_codes],
        rule or "refuse",
        dropped,
    )
