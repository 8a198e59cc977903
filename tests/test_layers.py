"""The code's shape: imports go one way (no cycle), gradio only in ui/, the CLI and app at the top, short modules."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
MAX_LINES = 400
PAGE_ENTRIES = {"app", "explorer.page"}  # the page's entry point (app.py runs explorer/page.py): it builds the UI


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


def test_layers_import_downwards():
    graph, found = project_graph(), imports()
    for m, deps in graph.items():
        if not m.startswith("explorer.ui"):
            assert not any(n.split(".")[0] == "gradio" for n in found[m]), f"{m} imports gradio (only ui/ may)"
            assert m in PAGE_ENTRIES or not any(d.startswith("explorer.ui") for d in deps), f"{m} imports the UI"
        assert m == "explorer.__main__" or not deps & {"explorer.cli", "app"}, f"{m} imports the command line"
        if not (m.startswith("explorer.training") or m == "explorer.cli"):
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


def test_imports_follow_the_documented_layers():
    layers = documented_layers()
    assert {"explorer.engine", "explorer.encoders", "explorer.world", "explorer.ui"} <= layers.keys()

    def rank(module: str) -> int | None:
        found = [p for p in layers if module == p or module.startswith(p + ".")]
        return layers[max(found, key=len)] if found else None

    for m, deps in project_graph().items():
        if m.startswith("explorer.training") or rank(m) is None:
            continue  # training uses the layers as a library; its own rule is in test_layers_import_downwards
        upward = [d for d in deps if (r := rank(d)) is not None and r < rank(m)]
        assert not upward, f"{m} (layer {rank(m)}) imports from a higher layer: {upward}"
