"""Test data: shipped sets carry their provenance, others skip (or fail in CI) saying where to get them."""

from __future__ import annotations

import re

import pytest

import tests.conftest
from tests.conftest import DATA_SETS, PROJECT_DIR, TEST_DATA, data_set

NEVER_SHIPPED = {"summ_dialsummeval"}  # CC BY-NC-ND 4.0 (SAMSum): no redistribution


def test_every_shipped_set_is_known_and_has_its_provenance():
    shipped = {path.name for path in TEST_DATA.iterdir() if path.is_dir()}
    assert shipped == {"trec_eval_tests", "sample_eval"}
    for name in shipped:
        assert name in DATA_SETS and "shipped" in DATA_SETS[name].terms
        provenance = (TEST_DATA / name / "PROVENANCE.md").read_text()
        assert "Source" in provenance and "Terms" in provenance
    assert not shipped & NEVER_SHIPPED


def test_the_shipped_trec_eval_files_keep_nists_notice_and_checksums():
    import hashlib

    folder = TEST_DATA / "trec_eval_tests"
    provenance = (folder / "PROVENANCE.md").read_text()
    assert "NIST-developed software is provided by NIST as a public service" in provenance
    assert "National Institute of Standards and Technology" in provenance
    listed = dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", provenance, flags=re.M)
    )
    files = {path.name for path in folder.iterdir()} - {"PROVENANCE.md"}
    assert set(listed) == files
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def test_every_data_set_is_documented():
    readme = (TEST_DATA / "README.md").read_text()
    for name in DATA_SETS:
        assert f"| `{name}` |" in readme, name


def test_a_shipped_set_needs_nothing_beside_the_project(monkeypatch, tmp_path):
    monkeypatch.setattr(tests.conftest, "SHARED_DATA", tmp_path / "absent")
    assert data_set("trec_eval_tests") == TEST_DATA / "trec_eval_tests"


def test_an_unshipped_set_comes_from_the_shared_folder(monkeypatch, tmp_path):
    (tmp_path / "crowd_snow2008").mkdir()
    monkeypatch.setattr(tests.conftest, "SHARED_DATA", tmp_path)
    assert data_set("crowd_snow2008") == tmp_path / "crowd_snow2008"


@pytest.mark.parametrize("required", [False, True])
def test_a_missing_set_skips_locally_and_fails_in_ci_naming_its_source(monkeypatch, tmp_path, required):
    monkeypatch.setattr(tests.conftest, "SHARED_DATA", tmp_path)
    monkeypatch.setattr(tests.conftest, "REQUIRE_DATA", required)
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome) as raised:
        data_set("summ_dialsummeval")
    message = str(raised.value)
    assert "'summ_dialsummeval'" in message and "kite99520/DialSummEval" in message
    assert "CC BY-NC-ND" in message and "tests/data/README.md" in message
    assert str(tmp_path / "summ_dialsummeval") in message


def test_no_test_or_benchmark_reads_the_shared_folder_but_through_data_set():
    here = {PROJECT_DIR / "tests" / "conftest.py", PROJECT_DIR / "tests" / "foundation" / "test_data_sets.py"}
    for path in {*PROJECT_DIR.glob("tests/**/*.py"), *PROJECT_DIR.glob("benchmarks/*.py")} - here:
        text = path.read_text()
        assert not re.search(r"[\"']shared[\"']\s*/\s*[\"']data[\"']|SHARED_DATA|shared_data", text), path
