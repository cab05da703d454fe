"""Aggregate and measure agreement on 1,000,000 simulated judgements, against crowd-kit, statsmodels
and the krippendorff package, in one process.

    .venv/bin/python benchmarks/bench_crowd.py           # 100,000 items × 10 annotators (of 1,000), 5 labels
    .venv/bin/python benchmarks/bench_crowd.py --quick   # 2,000 items, one repeat (a smoke run)
    .venv/bin/python benchmarks/bench_crowd.py --real    # also the real data sets in ../shared/data
                                                         # (not shipped: tests/data/README.md)
    .venv/bin/python benchmarks/bench_crowd.py --real-only   # only the real data sets (seconds, not minutes)
    .venv/bin/python benchmarks/bench_crowd.py --methods     # every aggregator, ours and crowd-kit's: real
                                                             # sets (accuracy, time), a simulated set (time)

Annotators have accuracies drawn from U(0.3, 0.95) and otherwise answer uniformly at random; the
true labels are known, so accuracy is reported next to time.

Fairness: crowd-kit takes a pandas DataFrame (task, worker, label); the main comparison gives ours
the very same DataFrame, so both start from the same columns (what the ground-truth job gets from
``values_list``). A second line starts both from a Python list of (item, annotator, label) tuples:
crowd-kit's time then includes building its DataFrame, ours encoding the tuples. statsmodels and
the krippendorff package are given their ready-made input (a ratings table, per-pair contingency
tables, a value-count table) while ours starts from the DataFrame, which favours them. Each timing
is the best of ``--repeats`` interleaved runs (other processes share the machine), in wall-clock
and, for the aggregations, CPU time (the work done, less sensitive to that load); ratios are what
to read. Peak memory is tracemalloc's, in a separate pass (NumPy and pandas report to it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
import warnings
from datetime import date
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
from crowdkit.aggregation import (
    GLAD,
    MACE,
    MMSR,
    DawidSkene,
    MajorityVote,
    OneCoinDawidSkene,
    Wawa,
    ZeroBasedSkill,
)
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from annotation.crowd.aggregation.cross_fit import cross_fitted_accuracy
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.glad import glad
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.mace import mace
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.mmsr import mmsr
from annotation.crowd.aggregation.one_coin import one_coin_dawid_skene
from annotation.crowd.aggregation.wawa import wawa
from annotation.crowd.aggregation.zero_based_skill import zero_based_skill
from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.agreement.cohen import cohen_kappa_pairs, pair_entries
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.io.encoding import encode
from annotation.crowd.io.labels import read_gold, read_label_columns

REAL_SETS = {
    "RTE (Snow 2008)": "crowd_snow2008/rte",
    "TEMP": "crowd_snow2008/temp",
    "WSD": "crowd_snow2008/wsd",
    "duck (Zheng 2017)": "crowd_zheng2017/duck_bluebirds/",
    "dog": "crowd_zheng2017/dog/",
    "face": "crowd_zheng2017/face_sentiment/",
    "product (D_Product)": "crowd_zheng2017/product/",
}


def simulate(n_items: int, per_item: int, pool: int, classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n_items)
    skill = rng.uniform(0.3, 0.95, pool)
    annotators = np.stack([rng.choice(pool, per_item, replace=False) for _ in range(n_items)])
    correct = rng.random((n_items, per_item)) < skill[annotators]
    noise = rng.integers(0, classes, (n_items, per_item))
    answers = np.where(correct, truth[:, None], noise)
    items = np.repeat(np.arange(n_items), per_item)
    triples = list(zip(items.tolist(), annotators.ravel().tolist(), answers.ravel().tolist(), strict=True))
    return triples, dict(enumerate(truth.tolist())), answers


def best_of(repeats: int, **functions):
    """Run each function ``repeats`` times, interleaved; return its last result, its best wall-clock
    time and its best CPU time (``process_time``: the work done, whatever else loads the machine)."""
    results = {}
    wall = {name: float("inf") for name in functions}
    cpu = dict(wall)
    for _ in range(repeats):
        for name, function in functions.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            results[name] = function()
            wall[name] = min(wall[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], time.process_time() - start_cpu)
    return results, wall, cpu


def peak_megabytes(function) -> float:
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def accuracy(labels, truth) -> float:
    return sum(labels[item] == truth[item] for item in truth) / len(truth)


def statsmodels_cohen_sample(frame: pd.DataFrame, sample: int, seed: int = 0):
    """Per-pair contingency tables for ``sample`` random pairs (built outside the timing), the
    kappas statsmodels gives for them, and how long it took."""
    data = encode(frame)
    entries = pair_entries(data)
    n_pairs, k = len(entries.first), len(data.classes)
    chosen = np.random.default_rng(seed).choice(n_pairs, min(sample, n_pairs), replace=False)
    selected = np.isin(entries.pair_index, chosen)
    position = np.full(n_pairs, -1)
    position[chosen] = np.arange(len(chosen))
    cells = position[entries.pair_index[selected]] * k * k + entries.first_label[selected] * k
    tables = np.bincount(cells + entries.second_label[selected], minlength=len(chosen) * k * k)
    tables = tables.reshape(len(chosen), k, k).astype(float)
    start = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kappas = np.array([cohens_kappa(table, return_results=False) for table in tables])
    seconds = time.perf_counter() - start
    return chosen, kappas, seconds, n_pairs


# What each data set's PROVENANCE.md gives to compare against. Only D_Product's figures are published
# (crowd-kit JOSS paper, Table "Comparison of the implemented categorical aggregation methods");
# the others were computed by whoever fetched the data (crowd-kit 1.4.2), no paper figure was read.
PROVENANCE_FIGURES = {
    "RTE (Snow 2008)": "computed: MV 0.9187 (ties→0) / 0.8750 (crowd-kit); DS 0.9275; GLAD 0.9250",
    "TEMP": "computed: MV 0.9361 (ties ½) / 0.9394 (crowd-kit); DS 0.9416; GLAD 0.9351",
    "WSD": "computed: MV 0.9944; DS 0.9944",
    "duck (Zheng 2017)": "computed: MV 0.7593; DS 0.8889; GLAD 0.7222",
    "dog": "computed: MV 0.8116; DS 0.8426; GLAD 0.8340",
    "face": "computed: MV 0.6336; DS 0.6404; GLAD 0.6301",
    "product (D_Product)": "**published**: MV 0.897; DS 0.940; GLAD 0.928",
}


def cross_fitted_gold_vote(triples: list, gold: dict, seed: int = 0) -> tuple[float, int]:
    """Accuracy of the gold-weighted vote when no item's own gold label is used to label it.

    The gold items are split at random (seeded) into two halves; each half is labelled with
    annotator weights learnt from the other half's gold only, and scored against its own gold. Returns the
    accuracy over all gold items and the number of weighted-score ties.
    """
    items = sorted(gold, key=str)
    order = np.random.default_rng(seed).permutation(len(items))
    halves = [[items[i] for i in order[: len(items) // 2]], [items[i] for i in order[len(items) // 2 :]]]
    right, ties = 0, 0
    for scored, known in (halves, halves[::-1]):
        result = gold_weighted_vote(triples, {item: gold[item] for item in known})
        scored_set = set(scored)
        right += sum(result.labels[item] == gold[item] for item in scored if item in result.labels)
        ties += sum(item in scored_set for item in result.ties)
    return right / len(items), ties


def real_sets(absent):
    """(name, labels file, gold) of each real set found by the tests' data lookup; for a set not on
    this machine (none is shipped: tests/data/README.md) prints ``absent(name, set name)`` instead."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the data-set lookup lives with the tests
    from tests.conftest import locate_data_set

    for name, stem in REAL_SETS.items():
        folder = stem.endswith("/")
        set_name, _, stem = stem.partition("/")
        shared = locate_data_set(set_name)
        if shared is None:
            print(absent(name, set_name))
            continue
        labels_path = shared / (stem + "labels.csv" if folder else stem + "_labels.csv")
        yield name, labels_path, read_gold(shared / (stem + "gold.csv" if folder else stem + "_gold.csv"))


