"""A large qrels file and run scored as whole columns (pure): both read by Arrow's C++ CSV reader (ids as
Arrow dictionaries: each row's index into the distinct ids), every run line joined with its qrels value
through one table of (topic, docno) cells or one binary search, and every topic ranked by one sort (none
for a run written in rank order), instead of a Python string per docno, a dict per topic and a look-up
per line. ``batched.evaluate_ranked`` then scores all topics at once.

Only for files that Arrow reads exactly as the Python passes of ``files`` do: plain ASCII, no blank
but spaces and line ends (``\n``, ``\r\n``), no quote, no NUL, no comment line (``_plain``); every
line with the first line's number of fields (four in the qrels, at least six in the run) and no empty
field (two spaces side by side, a space at either end of a line: found in the offsets of every column
Arrow read); a relevance that Arrow and Python's ``int`` both read (Arrow takes ``0x1``); no NaN score,
repeated qrels pair or docno retrieved twice for a topic. ``rank_files`` gives None for anything else,
and the caller reads the files with ``files`` as before (whose errors name the line). Arrow's float
parser gives Python's ``float`` value wherever it accepts a text (checked on 30,000 random texts), and
rejects ``1_0``, which then goes to the Python passes. Arrow's compute functions are not used (0.3 s to
start), nor its ``to_numpy`` (it imports pandas).
"""

from __future__ import annotations

import threading
from os import PathLike
from pathlib import Path
from typing import NamedTuple

import numpy as np

from evaluation.metrics.trec.measures import NOT_IN_POOL, UNJUDGED_IN_POOL, RankedTopic

