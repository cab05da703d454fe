"""Fixed-budget pooling: move-to-front (Cormack, Palmer & Clarke 1998) against judging the depth-k
pool in depth order, on Cranfield's 225 topics with its official qrels as the assessor."""

from __future__ import annotations

from evaluation.demo.build_demo import bm25_run, parse_smart
from evaluation.metrics.trec.files import trec_order
from evaluation.metrics.trec.pooling import depth_order, move_to_front, rbp_order, relevant_found
from tests.metrics.test_trec_measures_vs_pytrec_eval import cranfield_qrels

BUDGETS = (5, 10, 20, 40, 80)


def bm25_runs(folder) -> dict:
    """Five BM25 systems over the 1,400 abstracts, good to weak: full text with two settings, the
    abstract alone, the title alone, and titles with a strong length penalty. Top 100 per query."""
    docs = parse_smart((folder / "cran.all.1400").read_text())
    queries = {
        str(position): q["W"] for position, q in enumerate(parse_smart((folder / "cran.qry").read_text()), 1)
    }
    fields = {
        "full": lambda d: d.get("T", "") + " " + d.get("W", ""),
        "abstract": lambda d: d.get("W", ""),
        "title": lambda d: d.get("T", ""),
    }
    systems = {
        "full": ("full", 1.2, 0.75),
        "full-flat": ("full", 0.5, 0.3),
        "abstract": ("abstract", 1.2, 0.75),
        "title": ("title", 1.2, 0.75),
        "title-penalised": ("title", 3.0, 1.0),
    }
    return {
        name: bm25_run(queries, docs, fields[field], k1=k1, b=b, depth=100)
        for name, (field, k1, b) in systems.items()
    }


def test_move_to_front_stays_with_a_run_while_it_finds_relevant_documents():
    good, poor = ["r1", "r2", "r3", "n1"], ["n2", "n3", "r4"]
    relevant = {"r1", "r2", "r3", "r4"}
    assert move_to_front([poor, good], 6, relevant.__contains__) == ["n2", "r1", "r2", "r3", "n1", "n3"]
    # Depth order alternates between the runs whatever they find.
    assert depth_order([poor, good], 6) == ["n2", "r1", "n3", "r2", "r4", "r3"]
    assert relevant_found(["n2", "r1", "r2"], relevant) == [0, 1, 2]


def test_rbp_order_puts_documents_several_runs_rank_high_first():
    rankings = [["a", "b", "c"], ["b", "a", "d"], ["b", "e"]]
    # b: 0.8 + 1 + 1; a: 1 + 0.8; e: 0.8; c: 0.64; d: 0.64 (c before d by id).
    assert rbp_order(rankings, 10) == ["b", "a", "e", "c", "d"]
    assert rbp_order(rankings, 2) == ["b", "a"]


def test_a_document_is_judged_once_and_the_budget_is_kept():
    rankings = [["a", "b", "c"], ["b", "a", "d"], ["d"]]
    order = move_to_front(rankings, 10, lambda doc: doc in {"a", "b"})
    assert sorted(order) == ["a", "b", "c", "d"] and len(set(order)) == len(order)
    assert len(move_to_front(rankings, 2, lambda doc: True)) == 2


def test_on_cranfield_move_to_front_finds_at_least_as_many_relevant_documents_as_depth_k(data_set, capsys):
    qrels = cranfield_qrels(data_set)
    runs = bm25_runs(data_set("cranfield"))
    curve = {name: [0] * len(BUDGETS) for name in ("move-to-front", "rbp order", "depth order")}
    for qid, judged in qrels.items():
        rankings = [trec_order(run[qid]) for run in runs.values() if qid in run]
        relevant = {doc for doc, rel in judged.items() if rel > 0}
        orders = {
            "move-to-front": move_to_front(rankings, max(BUDGETS), relevant.__contains__),
            "rbp order": rbp_order(rankings, max(BUDGETS)),
            "depth order": depth_order(rankings, max(BUDGETS)),
        }
        for method, order in orders.items():
            found = relevant_found(order, relevant)
            for index, budget in enumerate(BUDGETS):
                curve[method][index] += found[min(budget, len(found)) - 1] if found else 0
    with capsys.disabled():
        print("\nrelevant documents found on Cranfield (225 topics) per judgements per topic:")
        print("  judgements " + " ".join(f"{b:>6}" for b in BUDGETS))
        for method, values in curve.items():
            print(f"  {method:<13}" + " ".join(f"{v:>6}" for v in values))
    assert all(m >= d for m, d in zip(curve["move-to-front"], curve["depth order"], strict=True))
    assert curve["move-to-front"][1] > curve["depth order"][1]  # strictly more at 10 per topic
    assert all(r >= d for r, d in zip(curve["rbp order"], curve["depth order"], strict=True))