def real_data_table(repeats: int) -> None:
    """Accuracy against gold on the real sets, ours and crowd-kit's, from the same DataFrame (read
    once with our reader, then given to both); the PROVENANCE.md figures next to them. A set that
    is not on this machine (none is shipped: tests/data/README.md) gets a row saying so."""
    print(
        "| data set | labels | MV ties | ours MV (ties→smallest) "
        "| crowd-kit MV (its ties: →smallest/→largest) | ours DS (iterations) | crowd-kit DS (iterations) "
        "| ours gold-weighted, 2-fold (ties) "
        "| PROVENANCE.md | crowd-kit DS time / ours |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, labels_path, gold in real_sets(
        lambda name, set_name: f"| {name} | {set_name} absent: skipped |"
    ):
        triples = read_label_columns(labels_path).triples()
        frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
        models = {}

        def kit(frame=frame, models=models):
            models["kit"] = DawidSkene(n_iter=100)
            return models["kit"].fit_predict(frame).to_dict()

        results, wall, _ = best_of(repeats, ours=lambda frame=frame: dawid_skene(frame), kit=kit)

        def scored(predicted, gold=gold):
            items = [item for item in gold if item in predicted]
            return sum(predicted[item] == gold[item] for item in items) / len(items)

        ours_mv = majority_vote(frame, tie_rule="smallest")
        kit_mv = MajorityVote().fit_predict(frame).to_dict()
        largest = majority_vote(frame, tie_rule="largest").labels
        kit_to_smallest = sum(kit_mv[item] == ours_mv.labels[item] for item in ours_mv.ties)
        kit_to_largest = sum(kit_mv[item] == largest[item] for item in ours_mv.ties)
        gold_vote, gold_ties = cross_fitted_gold_vote(triples, gold)
        print(
            f"| {name} | {len(triples):,} | {len(ours_mv.ties)} | {scored(ours_mv.labels):.4f} "
            f"| {scored(kit_mv):.4f} ({kit_to_smallest}/{kit_to_largest}) "
            f"| {scored(results['ours'].labels):.4f} ({results['ours'].parameters['iterations']}) "
            f"| {scored(results['kit']):.4f} ({len(models['kit'].loss_history_)}) "
            f"| {gold_vote:.4f} ({gold_ties}) | {PROVENANCE_FIGURES[name]} "
            f"| {wall['kit'] / wall['ours']:.1f} |"
        )