# Below this run size the Python and NumPy readers are as quick, and Arrow's import (0.1–0.2 s) would
# be most of a small job's time.
SMALLEST_RUN = 4 << 20
# The most (topic, docno) cells joined through a dense table (4 bytes each), rather than binary search.
DENSE_CELLS = 1 << 24
# Blanks to str.split but not to Arrow, a quote (Arrow's quoting is off, but to be plain), NUL.
_NEVER = (b"\t", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\x00", b'"')


class RankedCollection(NamedTuple):
    """Every scored topic, in trec_eval's order, as ``rank_topic`` would give it, and the run's tag."""

    topics: dict[str, RankedTopic]
    tag: str


def rank_files(
    qrels_path: str | PathLike,
    run_path: str | PathLike,
    *,
    judged_only: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    smallest_run: int | None = None,
) -> RankedCollection | None:
    """The topics ``evaluate`` would score, each ranked as ``rank_topic`` ranks it (the same arrays),
    or None when the files are not for this reader (see the module docstring) or the run is small."""
    try:
        if Path(run_path).stat().st_size < (SMALLEST_RUN if smallest_run is None else smallest_run):
            return None
        qrels_bytes, run_bytes = Path(qrels_path).read_bytes(), Path(run_path).read_bytes()
    except OSError:  # the caller's reading says which file, as before
        return None
    if not (_plain(run_bytes) and _plain(qrels_bytes)):
        return None
    try:
        import pyarrow.csv  # noqa: F401  (an optional speed-up: without it, the files are read as before)
    except ImportError:
        return None
    # The qrels read in a second thread while this one reads the run: Arrow's reader lets go of the GIL,
    # so on two cores the qrels' 0.1 s come off the wall-clock time (not off the CPU time).
    read: dict = {}

    def read_qrels() -> None:
        try:
            read["qrels"] = _read(qrels_bytes, {0: "qid", 2: "docno", 3: "rel"}, exact=4)
        except BaseException as error:  # raised here below, as if read in this thread
            read["error"] = error

    reader = threading.Thread(target=read_qrels)
    reader.start()
    try:
        run = _read(run_bytes, {0: "qid", 2: "docno", 4: "score"}, exact=None)
    finally:
        reader.join()
    if "error" in read:
        raise read["error"]
    qrels = read["qrels"]
    if qrels is None or run is None:
        return None
    return _rank(qrels, run, judged_only=judged_only, complete=complete, max_docs=max_docs)


def _plain(data: bytes) -> bool:
    """Whether Arrow's lines and fields can be Python's: ASCII, no blank but spaces and line ends, no
    quote, no NUL, no comment line. (Empty fields, which Arrow reads between two spaces and Python's
    ``str.split`` does not, are looked for in what Arrow read: ``_read``.)"""
    if not data.isascii() or any(mark in data for mark in _NEVER):
        return False
    if data[:1] == b"#" or (b"#" in data and b"\n#" in data):
        return False  # a comment line (a # inside a docno, as in MS MARCO's segment ids, is not one)
    return b"\r" not in data or data.count(b"\r") == data.count(b"\r\n")


def _read(data: bytes, wanted: dict[int, str], exact: int | None) -> dict[str, np.ndarray] | None:
    """The wanted columns of a file as NumPy arrays (an id column as each row's index into its distinct
    ids, listed under the column's name plus "s"), or None if Arrow cannot read it as the Python passes
    would (a different number of fields on a line, an empty field, a number it does not take, a
    hexadecimal relevance, no data). Only Arrow's reader: its compute functions cost 0.3 s to start."""
    import pyarrow as pa

    first = data[: data.find(b"\n")] if b"\n" in data else data
    width = len(first.split())
    if width != exact if exact else width < 6:  # the qrels' four fields, the run's six or more
        return None
    if len(data) >= 1 << 31:  # one block of Arrow's
        return None
    if "rel" in wanted.values() and (b"0x" in data or b"0X" in data) and _hexadecimal(data, width):
        return None  # Arrow reads a relevance 0x1 as hexadecimal, Python's int does not
    # Every column read, though only the wanted ones are used: a field Arrow reads as empty (two
    # spaces, a space at either end of a line) is none to str.split, whose fields would then differ.
    names = [wanted.get(i, f"f{i}") for i in range(width)]
    # Ids as Arrow dictionaries (each row's index into the distinct ids, first seen first): the hashing
    # is done while reading, at no extra cost, and only the distinct ids become Python strings.
    ids = pa.dictionary(pa.int32(), pa.string())
    types = {name: pa.string() for name in names} | {"qid": ids, "docno": ids}
    table = _table(data, names, types | {"score": pa.float64(), "rel": pa.int64()})
    if (
        table is None
        or not table.num_rows
        or any(column.num_chunks != 1 or column.null_count for column in table.columns)
    ):
        return None
    for name in names:
        chunk = table.column(name).chunk(0)
        strings = chunk.dictionary if name in ("qid", "docno") else chunk
        if name not in ("score", "rel") and not np.diff(_numbers(strings, np.int32, offsets=True)).all():
            return None  # an empty field
    columns: dict = {}
    for name in wanted.values():
        chunk = table.column(name).chunk(0)
        if name in ("qid", "docno"):
            columns[name] = _numbers(chunk.indices, np.int32).astype(np.int64)
            columns[name + "s"] = chunk.dictionary.to_pylist()
        else:
            columns[name] = _numbers(chunk, np.float64 if name == "score" else np.int64)
    columns["tag"] = first.split()[5:6]  # a run's tag is its first line's
    return columns


def _table(data: bytes, names: list[str], types: dict, columns: list[str] | None = None):
    """Arrow's reading of the file, in one block, with these column names and types (None if it fails)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    try:
        return csv.read_csv(
            pa.py_buffer(data),
            read_options=csv.ReadOptions(column_names=names, use_threads=False, block_size=len(data) + 1),
            parse_options=csv.ParseOptions(
                delimiter=" ", quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=csv.ConvertOptions(
                column_types=types,
                include_columns=columns or [],
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowException):
        return None


def _hexadecimal(data: bytes, width: int) -> bool:
    """Whether a qrels file that has ``0x`` somewhere has an x in a relevance (or cannot be read)."""
    import pyarrow as pa

    names = ["qid", "iter", "docno", "rel"][:width]
    table = _table(data, names, {"rel": pa.string()}, ["rel"])
    if table is None or table.column("rel").num_chunks != 1:
        return True
    rels = table.column("rel").chunk(0)
    offsets = _numbers(rels, np.int32, offsets=True)
    text = np.frombuffer(rels.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return bool(((text == ord("x")) | (text == ord("X"))).any())


def _numbers(array, dtype: type, *, offsets: bool = False) -> np.ndarray:
    """An Arrow array of numbers without nulls (or a string array's offsets) as a NumPy view of its
    buffer: Arrow's own ``to_numpy`` imports pandas, which the command line must not load."""
    size = np.dtype(dtype).itemsize
    return np.frombuffer(
        array.buffers()[1], dtype=dtype, count=len(array) + offsets, offset=array.offset * size
    )


def _rank(
    qrels: dict, run: dict, *, judged_only: bool, complete: bool, max_docs: int | None
) -> RankedCollection | None:
    scores = run["score"]
    if np.isnan(scores).any():
        return None
    qrels_topics, run_topics, rels = qrels["qid"], run["qid"], qrels["rel"]
    qrels_qids, run_qids = qrels["qids"], run["qids"]
    judged_docnos, run_docnos = qrels["docnos"], run["docnos"]
    # Repeated pairs: a (topic, docno) twice in the qrels (the checked pass compares their values) or a
    # docno retrieved twice for a topic.
    for topics, docnos, distinct in (
        (qrels_topics, qrels["docno"], len(judged_docnos)),
        (run_topics, run["docno"], len(run_docnos)),
    ):
        keys = np.sort(topics * distinct + docnos)
        if (keys[1:] == keys[:-1]).any():
            return None
    # The run's topic and docno indices as the qrels' (-1: not in the qrels).
    qrels_topic_index = {qid: i for i, qid in enumerate(qrels_qids)}
    topic_map = np.array([qrels_topic_index.get(qid, -1) for qid in run_qids], dtype=np.int64)
    judged_index = {docno: i for i, docno in enumerate(judged_docnos)}
    docno_map = np.array([judged_index.get(docno, -1) for docno in run_docnos], dtype=np.int64)
    as_topic, as_docno = topic_map[run_topics], docno_map[run["docno"]]
    # Each run line's qrels row: a table of every (topic, docno) cell, or binary search in sorted keys.
    cells = len(qrels_qids) * len(judged_docnos)
    qrels_keys = qrels_topics * len(judged_docnos) + qrels["docno"]
    known = (as_topic >= 0) & (as_docno >= 0)
    run_keys = np.where(known, as_topic * len(judged_docnos) + as_docno, 0)
    if cells <= DENSE_CELLS and len(rels) < 1 << 31:
        table = np.full(cells, -1, dtype=np.int32)
        table[qrels_keys] = np.arange(len(rels), dtype=np.int32)
        at = np.where(known, table[run_keys], -1)
        found = at >= 0
    else:
        qrels_order = np.argsort(qrels_keys)
        sorted_keys = qrels_keys[qrels_order]
        place = np.minimum(np.searchsorted(sorted_keys, run_keys), len(rels) - 1)
        found = known & (sorted_keys[place] == run_keys)
        at = qrels_order[place]
    retrieved = np.where(found, rels[at], NOT_IN_POOL)
    retrieved[found & (retrieved < 0)] = UNJUDGED_IN_POOL

    levels = _levels(qrels_topics, rels, len(qrels_qids))
    # trec_eval's order: topic, then score descending, then docno descending (only among tied scores).
    order = _trec_order(run_topics, scores, run["docno"], run_docnos)
    if order is not None:
        retrieved, run_topics = retrieved[order], run_topics[order]
    starts = np.searchsorted(run_topics, np.arange(len(run_qids) + 1)).tolist()

    run_topic_index = {qid: i for i, qid in enumerate(run_qids)}
    names = qrels_qids if complete else [qid for qid in qrels_qids if qid in run_topic_index]
    ranked = {}
    empty = np.zeros(0, dtype=np.int64)
    for name in sorted(names):
        i = run_topic_index.get(name)
        topic = empty if i is None else retrieved[starts[i] : starts[i + 1]]
        if max_docs is not None:
            topic = topic[:max_docs]
        if judged_only:
            topic = topic[topic >= 0]
        ranked[name] = RankedTopic(topic, levels[qrels_topic_index[name]])
    return RankedCollection(ranked, run["tag"][0].decode("ascii"))


def _trec_order(
    topics: np.ndarray, scores: np.ndarray, docnos: np.ndarray, distinct: list[str]
) -> np.ndarray | None:
    """Row order by topic (first seen first), score descending, docno descending (docnos compared only
    where a topic has tied scores, as ``rank_topic`` does); None if the rows are in that order."""
    same_topic = topics[1:] == topics[:-1]
    if (topics[1:] >= topics[:-1]).all() and (~same_topic | (scores[1:] < scores[:-1])).all():
        return None  # already in order, with no tie (a run written in rank order)
    order = np.argsort(-scores)  # any order among tied scores: ties are looked for next
    order = order[np.argsort(topics[order], kind="stable")]
    ordered_topics, ordered_scores = topics[order], scores[order]
    if not ((ordered_topics[1:] == ordered_topics[:-1]) & (ordered_scores[1:] == ordered_scores[:-1])).any():
        return order
    docno_rank = np.empty(len(distinct), dtype=np.int64)
    docno_rank[sorted(range(len(distinct)), key=distinct.__getitem__)] = np.arange(len(distinct))
    return np.lexsort((-docno_rank[docnos], -scores, topics))


def _levels(codes: np.ndarray, rels: np.ndarray, topics: int) -> list[dict[int, int]]:
    """Each qrels topic's judged levels (value ≥ 0) with their counts, as ``prepare_topic`` counts them."""
    levels: list[dict[int, int]] = [{} for _ in range(topics)]
    judged = rels >= 0
    codes, rels = codes[judged], rels[judged]
    if not len(rels):
        return levels
    span = int(rels.max()) + 1
    if topics * span <= DENSE_CELLS >> 2:  # a count (8 bytes) for every (topic, level): the usual few levels
        counts = np.bincount(codes * span + rels, minlength=topics * span).reshape(topics, span)
        found = np.nonzero(counts)
        pairs = zip(*(part.tolist() for part in found), counts[found].tolist(), strict=True)
    else:
        order = np.lexsort((rels, codes))
        codes, rels = codes[order], rels[order]
        starts = np.flatnonzero(np.concatenate(([True], (codes[1:] != codes[:-1]) | (rels[1:] != rels[:-1]))))
        sizes = np.diff(np.append(starts, len(rels)))
        pairs = zip(codes[starts].tolist(), rels[starts].tolist(), sizes.tolist(), strict=True)
    for topic, level, count in pairs:
        levels[topic][level] = count
    return levels
