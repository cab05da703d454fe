"""The labels-file reader's fast path gives exactly what the row-by-row reader gives, and leaves
every doubtful file to it (which names the line at fault)."""

from __future__ import annotations

import pytest

from annotation.crowd.io.labels import LabelFileError, read_label_columns, read_labels

CASES = {
    "plain": "item,annotator,label\n1,a,0\n1,b,1\n2,a,1\n",
    "windows line ends": "item,annotator,label\r\n1,a,0\r\n1,b,1\r\n2,a,1\r\n",
    "no final newline": "item,annotator,label\n1,a,0\n2,b,1",
    "spaces around fields": "item,annotator,label\n 1 , a ,0\n1,\tb,1\n",
    "quoted field with a comma": 'item,annotator,label\n"x,1",a,0\n"x,1",b,1\n',
    "extra column": "item,annotator,label,note\n1,a,0,ok\n1,b,1,\n",
    "crowd-kit's header": "item,worker,label\n1,a,0\n1,b,1\n",
    "text labels": "item,annotator,label\n1,a,yes\n1,b,no\n",
    "a blank line": "item,annotator,label\n1,a,0\n\n1,b,1\n",
    "ids longer than 8 bytes, not ASCII": "item,annotator,label\nitem-000000001,annotatrice-é,0\n"
    "item-000000001,b,1\nitem-2,annotatrice-é,1\n",
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_columns_equal_the_row_by_row_reading(tmp_path, name):
    path = tmp_path / "labels.csv"
    path.write_text(CASES[name], newline="")
    encoded = read_label_columns(path, chunk_rows=1)  # chunks of a line or two: every boundary
    assert encoded.triples() == list(read_labels(path))


@pytest.mark.parametrize(
    "body, line",
    [
        ("1,a,0\n1,b\n2,a,1\n", 3),  # a missing field
        ("1,a,0\n1,,1\n", 3),  # an empty field
        ("1,a\n2,b,1,0\n", 2),  # fields that would line up again if only counted in total
    ],
)
def test_a_bad_line_is_named_whatever_path_finds_it(tmp_path, body, line):
    path = tmp_path / "labels.csv"
    path.write_text("item,annotator,label\n" + body)
    with pytest.raises(LabelFileError, match=f"line {line}"):
        read_label_columns(path)