def _kit_weighted(model, frame: pd.DataFrame) -> dict:
    """crowd-kit's ``fit_predict`` of Wawa and ZeroBasedSkill fails with the installed scikit-learn
    (``check_is_fitted`` wants ``__sklearn_tags__``); this is what their ``predict`` does: a
    majority vote weighted by the fitted skills."""
    return MajorityVote().fit(frame, skills=model.fit(frame).skills_).labels_.to_dict()


# Every aggregator: (ours, crowd-kit's), each a function of the DataFrame (task, worker, label).
# MACE: crowd-kit's ten restarts all start from one seed and so equal one; both run one.
PAIRS = {
    "majority vote": (lambda f: majority_vote(f), lambda f: MajorityVote().fit_predict(f).to_dict()),
    "Dawid-Skene": (lambda f: dawid_skene(f), lambda f: DawidSkene(n_iter=100).fit_predict(f).to_dict()),
    "one-coin DS": (
        lambda f: one_coin_dawid_skene(f),
        lambda f: OneCoinDawidSkene(n_iter=100).fit_predict(f).to_dict(),
    ),
    "GLAD": (lambda f: glad(f), lambda f: GLAD().fit_predict(f).to_dict()),
    "MACE": (lambda f: mace(f), lambda f: MACE(n_restarts=1).fit_predict(f).to_dict()),
    "MMSR": (lambda f: mmsr(f), lambda f: MMSR().fit_predict(f).to_dict()),
    "Wawa": (lambda f: wawa(f), lambda f: _kit_weighted(Wawa(), f)),
    "ZBS": (lambda f: zero_based_skill(f), lambda f: _kit_weighted(ZeroBasedSkill(), f)),
}
FOLDS = (2, 5, 10)


def _labels(result) -> dict:
    return result if isinstance(result, dict) else result.labels


class _Labelled:
    """crowd-kit's labels where ``cross_fitted_accuracy`` wants an ``AggregationResult``."""

    def __init__(self, labels: dict):
        self.labels = labels


