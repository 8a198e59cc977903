"""A method lives in its folder: its name appears in the code (not the comments or docstrings) of at most 3 files
outside ``explorer/methods/<name>/``, its training code (``explorer/training/``) and the command line; no method names
a picture by a "module:function" string, and only the registry's discovery imports a module by name."""

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_AT_MOST = 3
NAMES = {"sgi": r"sgi", "tflocal": r"tflocal", "powerclip": r"powerclip|powerset"}  # a folder -> the words that name it
NOT_COUNTED = ("explorer/training/", "explorer/commands/", "explorer/cli.py")


def docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring of a module, class or function starts (line, column)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                     str):
                out.add((first.lineno, first.col_offset))
    return out


def code_words(source: str) -> list[str]:
    """Every name and string literal of ``source``, its docstrings and comments left out."""
    skip = docstrings(ast.parse(source))
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type in (tokenize.NAME, tokenize.STRING) and t.start not in skip]


def files_naming(folder: str, root: Path = ROOT) -> list[str]:
    """The files of explorer/ (and app.py) outside ``folder``'s method folder, its training code and the command line
    whose code names that method."""
    pattern = re.compile(NAMES[folder], re.IGNORECASE)
    out = []
    for path in sorted([*(root / "explorer").rglob("*.py"), root / "app.py"]):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((*NOT_COUNTED, f"explorer/methods/{folder}/")):
            continue
        if any(pattern.search(word) for word in code_words(path.read_text())):
            out.append(rel)
    return out


def test_each_method_is_named_in_at_most_3_files_outside_its_folder():
    found = {folder: files_naming(folder) for folder in NAMES}
    assert all(len(files) <= OUTSIDE_AT_MOST for files in found.values()), found


def test_the_count_sees_code_and_not_comments(tmp_path):
    (tmp_path / "explorer" / "methods" / "sgi").mkdir(parents=True)
    (tmp_path / "app.py").write_text('"""SGI in a docstring."""\n# sgi in a comment\nx = 1\n')
    (tmp_path / "explorer" / "methods" / "sgi" / "method.py").write_text('NAME = "sgi"\n')
    (tmp_path / "explorer" / "a.py").write_text('def f():\n    """SGI."""\n    return "SGI\'s crop"\n')
    (tmp_path / "explorer" / "b.py").write_text("from explorer.methods.sgi import pictures\n")
    assert files_naming("sgi", tmp_path) == ["explorer/a.py", "explorer/b.py"]


def test_no_picture_is_named_by_a_module_function_string():
    path_string = re.compile(r"""^[rbuf]*['"]explorer\.[\w.]+:\w+['"]$""")
    found = [f"{p.relative_to(ROOT)}: {w}" for p in sorted((ROOT / "explorer").rglob("*.py"))
             for w in code_words(p.read_text()) if path_string.match(w)]
    assert found == []
    importing = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "explorer").rglob("*.py"))
                 if "import_module" in code_words(p.read_text())]
    assert importing == ["explorer/methods/__init__.py"]  # the registry's discovery, and a method's tab
