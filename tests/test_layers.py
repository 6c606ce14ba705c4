"""simlab's house (issue 35): each module lives in a layer and imports only its own layer
or those below — cli → analysis → players → games → mechanics → engine — and no two
modules import each other, however indirectly. Every import counts, a function's too;
only imports for type checking are left out (they never run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simlab._moved import MOVED

ROOT = Path(__file__).resolve().parent.parent / "simlab"
LAYERS = ("engine", "mechanics", "games", "players", "analysis", "cli")  # bottom to top


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int | None:
    """The layer's rank; None for the package's front door (``simlab``, ``__main__``,
    ``_moved``), which may import any layer."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The simlab modules ``path`` imports (``from simlab.x import y`` counts ``simlab.x.y``
    when that is a module, else ``simlab.x``)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("simlab"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("simlab"):
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    found.add(sub if sub in known else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(module)
    return {m for m in found if m in known}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    known = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, known) for p in paths}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def upward(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for mod, deps in graph.items():
        here = layer_of(mod)
        if here is None:
            continue
        for dep in deps:
            there = layer_of(dep)
            if there is None and dep != "simlab":
                bad.append(f"{mod} imports the front door {dep}")
            elif there is not None and there > here:
                bad.append(f"{mod} ({LAYERS[here]}) imports {dep} ({LAYERS[there]})")
    return sorted(bad)


def test_every_module_has_a_layer():
    graph = import_graph()
    homeless = [m for m in graph if layer_of(m) is None
                and m not in ("simlab", "simlab.__main__", "simlab._moved")]
    assert not homeless, f"modules outside every layer: {homeless}"


def test_imports_go_down_only():
    assert upward(import_graph()) == []


def test_no_import_circle():
    assert circles(import_graph()) == []


def test_every_layer_says_what_lives_there_and_what_it_may_import():
    for layer in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / layer / "__init__.py").read_text()))
        assert doc and "May import" in doc, layer


@pytest.mark.parametrize("graph, expect", [
    ({"simlab.engine.a": {"simlab.engine.b"}, "simlab.engine.b": {"simlab.engine.a"}},
     [["simlab.engine.a", "simlab.engine.b"]]),
    ({"simlab.engine.a": {"simlab.engine.b"}, "simlab.engine.b": set()}, []),
])
def test_circles_are_found(graph, expect):
    assert circles(graph) == expect


def test_upward_imports_are_found():
    graph = {"simlab.engine.runner": {"simlab.games"}, "simlab.games": {"simlab.engine.runner"},
             "simlab.cli.commands": {"simlab.engine.runner"}}
    assert upward(graph) == ["simlab.engine.runner (engine) imports simlab.games (games)"]


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_an_old_module_path_is_the_new_module_with_a_warning(old, new):
    import importlib
    import sys
    import warnings

    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
               for w in seen)


def test_old_names_of_the_former_single_modules_still_import():
    from simlab.analysis import how_often, run_to_precision
    from simlab.analysis.queries import how_often as moved
    from simlab.cli import main

    assert how_often is moved and callable(run_to_precision)
    assert main(["--version"]) == 0


def test_below_the_front_door_a_slug_is_refused_with_the_way_out():
    from simlab.engine.runner import plan

    with pytest.raises(TypeError, match="get_game"):
        plan("belote", 10)


def test_the_front_door_resolves_a_slug():
    import simlab

    assert simlab.simulate("sept", 3, seed=1).equals(simlab.simulate(simlab.get_game("sept"), 3,
                                                                     seed=1))