def gold_dawid_skene_rows(frame: pd.DataFrame, gold: dict) -> tuple[dict, dict]:
    """Accuracy of Dawid-Skene with gold clamped, every gold item held out by k-fold cross-fitting
    (seed 0, the same folds for both libraries), for each k in ``FOLDS``: ours and crowd-kit's."""
    ours, kit = {}, {}
    for folds in FOLDS:
        ours[folds] = cross_fitted_accuracy(
            frame, gold, lambda d, g: dawid_skene(d, gold=g), folds=folds
        ).accuracy
        kit[folds] = cross_fitted_accuracy(
            frame,
            gold,
            lambda d, g: _Labelled(
                DawidSkene(n_iter=100).fit_predict(frame, true_labels=pd.Series(g, dtype=object)).to_dict()
            ),
            folds=folds,
        ).accuracy
    return ours, kit


def methods_table(repeats: int) -> None:
    """Per real set: accuracy of every method, ours / crowd-kit's, and crowd-kit's time ÷ ours."""
    accuracy_rows, time_rows = [], []
    for name, labels_path, gold in real_sets(lambda name, set_name: f"{name}: {set_name} absent: skipped"):
        frame = pd.DataFrame(read_label_columns(labels_path).triples(), columns=["task", "worker", "label"])

        def scored(predicted, gold=gold):
            items = [item for item in gold if item in predicted]
            return sum(predicted[item] == gold[item] for item in items) / len(items)

        cells, ratios = [], []
        for method, (ours, kit) in PAIRS.items():
            print(f"  {name}: {method}", flush=True)
            try:
                results, wall, _ = best_of(
                    repeats, ours=lambda f=frame, o=ours: o(f), kit=lambda f=frame, k=kit: k(f)
                )
            except ValueError as error:  # M-MSR on D_Product: both libraries fail
                print(f"  {name}: {method} failed: {error}", flush=True)
                cells.append("fails / fails")
                ratios.append("–")
                continue
            cells.append(f"{scored(_labels(results['ours'])):.4f} / {scored(results['kit']):.4f}")
            ratios.append(f"{wall['kit'] / wall['ours']:.1f}")
        gold_ours, gold_kit = gold_dawid_skene_rows(frame, gold)
        cells += [f"{gold_ours[k]:.4f} / {gold_kit[k]:.4f}" for k in FOLDS]
        gold_vote, _ = cross_fitted_gold_vote(list(frame.itertuples(index=False, name=None)), gold)
        cells.append(f"{gold_vote:.4f}")
        accuracy_rows.append(f"| {name} | " + " | ".join(cells) + " |")
        time_rows.append(f"| {name} | " + " | ".join(ratios) + " |")
        print(f"done: {name}: {accuracy_rows[-1]} {time_rows[-1]}", flush=True)
    names = list(PAIRS) + [f"gold DS, {k}-fold" for k in FOLDS] + ["ours gold-weighted, 2-fold"]
    print("accuracy against gold, ours / crowd-kit")
    print("| data set | " + " | ".join(names) + " |")
    print("|" + " --- |" * (len(names) + 1))
    print("\n".join(accuracy_rows))
    print(f"\ncrowd-kit time ÷ ours (best of {repeats})")
    print("| data set | " + " | ".join(PAIRS) + " |")
    print("|" + " --- |" * (len(PAIRS) + 1))
    print("\n".join(time_rows))


