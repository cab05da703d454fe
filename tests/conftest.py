"""Shared fixtures: test data sets, the three personas, and the external services.

Test data comes through ``data_set(name)`` only: the project's own copy under tests/data/ when its
terms allow shipping it, else ../shared/data/<name> (or $CRANFIELD_SHARED_DATA/<name>), else the
test skips saying where the data comes from and how to get it (tests/data/README.md). Integration
tests need PostgreSQL and Redis; without them they are skipped locally. Under CI=true or
CRANFIELD_REQUIRE_SERVICES=1 (set by ``dev.py test`` under CI) a missing data set or service fails.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pytest

PROJECT_DIR = Path(__file__).resolve().parent.parent
TEST_DATA = PROJECT_DIR / "tests" / "data"
SHARED_DATA = Path(os.environ.get("CRANFIELD_SHARED_DATA") or PROJECT_DIR.parent / "shared" / "data")
REQUIRE_SERVICES = os.environ.get("CRANFIELD_REQUIRE_SERVICES") == "1"
REQUIRE_DATA = REQUIRE_SERVICES or os.environ.get("CI", "").lower() in {"1", "true", "yes"}
os.environ.setdefault("MPLBACKEND", "Agg")  # no display here or in CI


def missing(reason: str) -> None:
    """Skip locally; fail in CI, where a missing service is never silently skipped."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (required: CRANFIELD_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class DataSet:
    title: str
    source: str  # where to get it
    terms: str  # why it is (not) shipped


# Every data set a test or benchmark reads; tests/data/README.md says how each is laid out.
DATA_SETS = {
    "trec_eval_tests": DataSet(
        "trec_eval 10.0's own test files",
        "usnistgov/trec_eval, directory test/",
        "NIST public-service notice: copying and distribution allowed; shipped in tests/data/",
    ),
    "sample_eval": DataSet(
        "NIST sample_eval.pl's output on generated sampled pools (the script is not shipped)",
        "tests/data/sample_eval/record.py with sample_eval.pl from github.com/amillert/TREC-elastic",
        "our generated data and the script's printed numbers: shipped in tests/data/",
    ),
    "cranfield": DataSet(
        "the Cranfield 1400 collection (cran.all.1400, cran.qry, cranqrel)",
        "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/ (the Glasgow IR group)",
        "no licence stated, so not shipped (only the demo subset in evaluation/demo/ is)",
    ),
    "crowd_snow2008": DataSet(
        "Snow et al. 2008 RTE/TEMP/WSD Mechanical Turk labels",
        "http://ai.stanford.edu/~rion/annotations/ (all_collected_data.tgz, reshaped to "
        "<task>_labels.csv and <task>_gold.csv)",
        "no licence stated for the data, so not shipped",
    ),
    "crowd_zheng2017": DataSet(
        "Zheng et al. 2017 truth-inference sets (product, duck, dog, face, emotion)",
        "github.com/zhydhkcws/crowd_truth_infer datasets/ (reshaped to <set>/labels.csv and <set>/gold.csv)",
        "no licence stated, so not shipped",
    ),
    "summ_rouge155_sl2003": DataSet(
        "ROUGE-1.5.5's SL2003 sample (8 peers x 25 documents x 4 references)",
        "ROUGE-1.5.5's sample data (e.g. github.com/bheinzerling/pyrouge pyrouge/tests/data/: "
        "models/ and systems/, plus sample.jsonl)",
        "redistribution terms not stated, so not shipped",
    ),
    "summ_dialsummeval": DataSet(
        "DialSummEval (Gao & Wan 2022) summaries and reported metrics",
        "github.com/kite99520/DialSummEval (reproduce/analysis/models_eval_new/ as reported_metrics/)",
        "SAMSum-derived, CC BY-NC-ND 4.0: must not be redistributed",
    ),
    "summ_realsumm": DataSet(
        "REALSumm (Bhandari et al. 2020) SCUs and Mechanical Turk LitePyramid presence answers",
        "github.com/neulab/REALSumm (human_annotations/SCUs_and_annotations/ and human_annotations/)",
        "CC BY 4.0 for the annotations, but CNN/Daily Mail texts inside: read from ../shared, not shipped",
    ),
}


def locate_data_set(name: str) -> Path | None:
    """Where data set ``name`` is on this machine (shipped copy first), or None; benchmarks use it too."""
    if name not in DATA_SETS:
        raise KeyError(f"unknown data set {name!r}: name it in DATA_SETS (tests/conftest.py)")
    for folder in (TEST_DATA / name, SHARED_DATA / name):
        if folder.is_dir():
            return folder
    return None


def data_set(name: str) -> Path:
    """The folder of test data set ``name``: the shipped copy, else ../shared/data's, else a skip
    (a failure under CI=true or CRANFIELD_REQUIRE_SERVICES=1) that says how to get it."""
    folder = locate_data_set(name)
    if folder is not None:
        return folder
    about = DATA_SETS[name]
    reason = (
        f"data set {name!r} ({about.title}) is missing: {about.terms}. Get it from {about.source}; "
        f"put it in {SHARED_DATA / name} (see tests/data/README.md)"
    )
    if REQUIRE_DATA:
        pytest.fail(f"{reason} (required under CI=true / CRANFIELD_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(name="data_set", scope="session")
def data_set_fixture():
    """``data_set`` for tests: ``data_set("trec_eval_tests") / "qrels.test"``."""
    return data_set


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_required() -> None:
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing("this test needs PostgreSQL: run with DATABASE_URL=postgres://… (dev.py test sets it)")


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("CRANFIELD_TEST_REDIS_URL", "")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if url and worker.startswith("gw"):
        # Parallel test processes (gw0, gw1, …) each flush and use a Redis database of their own,
        # counting down from the one given (15, 14, …), as each has a test database of its own.
        base, number = url.rsplit("/", 1)
        url = f"{base}/{int(number) - int(worker[2:])}"
    if not url or not _reachable(url):
        missing(
            "this test needs Redis: set CRANFIELD_TEST_REDIS_URL=redis://127.0.0.1:6379/15 (dev.py test does)"
        )
    return url


@pytest.fixture
def researcher(django_user_model):
    from django.contrib.auth.models import Group

    from annotation.permissions import RESEARCHERS_GROUP

    user = django_user_model.objects.create_user("owner", password="owner-password")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    return user


@pytest.fixture
def outsider_researcher(django_user_model):
    from django.contrib.auth.models import Group

    from annotation.permissions import RESEARCHERS_GROUP

    user = django_user_model.objects.create_user("outsider", password="outsider-password")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    return user


@pytest.fixture
def annotators(django_user_model):
    return [
        django_user_model.objects.create_user(f"annotator{i}", password=f"annotator{i}-password")
        for i in (1, 2, 3)
    ]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Tests create many users; the production hasher's deliberate slowness would dominate the suite."""
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "annotation.accounts.hashers.GeneratedPasswordHasher",
    ]


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: row ids repeat across tests, cached counts must not."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _ground_truth_jobs_wait_to_be_run(settings):
    """Without a worker, ground-truth jobs queue for ``embedded.run_queued()`` instead of starting
    on a timer thread that would outlive the test (tests of the thread runner switch it back)."""
    settings.GROUND_TRUTH_EMBEDDED_RUNNER = "manual"
    yield
    from evaluation.jobs import embedded

    embedded.discard_queued()
