"""Longest common subsequences for ROUGE-L, ROUGE-Lsum and ROUGE-W (Lin 2004, §3–4).

Plain LCS uses the bit-parallel algorithm of Allison & Dix (1986) as written by Hyyrö (2004):
the DP column of the reference against a candidate prefix is one integer ``V`` whose zero bits
mark the rows where the LCS length steps up, so ``table[i][j] = i - popcount(V_j & (2^i - 1))``.
That identity lets us replay rouge-score's backtracking (``_backtrack_norec``: take the diagonal
on equal tokens, otherwise go up unless left is strictly longer; ROUGE-1.5.5's ``markLCS`` chooses
the same way) without building the table: in column ``j`` the walk climbs from row ``i`` to the
highest row below it where the column steps (its highest zero bit ``k``), stopping early at the
first reference position in ``[k, i)`` holding the candidate token. Columns whose token is not in
the reference sentence leave ``V`` unchanged; a run of them only moves the walk to row ``k + 1``.
The LCS chosen, and so the union and the hits, are exactly rouge-score's.

ROUGE-W: ``wlcs`` is Lin's weighted LCS (2004, §4, the algorithm in its figure): a dynamic
programme that takes the diagonal whenever tokens are equal and adds f(k+1) − f(k) for the k-th
consecutive match, so consecutive matches in *both* texts weigh more. ROUGE-1.5.5 runs the same
programme (``wlcs_inner``) but only to mark a path; it then scores runs of consecutive marked
*reference* positions, which is why it gives Lin's own example Y2 = "A H B K C I D" against
X = "A B C D E F G" the same weight as Y1 = "A B C D H I K". ``weighted_union_lcs_hits``
reproduces that, operation for operation, for the ``rouge155`` variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def token_masks(sentence: Sequence[str]) -> dict[str, int]:
    """For each token, the bit set of its positions in ``sentence``."""
    masks = {token: 1 << position for position, token in enumerate(sentence)}
    if len(masks) != len(sentence):  # a repeated token: collect all its positions
        masks = {}
        for position, token in enumerate(sentence):
            masks[token] = masks.get(token, 0) | (1 << position)
    return masks


def lcs_length(a: Sequence[str], b: Sequence[str], a_masks: dict[str, int] | None = None) -> int:
    """Length of a longest common subsequence, bit-parallel: O(len(b)) big-integer operations.

    ``a_masks`` is ``token_masks(a)`` when the caller already has it.
    """
    if not a or not b:
        return 0
    masks = a_masks if a_masks is not None else token_masks(a)
    full = (1 << len(a)) - 1
    v = full
    for mask in map(masks.get, b):
        if mask:
            u = v & mask
            v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_reference_positions(masks: dict[str, int], reference_length: int, candidate: Sequence[str]) -> int:
    """The reference positions of rouge-score's LCS of (reference, candidate), as a bit set.

    ``masks`` is ``token_masks(reference)``. See the module docstring for why the walk is the
    one rouge-score's table backtracking takes.
    """
    relevant = [(j, mask) for j, mask in enumerate(map(masks.get, candidate)) if mask]
    if not relevant:
        return 0
    full = (1 << reference_length) - 1
    v = full
    vectors = []
    for _, mask in relevant:
        u = v & mask
        v = ((v + u) | (v - u)) & full
        vectors.append(v)
    chosen = 0
    i = reference_length
    next_column = len(candidate)  # the column right of the one being walked (0-based)
    for index in range(len(relevant) - 1, -1, -1):
        j, mask = relevant[index]
        below = (1 << i) - 1
        steps = ~vectors[index] & below
        if not steps:
            break  # nothing left in common
        k = steps.bit_length() - 1
        if j + 1 != next_column:
            # Columns j+1 … next_column-1 hold tokens absent from the reference: the walk
            # climbed to the step row k + 1 in them before turning left.
            i = k + 1
            below = (1 << i) - 1
        hits = (mask & below) >> k
        if hits:
            i = k + hits.bit_length() - 1
            chosen |= 1 << i
        else:
            i = k + 1
        next_column = j
    return chosen


def union_lcs_hits(
    reference_sentences: Sequence[Sequence[str]],
    candidate_sentences: Sequence[Sequence[str]],
    reference_counts: Mapping[str, int],
    candidate_counts: Mapping[str, int],
    candidate_sets: Sequence[frozenset[str]] | None = None,
) -> int:
    """Summary-level LCS hits (Lin 2004 §3.2, ROUGE-1.5.5 ≥ 1.4.1, rouge-score's ROUGE-Lsum).

    For each reference sentence, the union of its LCS with every candidate sentence; a token of
    that union is a hit while both the candidate and the reference still have an unused
    occurrence of it, so no token is counted more often than it occurs (ROUGE-1.5.5's clipping).
    The counts are the token counts of the whole reference and candidate; they are not changed.
    ``candidate_sets`` (the token sets of the candidate sentences) may be passed to save time.
    """
    reference_left = dict(reference_counts)
    candidate_left = dict(candidate_counts)
    if candidate_sets is None:
        candidate_sets = [frozenset(sentence) for sentence in candidate_sentences]
    candidates = list(zip(candidate_sentences, candidate_sets, strict=True))
    hits = 0
    for sentence in reference_sentences:
        if not sentence or candidate_left.keys().isdisjoint(sentence):
            continue
        masks = token_masks(sentence)
        length = len(sentence)
        union = 0
        for candidate, tokens in candidates:
            if not tokens.isdisjoint(masks):
                union |= lcs_reference_positions(masks, length, candidate)
        while union:
            low = union & -union
            token = sentence[low.bit_length() - 1]
            union ^= low
            if candidate_left.get(token, 0) > 0 and reference_left[token] > 0:
                hits += 1
                candidate_left[token] -= 1
                reference_left[token] -= 1
    return hits


def wlcs(reference: Sequence[str], candidate: Sequence[str], weights: Sequence[float]) -> float:
    """Lin's WLCS(X, Y) with ``weights[k]`` = f(k): the value c(m, n) of his dynamic programme."""
    if not reference or not candidate:
        return 0.0
    cols = len(candidate)
    previous = [0.0] * (cols + 1)
    previous_run = [0] * (cols + 1)
    for token in reference:
        row = [0.0] * (cols + 1)
        run = [0] * (cols + 1)
        for j in range(1, cols + 1):
            if token == candidate[j - 1]:
                k = previous_run[j - 1]
                row[j] = previous[j - 1] + weights[k + 1] - weights[k]
                run[j] = k + 1
            elif previous[j] > row[j - 1]:
                row[j] = previous[j]
            else:
                row[j] = row[j - 1]
        previous, previous_run = row, run
    return previous[cols]


def _wlcs_mark(
    reference: Sequence[str], candidate: Sequence[str], weights: Sequence[float], hit_mask: list[int]
) -> None:
    """ROUGE-1.5.5's ``wlcs_inner`` then ``markLCS``: mark the reference positions of its WLCS path."""
    rows, cols = len(reference), len(candidate)
    score = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    run = [[0] * (cols + 1) for _ in range(rows + 1)]
    # 0 = diagonal, 1 = up (reference), 2 = left (candidate)
    move = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        token = reference[i - 1]
        row, previous, run_row, run_previous, move_row = score[i], score[i - 1], run[i], run[i - 1], move[i]
        for j in range(1, cols + 1):
            if token == candidate[j - 1]:
                k = run_previous[j - 1]
                # Same operations in the same order as the Perl: (c + f(k+1)) - f(k).
                row[j] = previous[j - 1] + weights[k + 1] - weights[k]
                run_row[j] = k + 1
            elif previous[j] >= row[j - 1]:
                row[j] = previous[j]
                move_row[j] = 1
            else:
                row[j] = row[j - 1]
                move_row[j] = 2
    i, j = rows, cols
    while i and j:
        step = move[i][j]
        if step == 0:
            i -= 1
            j -= 1
            hit_mask[i] = 1
        elif step == 1:
            i -= 1
        else:
            j -= 1


def weighted_union_lcs_hits(
    reference_sentences: Sequence[Sequence[str]],
    candidate_sentences: Sequence[Sequence[str]],
    reference_counts: Mapping[str, int],
    candidate_counts: Mapping[str, int],
    weights: Sequence[float],
) -> float:
    """ROUGE-1.5.5's summary-level WLCS hit (``wlcs``): Σ f(run length) over the union WLCS.

    ``weights[k]`` is f(k) = k ** w. As in ROUGE-1.5.5, a union position whose token is used up
    (clipping as in ``union_lcs_hits``) neither extends nor ends a run, and a run is closed only
    at a counted position followed by an unmarked one or by the end of the sentence.
    The counts are not changed.
    """
    reference_left = dict(reference_counts)
    candidate_left = dict(candidate_counts)
    candidate_sets = [frozenset(sentence) for sentence in candidate_sentences]
    hit = 0.0
    for sentence in reference_sentences:
        if not sentence:
            continue
        hit_mask = [0] * len(sentence)
        tokens = frozenset(sentence)
        for candidate, candidate_set in zip(candidate_sentences, candidate_sets, strict=True):
            if not candidate_set.isdisjoint(tokens):
                _wlcs_mark(sentence, candidate, weights, hit_mask)
        run = 0
        last = len(sentence) - 1
        for position, marked in enumerate(hit_mask):
            if not marked:
                continue
            token = sentence[position]
            if candidate_left.get(token, 0) > 0 and reference_left[token] > 0:
                run += 1
                if position == last or not hit_mask[position + 1]:
                    hit += weights[run]
                    run = 0
                candidate_left[token] -= 1
                reference_left[token] -= 1
    return hit