def methods_speed(repeats: int, n_items: int = 10_000, pool: int = 100) -> None:
    """Every aggregator on one simulated set (``n_items`` × 10 judgements from ``pool`` annotators,
    5 labels): crowd-kit's time ÷ ours, wall and CPU, best of ``repeats``, and accuracy."""
    triples, truth, _ = simulate(n_items, 10, pool, 5, seed=1)
    frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
    print(
        f"\nsimulated: {len(triples):,} judgements, {n_items:,} items × 10 from {pool} annotators, 5 labels; "
        f"best of {repeats}"
    )
    print("| method | ours s | crowd-kit s | crowd-kit ÷ ours (wall) | (CPU) | accuracy ours / crowd-kit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, (ours, kit) in PAIRS.items():
        results, wall, cpu = best_of(repeats, ours=lambda o=ours: o(frame), kit=lambda k=kit: k(frame))
        print(
            f"| {name} | {wall['ours']:.3f} | {wall['kit']:.3f} | {wall['kit'] / wall['ours']:.1f} "
            f"| {cpu['kit'] / cpu['ours']:.1f} | {accuracy(_labels(results['ours']), truth):.4f} / "
            f"{accuracy(results['kit'], truth):.4f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=None, help="timing repeats (default 5, quick 1)")
    parser.add_argument("--cohen-sample", type=int, default=None, help="pairs timed with statsmodels")
    parser.add_argument("--ci-resamples", type=int, default=None, help="bootstrap resamples timed")
    parser.add_argument("--real", action="store_true", help="also the real data sets (../shared/data)")
    parser.add_argument(
        "--real-only", action="store_true", help="only the real data sets: skip the 1,000,000-judgement part"
    )
    parser.add_argument("--skip-real", action="store_true", help="--methods on the simulated set only")
    parser.add_argument(
        "--simulated-items", type=int, default=None, help="items of the simulated set (--methods)"
    )
    parser.add_argument("--skip-simulated", action="store_true", help="--methods on the real sets only")
    parser.add_argument("--real-repeats", type=int, default=None, help="repeats on the real sets (--methods)")
    parser.add_argument(
        "--methods",
        action="store_true",
        help="every aggregator against crowd-kit's: real sets and a simulated set",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.methods:
        repeats = args.repeats or (1 if args.quick else 3)
        print(f"cores: {os.cpu_count()}; every aggregator; best of {repeats}; {date.today().isoformat()}")
        if not args.skip_simulated:
            methods_speed(repeats, n_items=args.simulated_items or (1_000 if args.quick else 10_000))
        if not args.skip_real:
            methods_table(args.real_repeats or repeats)
        return
    if args.real_only:
        repeats = args.repeats or (1 if args.quick else 5)
        print(f"cores: {os.cpu_count()}; real data sets only; best of {repeats}; {date.today().isoformat()}")
        real_data_table(repeats)
        return
    n_items = 2_000 if args.quick else 100_000
    repeats = args.repeats or (1 if args.quick else 5)
    cohen_sample = args.cohen_sample or (2_000 if args.quick else 20_000)
    ci_resamples = args.ci_resamples or (10 if args.quick else 50)
    triples, truth, answers = simulate(n_items, 10, 1_000, 5)
    frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
    print(
        f"cores: {os.cpu_count()}; {len(triples):,} judgements, {n_items:,} items, 10 per item from a "
        f"pool of 1,000 annotators, 5 labels; best of {repeats}; {date.today().isoformat()}"
    )

    kit_models = {}

    def kit_ds(data):
        model = DawidSkene(n_iter=100)
        labels = model.fit_predict(data).to_dict()
        kit_models["ds"] = model
        return labels

    results, times, cpu = best_of(
        repeats,
        ours_ds=lambda: dawid_skene(frame),
        kit_ds=lambda: kit_ds(frame),
        ours_ds_tuples=lambda: dawid_skene(triples),
        kit_ds_tuples=lambda: kit_ds(pd.DataFrame(triples, columns=["task", "worker", "label"])),
        ours_mv=lambda: majority_vote(frame),
        kit_mv=lambda: MajorityVote().fit_predict(frame).to_dict(),
    )
    ours_ds, kit_ds_labels = results["ours_ds"], results["kit_ds"]
    print(
        f"Dawid-Skene, same DataFrame: crowd-kit time / ours {times['kit_ds'] / times['ours_ds']:.1f} "
        f"(CPU time {cpu['kit_ds'] / cpu['ours_ds']:.1f}); "
        f"accuracy ours {accuracy(ours_ds.labels, truth):.4f} ({ours_ds.parameters['iterations']} "
        f"iterations), crowd-kit {accuracy(kit_ds_labels, truth):.4f} "
        f"({len(kit_models['ds'].loss_history_)} iterations)"
    )
    print(
        f"Dawid-Skene, from Python tuples: crowd-kit time / ours "
        f"{times['kit_ds_tuples'] / times['ours_ds_tuples']:.1f} "
        f"(CPU time {cpu['kit_ds_tuples'] / cpu['ours_ds_tuples']:.1f})"
    )
    print(
        f"majority vote, same DataFrame: crowd-kit time / ours {times['kit_mv'] / times['ours_mv']:.1f} "
        f"(CPU time {cpu['kit_mv'] / cpu['ours_mv']:.1f}); "
        f"accuracy ours {accuracy(results['ours_mv'].labels, truth):.4f}, crowd-kit "
        f"{accuracy(results['kit_mv'], truth):.4f} (tie rules differ)"
    )

    value_counts = encode(frame).counts
    results, agreement_times, _ = best_of(
        repeats,
        ours_fleiss=lambda: fleiss_kappa(frame),
        sm_fleiss=lambda: statsmodels_fleiss(aggregate_raters(answers)[0]),
        ours_alpha=lambda: krippendorff_alpha(frame),
        package_alpha=lambda: krippendorff.alpha(value_counts=value_counts, level_of_measurement="nominal"),
        ours_cohen=lambda: cohen_kappa_pairs(frame),
    )
    print(
        f"Fleiss' kappa: ours {results['ours_fleiss'].value:.6f} vs statsmodels {results['sm_fleiss']:.6f}; "
        f"statsmodels (from the ratings matrix) time / ours (from the DataFrame) "
        f"{agreement_times['sm_fleiss'] / agreement_times['ours_fleiss']:.1f}"
    )
    print(
        f"Krippendorff's alpha: ours {results['ours_alpha'].value:.6f} vs package "
        f"{results['package_alpha']:.6f}; package (from a value-count table) time / ours (from the "
        f"DataFrame) {agreement_times['package_alpha'] / agreement_times['ours_alpha']:.1f}"
    )
    ours_cohen = results["ours_cohen"]
    chosen, sm_kappas, sm_seconds, n_pairs = statsmodels_cohen_sample(frame, cohen_sample)
    entries = pair_entries(encode(frame))
    n_annotators = len(encode(frame).annotators)
    ours_keys = pd.Index(ours_cohen.first.astype(np.int64) * n_annotators + ours_cohen.second)
    found = ours_keys.get_indexer(
        entries.first[chosen].astype(np.int64) * n_annotators + entries.second[chosen]
    )
    ours_sample = np.where(found >= 0, ours_cohen.kappa[found], np.nan)
    counted = ~np.isnan(ours_sample) & ~np.isnan(sm_kappas)
    largest_gap = float(np.max(np.abs(ours_sample[counted] - sm_kappas[counted]))) if counted.any() else 0.0
    sm_all_pairs = sm_seconds / len(chosen) * n_pairs
    print(
        f"Cohen's kappa, all {n_pairs:,} pairs: mean {ours_cohen.mean:.6f}; statsmodels per pair "
        f"(timed on {len(chosen):,} pairs with ready tables, extrapolated) time / ours "
        f"{sm_all_pairs / agreement_times['ours_cohen']:.0f}; largest difference on the sample "
        f"{largest_gap:.1e}"
    )

    for name in ("fleiss_kappa", "krippendorff_alpha", "cohen_kappa_mean"):
        start = time.perf_counter()
        interval = bootstrap_agreement(frame, resamples=ci_resamples, statistics=(name,))[name]
        per_thousand = (time.perf_counter() - start) / ci_resamples * 1000
        print(
            f"bootstrap interval of {name}: {per_thousand:.0f} s per 1,000 resamples (timed on "
            f"{ci_resamples}); [{interval.low:.4f}, {interval.high:.4f}], mean of the resamples "
            f"{np.nanmean(interval.replicates):.4f}"
        )

    print(
        f"seconds (best): ours DS {times['ours_ds']:.2f}, crowd-kit DS {times['kit_ds']:.2f}; from tuples "
        f"ours {times['ours_ds_tuples']:.2f}, crowd-kit {times['kit_ds_tuples']:.2f}; ours MV "
        f"{times['ours_mv']:.2f}, crowd-kit MV {times['kit_mv']:.2f}; ours Cohen "
        f"{agreement_times['ours_cohen']:.2f}, statsmodels Cohen (extrapolated) {sm_all_pairs:.1f}"
    )
    ours_peak = peak_megabytes(lambda: dawid_skene(frame))
    kit_peak = peak_megabytes(lambda: DawidSkene(n_iter=100).fit_predict(frame))
    print(
        f"peak memory (tracemalloc) of Dawid-Skene from the DataFrame: ours {ours_peak:.0f} MiB, "
        f"crowd-kit {kit_peak:.0f} MiB; of all pairwise Cohen's kappas: "
        f"{peak_megabytes(lambda: cohen_kappa_pairs(frame)):.0f} MiB"
    )
    if args.real:
        real_data_table(repeats)


if __name__ == "__main__":
    main()
