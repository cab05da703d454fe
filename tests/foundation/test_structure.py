"""The house's shape, held by tests: each app's top level is a table of contents (Django's conventional
modules only, every feature in a package), every folder of Python files is a package, no module of the
product takes part in an import cycle (imports inside functions count) nor any feature package in a
cycle of features, and every module that says it
is pure is in the purity contract (pyproject.toml's import-linter contracts, run by test_static_checks)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.conftest import PROJECT_DIR

APPS = ("annotation", "evaluation")
PRODUCT = (*APPS, "cranfield")
# Django's conventional modules, and the app's own signals; everything else lives in a feature package.
CONVENTIONAL = {
    "__init__", "admin", "api", "apps", "forms", "models", "permissions", "serializers", "signals",
    "tasks", "urls", "views",
}  # fmt: skip
MOST_AT_THE_TOP = 12
PURITY_MARKS = ("(pure", "pure;", "pure python (no django)")


def product_modules() -> dict[str, Path]:
    modules = {}
    for package in PRODUCT:
        for path in (PROJECT_DIR / package).rglob("*.py"):
            if "migrations" in path.parts or "__pycache__" in path.parts:
                continue
            name = ".".join(path.relative_to(PROJECT_DIR).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def test_each_apps_top_level_holds_only_djangos_conventional_modules():
    for app in APPS:
        top = {path.stem for path in (PROJECT_DIR / app).glob("*.py")}
        assert top <= CONVENTIONAL, (
            f"{app}/ holds {sorted(top - CONVENTIONAL)}: move them into a feature package"
        )
        assert len(top) <= MOST_AT_THE_TOP


def test_every_folder_of_python_files_is_a_package():
    for package in PRODUCT:
        for folder in (PROJECT_DIR / package).rglob("*"):
            skipped = folder.name in {"__pycache__", "migrations", "static", "templates"}
            if folder.is_dir() and not skipped and any(folder.glob("*.py")):
                assert (folder / "__init__.py").exists(), f"{folder.relative_to(PROJECT_DIR)} is no package"


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Every import of every module, at any depth of the file, resolved to the product's modules."""

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([base] if base else [])])
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                found = resolve(target)
                if found and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_of_the_product_takes_part_in_an_import_cycle():
    assert cycles(import_graph(product_modules())) == []


def feature_of(module: str) -> str:
    """The feature a module belongs to: its app's package (``evaluation.scoring``), the app's module
    itself at the top (``annotation.models``), or the command line."""
    parts = module.split(".")
    return ".".join(parts[:2])


def feature_graph(modules: dict[str, set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, imported in modules.items():
        source = feature_of(name)
        graph.setdefault(source, set()).update(
            feature_of(target) for target in imported if feature_of(target) != source
        )
    return graph


def test_no_feature_package_takes_part_in_a_cycle_of_features():
    """Control flows down between folders too, not only between modules: two features that import
    each other (judging and adjudication did, through the task facts cache) are one feature or
    have something that belongs below both."""
    assert cycles(feature_graph(import_graph(product_modules()))) == []


def test_the_feature_graph_sees_a_cycle_through_two_modules_that_are_not_one():
    modules = {"app.a.x": {"app.b.y"}, "app.b.y": set(), "app.b.z": {"app.a.w"}, "app.a.w": set()}
    assert cycles(feature_graph(modules)) == [["app.a", "app.b"]]


def test_the_cycle_finder_finds_a_planted_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_apps_never_import_the_command_line():
    graph = import_graph(product_modules())
    for name, imported in graph.items():
        if name.split(".")[0] in APPS:
            assert not {target for target in imported if target.startswith("cranfield.cli")}, name


def purity_contract() -> list[str]:
    config = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    pure = next(contract for contract in contracts if contract["name"].startswith("the pure packages"))
    assert {"django", "rest_framework", "celery"} <= set(pure["forbidden_modules"])
    return pure["source_modules"]


def test_every_module_that_says_it_is_pure_is_in_the_purity_contract():
    covered = purity_contract()
    for name, path in product_modules().items():
        docstring = (ast.get_docstring(ast.parse(path.read_text())) or "").split("\n\n")[0].lower()
        if any(mark in docstring for mark in PURITY_MARKS):
            assert any(name == source or name.startswith(source + ".") for source in covered), (
                f"{name} says it is pure but no import-linter contract checks it: move it into a pure package"
            )
