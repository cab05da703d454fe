"""Fleiss' (1971) multi-rater kappa (equal to statsmodels' ``fleiss_kappa``) with its large-sample test, and
Randolph's (2005, "Free-marginal multirater kappa", ERIC ED490661) free-marginal kappa."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from annotation.crowd.agreement.base import AgreementResult, _annotators_of
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded


def fleiss_items(data: Encoded) -> tuple[np.ndarray, int]:
    """The items Fleiss' kappa uses (a mask over ``data.items``) and their number of ratings n.

    Rule for unbalanced data: n is the most common number of ratings among items with at least
    two (ties go to the larger n); items with another count are left out.
    """
    per_item = data.ratings_per_item
    frequency = np.bincount(per_item)
    frequency[:2] = 0
    if not frequency.any():
        return np.zeros(len(data.items), dtype=bool), 0
    n = int(len(frequency) - 1 - np.argmax(frequency[::-1]))  # the largest n among the most common
    return per_item == n, n


def fleiss_kappa(labels: Labels) -> AgreementResult:
    """Fleiss' kappa (Fleiss 1971) over items with a fixed number of ratings, via statsmodels.

    statsmodels (like Fleiss' formula) needs the same number of ratings n on every item; see
    ``fleiss_items`` for which items are used when they differ. Items left out are counted in
    ``n_items_excluded``. ``value`` is None when no item qualifies or chance agreement is 1 (one
    label only).
    """
    data = as_encoded(labels)
    kept, _ = fleiss_items(data)
    n_kept = int(kept.sum())
    if n_kept == 0:
        return AgreementResult(None, 0, len(data.annotators), len(data.items))
    table = data.counts[kept]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every rating is one label
        value = float(statsmodels_fleiss_kappa(table, method="fleiss"))
    return AgreementResult(
        None if math.isnan(value) else value, n_kept, _annotators_of(data, kept), len(data.items) - n_kept
    )


def fleiss_kappa_test(labels: Labels) -> dict[str, float | None]:
    """The z test of Fleiss' kappa = 0: ``{"kappa", "std_kappa0", "z_value", "pvalue_one_sided",
    "pvalue_two_sided", "n_items"}`` on the items ``fleiss_kappa`` uses (None where undefined).

    The standard error under H0 of Fleiss, Nee & Landis (1979, "Large sample variance of kappa in
    the case of different sets of raters", Psychological Bulletin 86(5)), for N items of n
    ratings and category shares p_j (q_j = 1 − p_j):
    var0 = 2 / (N n (n − 1)) · [(Σ p_j q_j)² − Σ p_j q_j (q_j − p_j)] / (Σ p_j q_j)².
    statsmodels gives no variance for Fleiss' kappa; this is R irr's ``kappam.fleiss`` (its z
    on Fleiss' diagnoses data, 17.65183, is in statsmodels' tests and in ours).
    """
    data = as_encoded(labels)
    kept, n = fleiss_items(data)
    n_kept = int(kept.sum())
    kappa = fleiss_kappa(data).value
    empty = {
        "kappa": kappa,
        "std_kappa0": None,
        "z_value": None,
        "pvalue_one_sided": None,
        "pvalue_two_sided": None,
        "n_items": n_kept,
    }
    if n_kept == 0 or kappa is None:
        return empty
    shares = data.counts[kept].sum(axis=0) / (n_kept * n)
    spread = shares * (1 - shares)
    total = spread.sum()
    var0 = 2 / (n_kept * n * (n - 1)) * (total**2 - (spread * (1 - 2 * shares)).sum()) / total**2
    if not var0 > 0:
        return empty
    std0 = math.sqrt(var0)
    z = kappa / std0
    return {
        "kappa": kappa,
        "std_kappa0": std0,
        "z_value": z,
        "pvalue_one_sided": float(stats.norm.sf(z)),
        "pvalue_two_sided": float(2 * stats.norm.sf(abs(z))),
        "n_items": n_kept,
    }


def randolph_kappa(labels: Labels) -> AgreementResult:
    """Randolph's (2005) free-marginal multirater kappa, (P̄ − 1/k) / (1 − 1/k).

    P̄ is Fleiss' (1971) mean observed agreement over items, on the same items as
    ``fleiss_kappa`` (``fleiss_items``); chance agreement is 1/k for k equally likely categories
    instead of Fleiss' Σ p_j² from the observed margins, for designs where annotators are not
    bound to fixed label quotas. k is the number of classes of the data: the labels found, or the
    whole scale when the labels were coded with ``encoding.on_scale``, which a caller should do
    when some category went unused (k changes the value). Equal to statsmodels'
    ``fleiss_kappa(table, method="randolph")``; Warrens (2010) shows it is never below Fleiss'
    kappa. ``value`` is None when no item qualifies or there is a single class.
    """
    data = as_encoded(labels)
    kept, n = fleiss_items(data)
    n_kept = int(kept.sum())
    if n_kept == 0:
        return AgreementResult(None, 0, len(data.annotators), len(data.items))
    k = len(data.classes)
    table = data.counts[kept].astype(float)
    observed = float(((table * table).sum(axis=1) - n).mean() / (n * (n - 1)))
    value = None if k < 2 else (observed - 1 / k) / (1 - 1 / k)
    return AgreementResult(value, n_kept, _annotators_of(data, kept), len(data.items) - n_kept)
