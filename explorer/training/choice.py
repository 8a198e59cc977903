"""Choosing one model among runs on the validation split, and the model card's words for how it was chosen.

A run is read from its ``eval --benchmark world-single`` report on ``val`` splits (never on ``test``): the global
top-1 score and its bootstrap interval, on one split or the lowest over several (a recipe must hold on every one). The
rule is the highest score; with an incumbent (the model already shipped), it stays unless another run's whole interval
lies above its score, so that a seed's noise does not replace it.
"""

from __future__ import annotations

from typing import Sequence

VAL_SPLIT = "val-heldout"
METHOD, KIND, METRIC = "global", "single", "top1"


def _splits(split: str | Sequence[str]) -> tuple[str, ...]:
    return (split,) if isinstance(split, str) else tuple(split)


def candidates(reports: dict[str, dict], split: str | Sequence[str] = VAL_SPLIT) -> list[dict]:
    """Each named report's score on ``split``, or its lowest over several splits: ``{"name", "score", "ci", "n"}``
    and, over several, ``"split"`` (where the lowest was read), in the order given."""
    out = []
    for name, report in reports.items():
        if report.get("benchmark") != "world-single":
            raise ValueError(f"{name}: a world-single report is needed, not {report.get('benchmark')!r}")
        cells = report["results"].get(METHOD, {})
        missing = [s for s in _splits(split) if s not in cells]
        if missing:
            raise ValueError(f"{name}: no {', '.join(map(repr, missing))} in the report (it has "
                             f"{', '.join(cells) or 'nothing'}); run eval with --split {','.join(_splits(split))}")
        worst = min(_splits(split), key=lambda s: cells[s][KIND][METRIC])
        cell = cells[worst][KIND]
        run = {"name": name, "score": cell[METRIC], "ci": cell["ci"][METRIC], "n": cell["n"]}
        out.append({**run, "split": worst} if len(_splits(split)) > 1 else run)
    return out


def choose(runs: list[dict], incumbent: str | None = None) -> str:
    """The name of the run the rule picks (see the module's docstring)."""
    best = max(runs, key=lambda r: r["score"])
    if incumbent is None:
        return best["name"]
    kept = next((r for r in runs if r["name"] == incumbent), None)
    if kept is None:
        raise ValueError(f"the incumbent {incumbent!r} is not among {', '.join(r['name'] for r in runs)}")
    above = [r for r in runs if r["ci"][0] > kept["score"]]
    return max(above, key=lambda r: r["score"])["name"] if above else incumbent


def rule(incumbent: str | None, split: str | Sequence[str] = VAL_SPLIT) -> str:
    """The rule in words."""
    splits = _splits(split)
    base = (f"the highest world-single top-1 (global cosine) on `{splits[0]}`" if len(splits) == 1 else
            f"the highest lowest world-single top-1 (global cosine) over {', '.join(f'`{s}`' for s in splits)}")
    if incumbent is None:
        return base
    return (f"{base}, except that `{incumbent}` (the model already shipped) stays unless another run's whole 95% "
            f"interval lies above its score")


def choice_record(runs: list[dict], reports: dict[str, str], incumbent: str | None, varied: str, note: str = "",
                  split: str | Sequence[str] = VAL_SPLIT) -> dict:
    """What a training record keeps of a choice: the runs, the rule, the pick, where the figures come from and a
    note on what was chosen otherwise (e.g. the recipe, before there was a validation split)."""
    split = split if isinstance(split, str) or len(split) > 1 else split[0]
    return {"split": split, "varied": varied, "rule": rule(incumbent, split), "runs": runs,
            "chosen": choose(runs, incumbent), "reports": reports, "note": note}


def choice_section(record: dict) -> str:
    """The model card's section on how this model was chosen (``record``: the checkpoint's training record)."""
    chosen = record.get("chosen")
    if chosen is None:
        return ("## How this model was chosen\n"
                f"Not chosen among runs: the one run of its recipe (seed {record['config']['seed']}); no "
                "validation split was read to pick it.\n")
    several = not isinstance(chosen["split"], str)
    lines = [f"| {r['name']}{' (this model)' if r['name'] == chosen['chosen'] else ''} | {r['score']:.1f} "
             f"[{r['ci'][0]:.1f}, {r['ci'][1]:.1f}]{_where(r) if several else ''} |" for r in chosen["runs"]]
    column = "lowest top-1 (its split)" if several else f"{chosen['split']} top-1"
    sources = ", ".join(f"`{path}`" for path in chosen["reports"].values())
    return (f"## How this model was chosen\n"
            f"Among {len(chosen['runs'])} runs that differ only in {chosen['varied']}, by {chosen['rule']} "
            f"({chosen['runs'][0]['n']} items; 95% bootstrap interval over items), never by the test splits this card "
            f"reports. From {sources}.{' ' + chosen['note'] if chosen.get('note') else ''}\n\n"
            f"| run | {column} |\n|---|---|\n" + "\n".join(lines) + "\n")


def _where(run: dict) -> str:
    return f" ({run['split']})"
