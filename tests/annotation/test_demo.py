"""The demo ships inside the project: it loads without ../shared, and loading twice changes nothing."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import Project, Task
from evaluation.demo import DEMO_DIR, DEMO_PROJECT_NAME, demo_documents, demo_topics
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db


def test_the_demo_loads_from_the_shipped_files_and_is_idempotent():
    assert DEMO_DIR == PROJECT_DIR / "evaluation" / "demo"  # shipped with the code, not read from ../shared
    call_command("load_demo", verbosity=0)
    call_command("load_demo", verbosity=0)
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    assert project.topics.count() == len(demo_topics()) == 5
    assert project.documents.count() == len(demo_documents())
    assert Task.objects.filter(project=project).count() == 41
    assert sorted(project.annotators.values_list("username", flat=True)) == [
        "annotator1",
        "annotator2",
        "annotator3",
    ]
    assert project.owner.check_password("cranfield-demo")


def test_the_demo_qrels_come_from_cranfields_own_judgements(data_set):
    shipped = (DEMO_DIR / "reference.qrels").read_text().split()
    original = {
        tuple(line.split()[:2])
        for line in (data_set("cranfield") / "cranqrel").read_text().split("\n")
        if line.strip() and int(line.split()[2]) > 0
    }
    for qid, _, docid, rel in zip(*[iter(shipped)] * 4, strict=True):
        assert ((qid, docid) in original) == (rel == "1")
