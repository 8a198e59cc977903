"""The code's shape: imports go one way (no cycle), gradio only in ui/, the CLI and app at the top, short modules."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
MAX_LINES = 400
PAGE_ENTRIES = {"app", "explorer.page"}  # the page's entry point (app.py runs explorer/page.py): it builds the UI


def on_the_page(module: str) -> bool:
    """Whether ``module`` is of the page's layer, explorer/ui/ (a method's tab is declared in its folder, and built
    there)."""
    return module == "explorer.ui" or module.startswith("explorer.ui.")


def gradio_outside_the_page(found: dict[str, set[str]]) -> list[str]:
    """The modules of ``found`` (each module -> the names it imports) outside explorer/ui/ that import gradio (or
    its client)."""
    return sorted(m for m, names in found.items()
                  if not on_the_page(m) and any(n.split(".")[0] in ("gradio", "gradio_client") for n in names))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Each module of explorer/ (and app.py) -> every name it imports, at the top or inside a function."""
    out = {}
    for path in [*sorted((ROOT / "explorer").rglob("*.py")), ROOT / "app.py"]:
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        out[module_name(path)] = names
    return out


def project_graph() -> dict[str, set[str]]:
    found = imports()
    return {m: {n for n in names if n in found and n != m} for m, names in found.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                found.append(path[path.index(d):] + [m, d] if d in path else [m, d])
            elif d not in state:
                visit(d, path + [m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return found


def test_no_import_cycle():
    assert cycles(project_graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) and not cycles({"a": {"b"}, "b": set()})


def test_gradio_is_only_in_the_page():
    assert gradio_outside_the_page(imports()) == []


def test_the_gradio_finder_finds_one_anywhere_else():
    found = {"explorer.ui.app": {"gradio"}, "explorer.methods.sgi.tab": {"gradio.components"},
             "explorer.page": {"gradio"}, "explorer.uix": {"gradio_client"}, "explorer.engine": {"numpy"}}
    assert gradio_outside_the_page(found) == ["explorer.methods.sgi.tab", "explorer.page", "explorer.uix"]


def test_layers_import_downwards():
    graph = project_graph()
    for m, deps in graph.items():
        if not on_the_page(m):
            assert m in PAGE_ENTRIES or not any(on_the_page(d) for d in deps), f"{m} imports the UI"
        assert m == "explorer.__main__" or not deps & {"explorer.cli", "app"}, f"{m} imports the command line"
        if not (m.startswith(("explorer.training", "explorer.commands")) or m == "explorer.cli"):
            assert not any(d.startswith("explorer.training") for d in deps), f"{m} imports training"


def test_modules_are_short():
    long = {module_name(p): n for p in (ROOT / "explorer").rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def documented_layers() -> dict[str, int]:
    """Each module prefix in docs/ARCHITECTURE.md's layer table, with its row (0 at the top)."""
    rows = [line for line in (ROOT / "docs" / "ARCHITECTURE.md").read_text().splitlines()
            if line.startswith("| ") and "`" in line.split("|")[2]]
    out = {}
    for rank, row in enumerate(rows):
        for path in re.findall(r"`([\w/.]+)`", row.split("|")[2]):
            out[path.removesuffix(".py").removesuffix("/").replace("/", ".")] = rank
    return out


def upward_imports(graph: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """Each import in ``graph`` from a module to one in a higher row of ``layers`` (row 0 at the top)."""

    def rank(module: str) -> int | None:
        found = [p for p in layers if module == p or module.startswith(p + ".")]
        return layers[max(found, key=len)] if found else None

    return [f"{m} (layer {rank(m)}) imports {d} (layer {rank(d)})" for m, deps in sorted(graph.items())
            if rank(m) is not None for d in sorted(deps) if (r := rank(d)) is not None and r < rank(m)]


def test_imports_follow_the_documented_layers():
    layers = documented_layers()
    packages = {f"explorer.{p.parent.name}" for p in (ROOT / "explorer").glob("*/__init__.py")}
    assert packages <= layers.keys(), "every package of explorer/ is a layer of the table, or in one"
    assert upward_imports(project_graph(), layers) == []


def test_the_tree_shows_the_layers_with_a_few_doors_at_the_top():
    """The packages are the layers: a handful of modules directly under explorer/, everything else in a package."""
    top = sorted(p.name for p in (ROOT / "explorer").glob("*.py"))
    assert len(top) <= 8, top


def test_training_sits_where_its_imports_put_it():
    """training/ is a layer of its own: above everything it imports (the figures at most), below the engine, and
    the check fails on an import across it either way."""
    layers = documented_layers()
    training, deps = layers["explorer.training"], {d for m, ds in project_graph().items()
                                                    if m.startswith("explorer.training") for d in ds}
    assert layers["explorer.engine"] < training < layers["explorer.figures"]
    assert "explorer.figures.viz" in deps  # the sweep's plots: the highest layer it needs, right below it
    assert upward_imports({"explorer.training.sweep": {"explorer.engine"}}, layers)  # training importing upwards
    assert upward_imports({"explorer.eval.accuracy": {"explorer.training.card"}}, layers)  # a lower layer importing it
    assert not upward_imports({"explorer.training.sweep": {"explorer.figures.viz"}}, layers)


def test_a_methods_tab_is_of_its_methods_layer():
    """A method's tab is a declaration of its folder: it imports neither the page nor the engine above it."""
    layers = {"explorer.ui": 0, "explorer.engine": 1, "explorer.methods": 2}
    assert upward_imports({"explorer.methods.sgi.tab": {"explorer.ui.guard"}}, layers)
    assert upward_imports({"explorer.methods.sgi.tab": {"explorer.engine"}}, layers)
    assert not on_the_page("explorer.methods.tflocal.tab") and not on_the_page("explorer.uix")
