"""Measure names as people write them: trec_eval's and ir_measures' (pure; no Django).

Cranfield names every measure as trec_eval prints it (``map``, ``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.10``): on pages, in the API, in downloads and in the CLI's output. Wherever a
measure is chosen, three spellings are accepted and mean the same measure:

- the printed name: ``ndcg_cut_10``, ``P_10``, ``set_F_0.5``;
- trec_eval's ``-m`` argument: ``ndcg_cut.10``, ``P.5,10`` (a family and its parameters);
- ir_measures' name (MacAvaney et al., ECIR 2022): ``nDCG@10``, ``P@10``, ``AP``, ``R@100``,
  ``RR``, ``nDCG(dcg='exp-log2')@10``, translated as ir_measures' own pytrec_eval provider does
  (``ir_measures/providers/pytrec_eval_provider.py``; ``tests/metrics/test_measure_names.py``
  checks every alias against it and against ir_measures' values).

ir_measures' ``rel`` and ``judged_only`` parameters are refused: in trec_eval they are settings of
the whole evaluation (``-l`` and ``-J``), not of one measure.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from evaluation.metrics.trec.measures import FAMILIES, NICKNAMES, MeasureError, parse_measures

# ir_measures' names (with its own aliases: MAP, NDCG, Precision, …) → the measure they stand for.
IR_MEASURES_NAMES = {
    "AP": "AP", "MAP": "AP", "P": "P", "Precision": "P", "R": "R", "Recall": "R", "RR": "RR",
    "MRR": "RR", "nDCG": "nDCG", "NDCG": "nDCG", "Rprec": "Rprec", "RPrec": "Rprec", "Bpref": "Bpref",
    "BPref": "Bpref", "infAP": "infAP", "NumQ": "NumQ", "NumRet": "NumRet", "NumRelRet": "NumRelRet",
    "NumRel": "NumRel", "SetP": "SetP", "SetRelP": "SetRelP", "SetR": "SetR", "SetF": "SetF",
    "SetAP": "SetAP", "Success": "Success", "IPrec": "IPrec",
}  # fmt: skip
# The measures without parameters: ir_measures' name → trec_eval's.
_PLAIN = {
    "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP", "NumQ": "num_q",
    "NumRet": "num_ret", "NumRelRet": "num_rel_ret", "NumRel": "num_rel", "SetP": "set_P",
    "SetRelP": "set_relative_P", "SetR": "set_recall", "SetAP": "set_map",
}  # fmt: skip
# Those whose cut-off (``@k``) picks a trec_eval family's parameter: (without @k, with @k).
_CUT = {
    "P": (None, "P"),
    "R": (None, "recall"),
    "AP": ("map", "map_cut"),
    "nDCG": ("ndcg", "ndcg_cut"),
    "Success": (None, "success"),
    "IPrec": (None, "iprec_at_recall"),
}
_EXAMPLES = (
    "map, P_10, ndcg_cut_10 (as trec_eval prints them), ndcg_cut.10 (trec_eval's -m), nDCG@10, P@10, AP"
)


# Longer than any measure's name: refused before parsing.
LONGEST_NAME = 100


def _literal(node: ast.expr) -> object:
    return ast.literal_eval(node)  # numbers, text, True/False; anything else is a ValueError


def parse_ir_measures(name: str) -> tuple[str, str]:
    """An ir_measures name as ``(trec_eval family, parameter text)``, the parameter text empty for
    the family's own defaults: ``nDCG@10`` → ``("ndcg_cut", "10")``, ``AP`` → ``("map", "")``.
    MeasureError says why a name is not one, or has no trec_eval equivalent."""
    if len(name) > LONGEST_NAME:
        raise MeasureError(f"unknown measure {name[:LONGEST_NAME]!r}…: longer than any measure's name")
    try:
        # Parsed, never run: only names, numbers and text are read from the tree.
        node = ast.parse(name.strip(), mode="eval").body
    except SyntaxError:
        raise MeasureError(f"unknown measure {name!r}; write it as e.g. {_EXAMPLES}") from None
    cutoff: object = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        try:
            cutoff = _literal(node.right)
        except ValueError:
            raise MeasureError(f"{name!r}: the cut-off after @ must be a number") from None
        node = node.left
    params: dict[str, object] = {}
    called = node.func if isinstance(node, ast.Call) else node
    if not isinstance(called, ast.Name) or called.id not in IR_MEASURES_NAMES:
        raise MeasureError(f"unknown measure {name!r}; write it as e.g. {_EXAMPLES}")
    if isinstance(node, ast.Call):
        if node.args:
            raise MeasureError(f"{name!r}: parameters are named, e.g. nDCG(dcg='exp-log2')@10")
        for keyword in node.keywords:
            try:
                params[str(keyword.arg)] = _literal(keyword.value)
            except ValueError:
                raise MeasureError(f"{name!r}: parameter {keyword.arg} must be a number or text") from None
    measure = IR_MEASURES_NAMES[called.id]
    return _translate(name, measure, cutoff, params)


def _translate(name: str, measure: str, cutoff: object, params: dict[str, object]) -> tuple[str, str]:
    measure, exponential, beta = _read_params(name, measure, params)
    if measure in _PLAIN or measure == "SetF":
        if cutoff is not None:
            family = _PLAIN.get(measure, "set_F")
            raise MeasureError(f"{name!r}: trec_eval's {family} takes no cut-off")
        if measure == "SetF":
            return "set_F", "" if beta == 1 else repr(float(beta))
        return _PLAIN[measure], ""
    whole, cut = ("ndcg_exp", "ndcg_cut_exp") if exponential else _CUT[measure]
    if cutoff is None:
        if whole is None:
            example = "IPrec@0.5" if measure == "IPrec" else f"{measure}@10"
            raise MeasureError(f"{name!r}: {measure} needs a cut-off, e.g. {example}")
        return whole, ""
    if not _is_number(cutoff):
        raise MeasureError(f"{name!r}: the cut-off after @ must be a number")
    assert isinstance(cutoff, int | float)
    if measure == "IPrec":
        if not 0 <= cutoff <= 1:
            raise MeasureError(f"{name!r}: IPrec's recall level must be from 0 to 1")
        return cut, repr(float(cutoff))
    if not float(cutoff).is_integer() or cutoff < 1:
        raise MeasureError(f"{name!r}: the cut-off must be a whole number, at least 1")
    return cut, str(int(cutoff))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_params(name: str, measure: str, params: dict[str, object]) -> tuple[str, bool, float]:
    """The measure its parameters make of it (NumRet(rel=1) is NumRelRet, SetP(relative=True)
    SetRelP), whether nDCG's gain is exponential, and SetF's beta; MeasureError for a parameter
    trec_eval has no place for."""
    if measure == "NumRet" and "rel" in params:
        measure = "NumRelRet"  # as ir_measures: NumRet(rel=1) counts the relevant retrieved
        params.pop("rel")
    for setting, default, flag in (("rel", 1, "-l"), ("judged_only", False, "-J")):
        if setting in params and params.pop(setting) != default:
            raise MeasureError(
                f"{name!r}: {setting} is a setting of the whole evaluation here (trec_eval's {flag}), "
                "not of one measure"
            )
    exponential = False
    if measure == "nDCG" and "dcg" in params:
        dcg = params.pop("dcg")
        if dcg not in {"log2", "exp-log2"}:
            raise MeasureError(f"{name!r}: dcg must be 'log2' (trec_eval's) or 'exp-log2' (2^rel − 1)")
        exponential = dcg == "exp-log2"
    if measure == "SetP" and params.pop("relative", False):
        measure = "SetRelP"
    beta = params.pop("beta", 1.0) if measure == "SetF" else 1.0
    if not isinstance(beta, int | float) or isinstance(beta, bool):
        raise MeasureError(f"{name!r}: beta must be a number")
    if params:
        raise MeasureError(f"{name!r}: parameter {next(iter(params))} has no trec_eval equivalent")
    return measure, exponential, float(beta)


def _printed_as_spec(name: str) -> str | None:
    """The ``-m`` argument for a name as trec_eval prints it (``ndcg_cut_10`` → ``ndcg_cut.10``), or
    None. Checked by parsing it back: the argument must print exactly ``name``."""
    if name in FAMILIES:  # a family of one measure (map); P, of nine, is no printed name
        return name if parse_measures([name])[0].names() == (name,) else None
    # Longest family first: ndcg_cut_exp_10 is ndcg_cut_exp's, not ndcg_cut's or ndcg's.
    for family in sorted(FAMILIES, key=len, reverse=True):
        if name.startswith(family + "_"):
            spec = f"{family}.{name[len(family) + 1 :]}"
            try:
                (measure,) = parse_measures([spec])
            except (MeasureError, ValueError):
                continue
            if name in measure.names():
                return spec
    return None


def _is_trec_eval_spec(spec: str) -> bool:
    return spec in NICKNAMES or spec in {"runid", "num_q"} or spec.partition(".")[0] in FAMILIES


def trec_eval_specs(names: Iterable[str]) -> list[str]:
    """``-m`` arguments for trec_eval from names in any of the three spellings, in order.

    trec_eval's own arguments pass unchanged (``P.5,10``, ``official``); a printed name or an
    ir_measures name becomes its family and parameter, and those of one cut-off family are joined
    (``P@5 P@10`` → ``P.5,10``), as a family given twice to trec_eval keeps only its last list."""
    specs: list[str] = []
    joined: dict[str, list[str]] = {}
    for name in names:
        if _is_trec_eval_spec(name):
            specs.append(name)
            continue
        printed = _printed_as_spec(name)
        family, params = printed.partition(".")[::2] if printed else parse_ir_measures(name)
        if not params:
            specs.append(family)
        elif family in joined:
            joined[family].append(params)
        else:
            joined[family] = [params]
            specs.append(family)  # its place; the parameters are filled in below
    return [f"{spec}.{','.join(joined[spec])}" if spec in joined else spec for spec in specs]


def trec_eval_name(name: str) -> str:
    """The name trec_eval prints for one measure given in any of the three spellings:
    ``nDCG@10`` → ``ndcg_cut_10``, ``ndcg_cut.10`` → ``ndcg_cut_10``, ``P_10`` → ``P_10``.
    MeasureError when it names no single measure (``P.5,10``, ``official``) or none at all."""
    if name == "num_q" or _printed_as_spec(name) is not None:
        return name
    specs = trec_eval_specs([name])
    if specs == ["num_q"]:  # NumQ: printed by trec_eval, computed by none of the families
        return "num_q"
    names = [printed for measure in parse_measures(specs) for printed in measure.names()]
    if len(names) != 1:
        raise MeasureError(f"{name!r} names {len(names)} measures ({', '.join(names[:5])}…); choose one")
    return names[0]


def split_measures(text: str) -> list[str]:
    """A comma-separated list of measure names (``map,P@10,nDCG(dcg='exp-log2')@10``), split at the
    commas outside parentheses, so that an ir_measures name's parameters stay whole."""
    names: list[str] = []
    current: list[str] = []
    depth = 0
    for character in text:
        depth += {"(": 1, ")": -1}.get(character, 0)
        if character == "," and depth <= 0:
            names.append("".join(current).strip())
            current = []
        else:
            current.append(character)
    names.append("".join(current).strip())
    return [name for name in names if name]


def measure_name_or_as_given(name: str) -> str:
    """``trec_eval_name(name)``, or ``name`` unchanged when it is no measure: for a caller that
    reports unknown names itself, with the list of those it has."""
    try:
        return trec_eval_name(name)
    except MeasureError:
        return name
