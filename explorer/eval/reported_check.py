"""Our figures against those the zoo's sources report (``explorer.models.zoo``, ``docs/zoo.md``): what a check needs
before it scores (each model's weights, the model hub where they must come from it), and each model's figure on
each benchmark beside the reported one, agreeing within a tolerance in points.

The sources' columns are read as they are computed: SugarCrepe's the mean of its seven categories' accuracies (the
OpenAI ViT-B/32 row's 73.0 is the mean of the SugarCrepe paper's seven), Winoground's the group score of all 400
items. Reported figures are of the plain cosine of the whole picture, so only the ``global`` method is checked."""

from __future__ import annotations

from typing import Callable, Sequence

from explorer.models import zoo

METHOD = "global"  # the plain cosine: the scoring every reported figure uses
FIELDS = {"sugarcrepe": "sugarcrepe", "winoground": "winoground"}  # benchmark -> the zoo entry's reported figure
# points: the largest spread of one model's figure across harness (ours, open_clip's alone), resize (bicubic,
# bilinear) and precision (fp32, bf16), measured on SugarCrepe and Winoground fixtures of a validation split
# (scripts/reported_tolerance.py, docs/results/zoo/tolerance.json), rounded up to half a point
TOLERANCE = 0.5


def reported(model: str, benchmark: str) -> float | None:
    """The zoo's reported figure of ``model`` on ``benchmark``, None where its source has none."""
    entry = zoo.ZOO.get(model)
    return getattr(entry, FIELDS[benchmark]) if entry is not None and benchmark in FIELDS else None


def needs(models: Sequence[str], benchmarks: Sequence[str], methods: Sequence[str],
          hub_reachable: Callable[[], bool]) -> list[str]:
    """What the check lacks, one sentence each (nothing: it can run): a benchmark and a model with a reported
    figure, the global method, each such model's weights here or the model hub to fetch them."""
    said = []
    checked = [b for b in benchmarks if b in FIELDS]
    if not checked:
        said.append(f"no reported figures for {', '.join(benchmarks)}: the zoo's sources report "
                    f"{' and '.join(FIELDS)} (--benchmark or --benchmarks)")
    with_figures = [m for m in models if any(reported(m, b) is not None for b in checked)]
    if checked and not with_figures:
        said.append(f"none of {', '.join(models)} has a reported figure on {', '.join(checked)}: name zoo entries "
                    f"that have ({', '.join(e.name for e in zoo.ENTRIES if e.source)})")
    if METHOD not in methods:
        said.append(f"the reported figures are of the plain cosine: add '{METHOD}' to --methods")
    for model in with_figures:
        mark, why = zoo.availability(model)
        if mark == zoo.CANNOT:
            said.append(f"{model} cannot load here: {why}")
        elif mark == zoo.HUB and not hub_reachable():
            said.append(f"{model} needs the model hub, which cannot be reached from here: {why} (run where "
                        f"huggingface.co can be reached, or put its weights in this machine's hub cache)")
    return said


def ours(results: dict, benchmark: str) -> tuple[float | None, int | None]:
    """Our figure as the source computes it, from one model's results on ``benchmark`` (``accuracy.evaluate``'s
    shape), and the items behind it; None where the global method has no cell."""
    cells = results.get(METHOD, {})
    if benchmark == "sugarcrepe":
        kinds = [c for k, c in cells.items() if k != "all" and "accuracy" in c]
        if not kinds:
            return None, None
        return round(sum(c["accuracy"] for c in kinds) / len(kinds), 2), sum(c.get("n", 0) for c in kinds)
    cell = cells.get("all", {})
    return cell.get("group"), cell.get("n")


def check_rows(report: dict, tolerance: float = TOLERANCE) -> list[dict]:
    """One row per model and benchmark with a reported figure: ours, the reported one, their difference in points
    and whether it is within ``tolerance``; ``agrees`` None where we have no figure."""
    rows = []
    for model, by_benchmark in report["results"].items():
        for benchmark, results in by_benchmark.items():
            theirs = reported(model, benchmark)
            if theirs is None:
                continue
            value, n = ours(results, benchmark)
            diff = None if value is None else round(value - theirs, 2)
            rows.append({"model": model, "benchmark": benchmark, "ours": value, "reported": theirs, "diff": diff,
                         "n": n, "agrees": None if diff is None else abs(diff) <= tolerance,
                         "source": zoo.ZOO[model].source})
    return rows


def verdict(rows: Sequence[dict], tolerance: float = TOLERANCE) -> str:
    """The check in words: each row, then whether every figure agrees; the rows that do not named."""
    lines = [f"{r['model']} on {r['benchmark']}: ours {r['ours']}, reported {r['reported']} ({r['source']}), "
             f"difference {r['diff']} points" for r in rows]
    off = [f"{r['model']} on {r['benchmark']}" for r in rows if not r["agrees"]]
    tail = (f"every figure within {tolerance:g} points of the reported one" if rows and not off else
            f"not within {tolerance:g} points: {', '.join(off)}" if off else "no figure to check")
    return "\n".join([*lines, tail])
