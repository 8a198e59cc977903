"""MMVP-VLM (Tong et al., CVPR 2024): 135 pairs of images that CLIP embeds alike but that differ visibly, 15 pairs of
each of nine visual patterns, a statement each. Published as the model hub's ``MMVP/MMVP_VLM``: ``Questions.csv``
(``qid, type, statement``, the two statements of a pair on consecutive rows) and the pictures
``<folder>/<type>/<qid>.jpg``, the folder named ``MLLM_VLM Images`` as the authors' ``scripts/evaluate_vlm.py``
opens it, or ``MMVP_VLM_Images`` as their README names it (both are found). Scored as that script: each statement
read as ``"a photo of " + statement``, told between the pair's two pictures (its own: the first picture for an odd
qid, else the second), and a pair counts only when both statements pick their own picture: Winoground's image score.
The script names each run of 15 pairs by its pattern in order, the nine names of the paper ("Orientation and
Direction", ..., "Texts", "Viewpoint and Perspective"), not the file's shorter ``type`` names (which name the picture
folders); here each run of one ``type`` is named the same way: the file's n-th type by the script's n-th pattern
(``scripts/evaluate_vlm.py`` at tsb0601/MMVP 7635005)."""

from __future__ import annotations

import csv
from pathlib import Path

from explorer.core.data_roots import inside
from explorer.core.items import Item
from explorer.eval.dataset_loaders import DatasetError, ImageRef, _named, per_category
from explorer.eval.table_files import Budget, counted, lines_ahead

QUESTIONS = "Questions.csv"
FOLDERS = ("MLLM_VLM Images", "MMVP_VLM_Images")  # the script's folder name, then the README's
PROMPT = "a photo of "  # the script's text before each statement
PATTERNS = ("Orientation and Direction", "Presence of Specific Features", "State and Condition", "Quantity and Count",
            "Positional and Relational Context", "Color and Appearance", "Structural Characteristics", "Texts",
            "Viewpoint and Perspective")  # the script's ``categories``, in the order of the file's runs


def _folder(root: Path, images: Path | None) -> Path:
    if images is not None:
        return Path(images)
    for name in FOLDERS:
        if (root / name).is_dir():
            return root / name
    raise DatasetError(f"MMVP-VLM: no image folder in {root} (expected {' or '.join(repr(f) for f in FOLDERS)})")


def _rows(path: Path) -> list[tuple[int, int, str, str]]:
    """(line, qid, type, statement) of each data row, read by position as the authors' script reads them."""
    rows, budget = [], Budget(path.name)
    lines_ahead(path, budget, header=1)
    with inside(path).open(newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        next(reader, None)  # the header
        for row in counted(reader, budget, 3):
            line = reader.line_num
            if not row:
                continue
            if len(row) != 3:
                raise DatasetError(f"{path.name}: line {line}: expected qid, type, statement; got {len(row)} fields")
            try:
                qid = int(row[0])
            except ValueError:
                raise DatasetError(f"{path.name}: line {line}: field 'qid' should be a number, got {row[0]!r}") from None
            rows.append((line, qid, row[1], row[2]))
    return rows


def load_mmvp(data: Path, images: Path | None = None, limit: int | None = None) -> list[Item]:
    """MMVP-VLM's pairs: ``data`` is the folder with ``Questions.csv`` (or that file), pictures under ``images`` or
    the folder's image folder; a pair's pictures both in its first statement's pattern folder, as the script opens
    them."""
    data = Path(data)
    questions = data if data.is_file() else data / QUESTIONS
    if not questions.is_file():
        raise DatasetError(f"MMVP-VLM: no {QUESTIONS} in {data}")
    folder = _folder(questions.parent, images)
    rows = _rows(questions)
    types = list(dict.fromkeys(kind for _, _, kind, _ in rows[::2]))
    if len(types) > len(PATTERNS):
        raise DatasetError(f"{questions.name}: {len(types)} types of statement; MMVP-VLM has {len(PATTERNS)} patterns")
    items = []
    for (line, q1, kind, s1), (_, q2, _, s2) in zip(rows[::2], rows[1::2]):  # an odd last row is left, as there
        where = f"{questions.name}: line {line}"
        own = (0 if q1 % 2 else 1, 0 if q2 % 2 else 1)  # each statement's picture, as the script's gt1, gt2
        if own[0] == own[1]:
            raise DatasetError(f"{where}: qids {q1} and {q2} name the same picture as their own (one must be odd)")
        refs = tuple(ImageRef(where, path=_named(folder, f"{kind}/{q}.jpg", where)) for q in (q1, q2))
        right = (0, 1) if own == (0, 1) else (1, 0)  # each picture's own statement
        items.append(Item(PATTERNS[types.index(kind)], refs, (PROMPT + s1, PROMPT + s2), right=right,
                          id=f"{q1}-{q2}"))
    if not items:
        raise DatasetError(f"{questions.name}: no pair of statements")
    return per_category(items, limit)
