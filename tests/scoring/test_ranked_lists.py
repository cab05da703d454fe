"""Runs are stored as one ranked list per (run, topic): documents in trec_eval's order and their scores
as blocks. What goes in comes back exactly (scores to the bit, ranks by trec_eval's order, the tag's
file), and a database holding runs as lines (migration 0013) is moved to lists and back unchanged."""

from __future__ import annotations

import random

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.collection.runs import (
    line_count,
    normalised_ids,
    pooled_documents,
    ranked_lists,
    run_file,
    stored_run,
)
from evaluation.metrics.trec.files import TopicScores, read_run, trec_order, trec_ordered
from evaluation.models import RankedList, Run
from tests.stored_runs import run_lines

BEFORE = [("evaluation", "0013_import_job_chunks")]
AFTER = [("evaluation", "0014_runs_as_ranked_lists")]


def generated_run(rng: random.Random, tag: str, documents: list[str]) -> str:
    """A run file with tied scores, tiny and huge floats, negative scores and a rank column that
    disagrees with the scores (trec_eval ignores it)."""
    lines = []
    for topic in ("401", "402", "10"):
        chosen = rng.sample(documents, rng.randint(1, len(documents)))
        for rank, document in enumerate(chosen, start=1):
            score = rng.choice(
                [1.0, 0.5, -2.0, 1e-300, 1.7976931348623157e308, rng.random(), rng.gauss(0, 5)]
            )
            lines.append(f"{topic} Q0 {document} {rank} {score!r} {tag}")
    return "\n".join(lines) + "\n"


def test_numpys_order_is_trec_orders_on_generated_topics_with_ties():
    """``trec_ordered`` sorts with NumPy; ``trec_order`` (Python's sort of (score, docno), reversed) is the
    definition. Ties, 0.0 beside -0.0, infinities, non-ASCII docnos and docnos that are prefixes of
    one another."""
    rng = random.Random(11)
    names = ["a", "ab", "b", "B", "é", "e\u0301x", "z9", "10", "9", "ä"]
    for _ in range(3000):
        docnos = rng.sample(names + [f"d{i}" for i in range(40)], rng.randint(1, 50))
        pool = [0.0, -0.0, 1.0, 1.0, float("inf"), -float("inf"), rng.random(), 2.5]
        scores = {d: rng.choice(pool) if rng.random() < 0.7 else rng.gauss(0, 1) for d in docnos}
        topic = trec_ordered(TopicScores(list(scores), np.array(list(scores.values()))))
        assert topic.docnos == trec_order(scores)
        assert topic.scores.tolist() == [scores[d] for d in topic.docnos]


def test_ids_are_nfc_normalised_the_first_spelling_keeping_its_place_and_the_last_its_score():
    run = {
        "t\u0065\u0301": TopicScores(["a", "e\u0301", "b", "\u00e9"], np.array([4.0, 3.0, 2.0, 1.0])),
        "plain": TopicScores(["x", "y"], np.array([1.0, 2.0])),
    }
    normalised = normalised_ids(run)
    assert list(normalised) == ["t\u00e9", "plain"]
    topic = normalised["t\u00e9"]
    assert topic.docnos == ["a", "\u00e9", "b"] and topic.scores.tolist() == [4.0, 1.0, 2.0]
    assert normalised["plain"] is run["plain"]  # ASCII is NFC already: left as it is


@pytest.mark.django_db
def test_every_line_comes_back_in_trec_eval_order_with_its_exact_score(researcher):
    rng = random.Random(7)
    project = Project.objects.create(name="p", owner=researcher)
    documents = [f"d{i}" for i in range(60)]
    texts = [generated_run(rng, f"run{i}", documents) for i in range(5)]
    import_collection(
        project,
        topics=[{"id": t, "title": t} for t in ("401", "402", "10")],
        documents=[{"id": d, "text": d} for d in documents],
        runs=texts,
        pool_depth=4,
    )
    for index, text in enumerate(texts):
        given, _ = read_run(text.splitlines())
        run = Run.objects.get(project=project, tag=f"run{index}")
        assert stored_run(run.pk) == given
        columns = ranked_lists(run.pk)
        assert list(columns) == sorted(given)  # topics by id, as the lines' table gave them
        for topic, stored in columns.items():
            assert stored.docnos == trec_order(given[topic])
            assert stored.scores.dtype == np.float64
            assert stored.scores.tolist() == [given[topic][d] for d in stored.docnos]
        assert line_count(run) == sum(map(len, given.values())) == len(run_lines(pk=run.pk))
        assert read_run(run_file(run).splitlines())[0] == given
        pooled = {(topic, tuple(docs)) for _, topic, docs in pooled_documents(run.ranked_lists.all())}
        assert pooled == {(topic, tuple(trec_order(given[topic])[:4])) for topic in given}
    assert RankedList.objects.filter(run__project=project).count() == 15  # one row per run and topic


@pytest.mark.django_db
def test_an_unpooled_run_contributes_nothing_to_the_pool(researcher):
    project = Project.objects.create(name="p", owner=researcher)
    import_collection(
        project,
        topics=[{"id": "1", "title": "one"}],
        documents=[{"id": "d1", "text": "x"}, {"id": "d2", "text": "y"}],
        runs=["1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n"],
        pool_depth=0,
    )
    assert list(pooled_documents(RankedList.objects.all())) == []
    assert line_count(Run.objects.get()) == 2


@pytest.mark.django_db(transaction=True)
def test_runs_stored_as_lines_move_to_ranked_lists_and_back_unchanged():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    try:
        # The other apps' tables are today's: the project is made by today's model.
        owner = get_user_model().objects.create(username="owner")
        project = Project.objects.create(name="p", owner=owner)
        run_model, line_model = old.get_model("evaluation", "Run"), old.get_model("evaluation", "RunEntry")
        rng = random.Random(3)
        lines = set()
        for tag in ("a", "b"):
            run = run_model.objects.create(project_id=project.pk, tag=tag, pool_depth=2)
            for topic in ("7", "10", "x"):
                scores = {f"d{i}": rng.choice([1.0, 0.25, rng.random()]) for i in range(rng.randint(1, 30))}
                for rank, document in enumerate(trec_order(scores), start=1):
                    lines.add((tag, topic, document, rank, scores[document]))
                    line_model.objects.create(
                        run=run, topic_id=topic, document_id=document, rank=rank, score=scores[document]
                    )
        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        assert set(run_lines()) == lines
        assert RankedList.objects.count() == 6

        executor = MigrationExecutor(connection)
        executor.migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps
        back = old.get_model("evaluation", "RunEntry").objects.values_list(
            "run__tag", "topic_id", "document_id", "rank", "score"
        )
        assert set(back) == lines and len(back) == len(lines)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
