"""Translation edit rate (Snover et al. 2006) exactly as sacrebleu 2.6.0's ``TER()`` computes it,
only faster (pure: no Django).

TER = (word shifts + edits) / the average reference length × 100, the edits being what remains of
the word-level edit distance once the hypothesis' phrases have been shifted greedily. sacrebleu's
defaults throughout: lowercased, its Tercom tokeniser with no normalisation and punctuation kept
(``TercomTokenizer`` itself is imported, so tokens are the same by construction).

The search is sacrebleu's (``sacrebleu/metrics/lib_ter.py``), step for step, so scores agree on
every input, degenerate ones included:

- a round computes the edit distance of the current hypothesis and its alignment (the trace read
  back from the end, preferring match/substitution, then deletion, then insertion, as sacrebleu
  flips its trace), then lists shift candidates in sacrebleu's order: every hypothesis position,
  every reference position at most 50 apart, every common phrase of up to 10 words starting
  there; a candidate is skipped when the phrase has no error in the hypothesis or none in the
  reference or the reference position is aligned inside the phrase; each candidate is moved before
  each distinct aligned position of the reference phrase (and the one before it);
- the best candidate gains the most, then is the longest, the earliest in the hypothesis, the
  earliest target; the first listed wins a full tie; a round with no gain ends the search, and so
  does the 1,000th candidate counted over all rounds (that round's shift is then not applied);
- the edit distance is sacrebleu's *beamed* one, not plain Levenshtein: row ``i`` of the matrix
  (hypothesis word ``i``) only has the cells within 25 (more for very unequal lengths) of the
  pseudo-diagonal ``floor(i × m / n)``, the last row all cells from there to the end; cells outside
  are infinite. On long or unequal sentences this can change the distance.

What makes it fast (30–50× sacrebleu's ``sentence_score`` on outputs of a few sentences with 4
references, ``benchmarks/bench_ter.py``):

- The beamed distance is computed bit-parallel (Myers 1999, in Hyyrö's 2003 form for edit distance):
  a row of the matrix is two bit vectors of its steps (+1/-1 from cell to cell along the
  reference) and one anchor value. Inside the beam the steps are still -1, 0 or +1 (the beam is
  contiguous in every row and moves right by less than its width), so the band is emulated exactly
  by editing the vectors outside it before each row: to the right of the previous row's band every
  step is set to +1 and no word matches, which makes those cells exactly what the beamed matrix
  gives (reached by insertions only); to the left of the new band no word matches, which makes
  those cells at least the cell above, so they never beat the band's first cell; and where the
  band does not move left, the step into its first cell is set to -1 (the anchor corrected by what
  that changes), so the cell before it cannot be used diagonally. Each row costs a few dozen
  operations on Python integers instead of a Python loop over up to 50 cells.
- The trace needs each cell's choice, also bit-parallel: a row's "diagonal is optimal" and
  "deletion is optimal" masks come out of the same step (Myers' ``D0`` and ``HP``), restricted to
  the cells whose predecessor is in the beam; reading the trace back is one bit test per step.
- All of a round's candidates are scored at once: one lane of ``w`` bits per candidate in a single
  integer (SWAR), from the first row where any candidate differs from the current hypothesis;
  the match vector of a row is built from per-word byte strings in one ``bytes.join``.
- Rows of the current hypothesis are kept between rounds; after a shift only those from its first
  changed position are computed again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

# sacrebleu's limits (lib_ter.py): Tercom's beam, shift size and distance, and its own candidate cap.
BEAM_WIDTH = 25
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
MAX_SHIFT_CANDIDATES = 1000
# At most this many bytes of match vectors at once when a round's candidates are scored together.
TABLE_BYTES = 8 << 20

_TOKENIZER = TercomTokenizer(normalized=False, no_punct=False, asian_support=False, case_sensitive=False)


def _hypothesis_words(text: str) -> list[str]:
    # sacrebleu: ``_preprocess_segment`` (tokeniser of the right-stripped text), then ``split()``.
    return _TOKENIZER(text.rstrip()).split()


def _reference_words(text: str) -> list[str]:
    # sacrebleu preprocesses a reference twice (``_cache_references``, then ``_extract_reference_info``).
    return _TOKENIZER(_TOKENIZER(text.rstrip()).rstrip()).split()


# A row of the beam, for hypothesis position i (1..n), as bit masks over reference positions
# 1..m (bit j - 1 for position j):
#   match     positions whose word may match: from the row's band start to the previous band's end
#   right     positions at or past the previous row's band end whose step is not yet +1 (see _beam)
#   corner    the bit of the band's first position when the band did not move left (else 0)
#   diagonal  cells whose diagonal predecessor is in the previous row's band (for the trace)
#   vertical  cells whose upper predecessor is in the previous row's band (for the trace)
_Row = tuple[int, int, int, int, int]


def _beam(n: int, m: int) -> tuple[_Row, ...]:
    """``_beam_rows``, kept for the last few hundred sizes of moderate length (outputs of similar
    lengths share them; a long one's rows take memory and are quickly computed in comparison)."""
    return _cached_beam_rows(n, m) if n <= 160 and m <= 320 else _beam_rows(n, m)


def _beam_rows(n: int, m: int) -> tuple[_Row, ...]:
    """Rows 1..n of sacrebleu's beam for a hypothesis of n words and a reference of m (index 0 is
    a placeholder), with the ranges ``BeamEditDistance._edit_distance`` computes, in the same
    float arithmetic.

    Past the previous row's band (from ``previous_high``) the steps of the previous row must be +1
    and no word may match. A row computed that way leaves +1 steps past its own ``previous_high``,
    so ``right`` only holds what the row before did not already leave at +1: everything from the
    first row whose previous band ends early, afterwards only a band end that did not move."""
    ratio = m / n if n else 1
    width = math.ceil(ratio / 2 + BEAM_WIDTH) if ratio / 2 > BEAM_WIDTH else BEAM_WIDTH
    below = [(1 << k) - 1 for k in range(m + 1)]  # below[k]: bits of positions 1..k
    below.append(below[m])  # position m + 1 is past the reference
    rows: list[_Row] = [(0, 0, 0, 0, 0)]
    previous_low, previous_high = 0, m + 1  # row 0 is whole
    settled = m + 1  # the previous row's steps are +1 from here on
    for i in range(1, n + 1):
        diagonal_position = int(i * ratio)  # math.floor, as sacrebleu, of a non-negative number
        low = diagonal_position - width if diagonal_position > width else 0
        high = m + 1 if i == n or diagonal_position + width > m else diagonal_position + width
        start = below[low - 1] if low else 0  # bits before position max(low, 1)
        match = below[previous_high] ^ start  # positions max(low, 1)..min(previous_high, m)
        # An upper neighbour exists up to min(high, previous_high) - 1, a diagonal one also up to
        # min(high - 1, previous_high), and from one past low when the band did not move left.
        vertical = below[min(high, previous_high) - 1] ^ start
        corner = 1 << (low - 1) if (low == previous_low and low) else 0
        diagonal = (below[min(high - 1, previous_high)] ^ start) & ~corner
        right = below[settled - 1] ^ below[previous_high - 1] if previous_high < settled else 0
        rows.append((match, right, corner, diagonal, vertical))
        settled = previous_high + 1 if previous_high <= m else m + 1
        previous_low, previous_high = low, high
    return tuple(rows)


_cached_beam_rows = lru_cache(maxsize=512)(_beam_rows)


def _shifted(words: list, length: int, start: int, target: int, first: int = 0) -> list:
    """``words`` with ``words[start:start + length]`` moved before ``target``, as sacrebleu's
    ``_perform_shift`` (its three cases), from position ``first`` on (``first`` at most the first
    changed position)."""
    if target < start:
        return (
            words[first:target]
            + words[start : start + length]
            + words[target:start]
            + words[start + length :]
        )
    if target > start + length:
        return (
            words[first:start]
            + words[start + length : target]
            + words[start : start + length]
            + words[target:]
        )
    return (
        words[first:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


def _cumulative(errors: list[int]) -> list[int]:
    """Prefix sums: ``cumulative[k] = sum(errors[:k])``."""
    cumulative = [0]
    total = 0
    for error in errors:
        total += error
        cumulative.append(total)
    return cumulative


def _add_targets(found: list, align: list[int], length: int, start_h: int, start_r: int) -> None:
    """The candidates of one phrase: moved before the hypothesis position after the one aligned
    with each reference position from ``start_r - 1`` to the phrase's end, each distinct target
    once in a row (sacrebleu inserts *before* the index)."""
    previous = 0 if start_r == 0 else align[start_r - 1] + 1
    found.append((length, start_h, previous))
    for offset in range(start_r, start_r + length):
        target = align[offset] + 1
        if target != previous:
            previous = target
            found.append((length, start_h, target))


class _Pair:
    """One hypothesis against one reference: sacrebleu's ``translation_edit_rate``."""

    __slots__ = ("beam", "bytes_of", "capped", "full", "lane_bytes", "m", "match_of", "n", "positions", "ref")

    def __init__(self, hyp: list[str], ref: list[str]) -> None:
        self.n, self.m, self.ref = len(hyp), len(ref), ref
        match_of: dict[str, int] = {}
        positions: dict[str, list[int]] = {}
        for j, word in enumerate(ref):
            match_of[word] = match_of.get(word, 0) | (1 << j)
            positions.setdefault(word, []).append(j)
        self.positions = positions
        for word in hyp:
            match_of.setdefault(word, 0)
        self.match_of = match_of
        self.full = (1 << self.m) - 1
        self.beam = _beam(self.n, self.m)
        self.lane_bytes = (self.m + 2 + 7) // 8  # room for the carry and one shifted-out bit
        self.bytes_of: dict[str, bytes] | None = None
        self.capped = False  # whether the candidate cap ended the search (tests read it)

    def forward(
        self, words: list[str], start: int, states: list, diagonal_ok: list, deletion_ok: list
    ) -> None:
        """Rows ``start + 1..n`` of ``words``' beamed matrix: ``states[i] = (vp, vn, v0)`` (the
        row's +1 and -1 steps and the value of its position 0, which is virtual outside the beam)
        and, for the trace, the masks of cells where the diagonal (match/substitution) and the
        deletion are optimal."""
        full, beam, match_of = self.full, self.beam, self.match_of
        vp, vn, v0 = states[start]
        del states[start + 1 :], diagonal_ok[start + 1 :], deletion_ok[start + 1 :]
        for i in range(start + 1, self.n + 1):
            match, right, corner, diagonal, vertical = beam[i]
            if corner:
                if vp & corner:
                    v0 += 2
                    vp ^= corner
                elif not vn & corner:
                    v0 += 1
                vn |= corner
            if right:
                vp |= right
                vn = (vn | right) ^ right
            eq = match_of[words[i - 1]] & match
            x = eq | vn
            d0 = (((x & vp) + vp) ^ vp) | x  # may carry into bit m: masked below
            hp = vn | ((d0 | vp) ^ full)
            hn = vp & d0
            diagonal_ok.append((eq | (d0 ^ full)) & diagonal)
            deletion_ok.append(hp & vertical)
            hp = (hp << 1) | 1
            vp = ((hn << 1) | ((d0 | hp) ^ full)) & full
            vn = hp & d0 & full
            v0 += 1
            states.append((vp, vn, v0))

    def alignment(self, words: list[str], diagonal_ok: list, deletion_ok: list):
        """sacrebleu's ``trace_to_alignment`` of its flipped trace, read back from the last cell:
        ``(align, reference errors, hypothesis errors)``."""
        n, m, ref = self.n, self.m, self.ref
        align = [0] * m
        ref_err = [0] * m
        hyp_err = [0] * n
        i, j = n, m
        while i > 0 and j > 0:
            if diagonal_ok[i] >> (j - 1) & 1:
                i -= 1
                j -= 1
                align[j] = i
                if words[i] != ref[j]:
                    hyp_err[i] = ref_err[j] = 1
            elif deletion_ok[i] >> (j - 1) & 1:
                i -= 1
                hyp_err[i] = 1
            else:
                j -= 1
                ref_err[j] = 1
                align[j] = i - 1
        while i > 0:  # first column: deletions only
            i -= 1
            hyp_err[i] = 1
        while j > 0:  # first row: insertions only
            j -= 1
            ref_err[j] = 1
            align[j] = -1
        return align, ref_err, hyp_err

    def candidates(
        self, words: list[str], align: list[int], ref_err: list[int], hyp_err: list[int], budget: int
    ):
        """sacrebleu's shift candidates, in its order: ``[(length, start, target)]`` and whether
        the candidate budget ran out in this round."""
        n, m, ref, positions = self.n, self.m, self.ref, self.positions
        hyp_cum, ref_cum = _cumulative(hyp_err), _cumulative(ref_err)
        found: list[tuple[int, int, int]] = []
        for start_h in range(n):
            occurrences = positions.get(words[start_h])
            if not occurrences:
                continue
            for start_r in occurrences:
                if start_r - start_h > MAX_SHIFT_DIST:
                    break
                if start_h - start_r > MAX_SHIFT_DIST:
                    continue
                length = 0
                while length < MAX_SHIFT_SIZE and words[start_h + length] == ref[start_r + length]:
                    length += 1
                    end_h, end_r = start_h + length, start_r + length
                    if (
                        hyp_cum[end_h] != hyp_cum[start_h]
                        and ref_cum[end_r] != ref_cum[start_r]
                        and not start_h <= align[start_r] < end_h
                    ):
                        _add_targets(found, align, length, start_h, start_r)
                        if len(found) >= budget:
                            return found, True
                    if end_h == n or end_r == m:
                        break
        return found, False

    def score_shifts(self, words: list[str], found: list[tuple[int, int, int]], states: list) -> list[int]:
        """The beamed edit distance of every candidate shift of ``words``, all at once: one lane of
        ``lane_bytes`` bytes per candidate in the same integers, from the first row any of them
        changes."""
        n, beam, full = self.n, self.beam, self.full
        first = n
        for _, start, target in found:
            if target < first:
                first = target
            if start < first:
                first = start
        if self.bytes_of is None:
            width = self.lane_bytes
            self.bytes_of = {word: mask.to_bytes(width, "little") for word, mask in self.match_of.items()}
        bytes_of = self.bytes_of
        current = [bytes_of[word] for word in words]
        # Row-major: row i's match vectors of every lane, one after the other.
        table = b"".join(
            chain.from_iterable(zip(*[_shifted(current, *shift, first) for shift in found], strict=True))
        )
        lanes = len(found)
        width = self.lane_bytes
        size = width * lanes
        from_bytes = int.from_bytes
        ones = from_bytes((b"\x01" + bytes(width - 1)) * lanes, "little")
        vp, vn, v0 = states[first]
        vp *= ones
        vn *= ones
        all_full = full * ones
        plus = minus = 0
        corners = 0
        offset = 0
        for i in range(first + 1, n + 1):
            match, right, corner, _, _ = beam[i]
            if corner:
                shift = corner.bit_length() - 1
                plus += (vp >> shift) & ones
                minus += (vn >> shift) & ones
                corner *= ones
                vp = (vp | corner) ^ corner
                vn |= corner
                corners += 1
            if right:
                right *= ones
                vp |= right
                vn = (vn | right) ^ right
            eq = from_bytes(table[offset : offset + size], "little")
            if match != full:
                eq &= match * ones
            offset += size
            x = eq | vn
            d0 = (((x & vp) + vp) ^ vp) | x
            hp = ((vn | ((d0 | vp) ^ all_full)) << 1) | ones
            vp = (((vp & d0) << 1) | ((d0 | hp) ^ all_full)) & all_full
            vn = hp & d0 & all_full
        base = v0 + (n - first) + corners
        vp_bytes = vp.to_bytes(size, "little")
        vn_bytes = vn.to_bytes(size, "little")
        if corners:
            plus_bytes = plus.to_bytes(size, "little")
            minus_bytes = minus.to_bytes(size, "little")
            return [
                base
                + from_bytes(vp_bytes[k : k + width], "little").bit_count()
                - from_bytes(vn_bytes[k : k + width], "little").bit_count()
                + from_bytes(plus_bytes[k : k + width], "little")
                - from_bytes(minus_bytes[k : k + width], "little")
                for k in range(0, size, width)
            ]
        return [
            base
            + from_bytes(vp_bytes[k : k + width], "little").bit_count()
            - from_bytes(vn_bytes[k : k + width], "little").bit_count()
            for k in range(0, size, width)
        ]

    def distance(self, words: list[str]) -> int:
        """The beamed edit distance of ``words``, without shifts."""
        states: list = [(self.full, 0, 0)]
        self.forward(words, 0, states, [0], [0])
        vp, vn, v0 = states[self.n]
        return v0 + vp.bit_count() - vn.bit_count()

    def edits(self, hyp: list[str]) -> int:
        """Shifts plus the beamed edit distance after them, as ``translation_edit_rate``."""
        n = self.n
        words = hyp
        states: list = [(self.full, 0, 0)]
        diagonal_ok: list = [0]
        deletion_ok: list = [0]
        self.forward(words, 0, states, diagonal_ok, deletion_ok)
        shifts = 0
        checked = 0
        while True:
            vp, vn, v0 = states[n]
            distance = v0 + vp.bit_count() - vn.bit_count()
            align, ref_err, hyp_err = self.alignment(words, diagonal_ok, deletion_ok)
            found, exhausted = self.candidates(words, align, ref_err, hyp_err, MAX_SHIFT_CANDIDATES - checked)
            checked += len(found)
            self.capped = exhausted
            if exhausted or not found:
                return shifts + distance
            best_key = (0, 0, 0, 0)
            best = -1
            # Lanes in groups whose match vectors take at most TABLE_BYTES (one group but on long texts).
            group = max(1, TABLE_BYTES // ((n + 1) * self.lane_bytes))
            scores = [
                score
                for at in range(0, len(found), group)
                for score in self.score_shifts(words, found[at : at + group], states)
            ]
            for k, ((length, start, target), score) in enumerate(zip(found, scores, strict=True)):
                key = (distance - score, length, -start, -target)
                if best < 0 or key > best_key:
                    best_key, best = key, k
            if best_key[0] <= 0:
                return shifts + distance
            length, start, target = found[best]
            words = _shifted(words, length, start, target)
            shifts += 1
            self.forward(words, min(start, target), states, diagonal_ok, deletion_ok)


def _pair_edits(hyp: list[str], ref: list[str]) -> int:
    if not ref:
        return len(hyp)
    return _Pair(hyp, ref).edits(hyp)


def segment_statistics(hypothesis: str, references: Sequence[str | None]) -> tuple[int, float]:
    """``(fewest edits over the references, average reference length)`` as sacrebleu's
    ``_compute_segment_statistics``; ``None`` references are left out as sacrebleu leaves them out."""
    if isinstance(references, str):
        raise TypeError("references: a sequence of strings, not one string")
    refs = [_reference_words(text) for text in references if text is not None]
    if not refs:
        raise ValueError("no reference to score against")
    hyp = _hypothesis_words(hypothesis)
    best = int(1e16)
    lengths = 0
    for ref in refs:
        edits = _pair_edits(hyp, ref)
        lengths += len(ref)
        if edits < best:
            best = edits
    return best, lengths / len(refs)


def _score(edits: float, length: float) -> float:
    # sacrebleu's ``_compute_score_from_stats``.
    if length > 0:
        return 100 * (edits / length)
    return 100 * 1.0 if edits > 0 else 0.0


def sentence_ter(hypothesis: str, references: Sequence[str | None]) -> float:
    """TER of one hypothesis against its references, 0–100 (above 100 when the edits outnumber
    the words), equal to ``sacrebleu.TER().sentence_score(hypothesis, references).score``."""
    return _score(*segment_statistics(hypothesis, references))


def corpus_ter(hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]) -> float:
    """Corpus TER: every segment's fewest edits over the sum of their average reference lengths,
    equal to ``sacrebleu.TER().corpus_score`` (``references[k]`` are segment ``k``'s references,
    not sacrebleu's streams per position; ``None`` for a missing one)."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} lists of references")
    stats = [segment_statistics(hyp, refs) for hyp, refs in zip(hypotheses, references, strict=True)]
    if len(stats) == 1:
        return _score(*stats[0])
    edits, length = 0, 0.0  # sacrebleu's ``sum_of_lists``: the type of the first statistic, from zero
    for segment_edits, segment_length in stats:
        edits += segment_edits
        length += segment_length
    return _score(edits, length)
