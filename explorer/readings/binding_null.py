"""A null for every binding reading: what a bag of concepts with the model's own noise scores.

A null table keeps a model's additive structure, each scene's embedding fitted as a mean plus its colours' and its
shapes' effects (least squares on the concept counts: on the full grid, the concept means), and replaces the rest
by noise: Gaussian, with the covariance of the model's own residuals, scaled so that the two sides of a swap (which
the additive part makes identical) are on average as alike as the model's are (its measured swap cosine; the swap
renders get a scale of their own, matched to theirs). Nothing in a null binds a colour to its shape, so what a
reading finds there is chance. Each reading is measured on ``draws`` null tables in the same run by the same code
(the probes at the widths the model's run chose) and reported beside its value: the null's mean, its 2.5 to 97.5%
range, the excess of the value over the mean and a one-sided p = (1 + draws at or above the value) / (1 + draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core import cancel
from explorer.readings.binding import (
    PROBES, SceneTable, mds_points, probe_outcomes, readings_many, world_tables,
)
from explorer.readings.binding_swaps import SwapTable, swap_cosine, swap_renders, table_swaps
from explorer.core.intervals import percent_intervals

DRAWS = 20
RENDERS = 8  # new drawings of each swap pair for the swaps told apart (docs/binding.md: the interval they give)
MAX_SCALE = 1024.0  # noise this many times the residual's drowns the additive part
ALPHA = 0.05  # a value with p at most this is read "above chance"
METHOD = ("additive fit (mean + colour + shape effects, least squares) plus Gaussian noise with the model's residual "
          "covariance, scaled to the model's mean swap cosine; one-sided p = (1 + draws >= value) / (1 + draws)")


def design(pairs, n_colors: int, n_shapes: int) -> np.ndarray:
    """(N, 1 + colours + shapes): a constant and each scene's colour and shape counts."""
    x = np.zeros((len(pairs), 1 + n_colors + n_shapes))
    x[:, 0] = 1
    for i, scene in enumerate(pairs):
        for c, s in scene:
            x[i, 1 + c] += 1
            x[i, 1 + n_colors + s] += 1
    return x


def additive_fit(table: SceneTable) -> tuple[np.ndarray, np.ndarray]:
    """The additive model's coefficients (1 + colours + shapes, D) and the table's residual (N, D)."""
    x = design(table.pairs, table.n_colors, table.n_shapes)
    coef = np.linalg.lstsq(x, table.embeddings, rcond=None)[0]
    return coef, table.embeddings - x @ coef


def noise(residual: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, D) Gaussian rows with the residual's covariance (``residual.T @ residual / N``)."""
    return rng.standard_normal((n, len(residual))) @ residual / np.sqrt(len(residual))


def matched_scale(base: np.ndarray, residual: np.ndarray, target: float, rng: np.random.Generator,
                  probes: int = 8) -> float:
    """The noise scale at which swap sides ``base`` (M, D) plus independent noise have mean cosine ``target``.

    The same ``probes`` noise draws serve every scale tried, so the mean cosine falls with the scale and a
    bisection finds it; a target at or above the noiseless cosine (1: swaps identical) gives 0, one below what
    noise alone reaches (about 0: independent noise cannot make swaps opposite) gives ``MAX_SCALE``.
    """
    z = [(noise(residual, len(base), rng), noise(residual, len(base), rng)) for _ in range(probes)]

    def cosine(scale: float) -> float:
        return float(np.mean([swap_cosine(np.stack([base + scale * a, base + scale * b], axis=-2)) for a, b in z]))

    if target >= cosine(0.0) - 1e-9:
        return 0.0
    low, high = 0.0, 1.0
    if cosine(MAX_SCALE) > target:
        return MAX_SCALE
    while cosine(high) > target:
        low, high = high, 2 * high
    for _ in range(50):
        mid = (low + high) / 2
        low, high = (mid, high) if cosine(mid) > target else (low, mid)
    return (low + high) / 2


def null_draws(table: SceneTable, swaps: SwapTable | None, draws: int = DRAWS, seed: int = 0
               ) -> tuple[list[SceneTable], list[SwapTable], dict]:
    """``draws`` null scene tables and their swap tables (``swaps`` None: the table's own scenes), and how they
    were drawn (each noise scale and the swap cosine it matches)."""
    rng = np.random.default_rng(seed)
    own = table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes)
    swaps = swaps or own
    coef, residual = additive_fit(table)
    fitted = table.embeddings - residual
    target = swap_cosine(own.embeddings)
    scale = matched_scale(fitted[own.rows[:, 0]], residual, target, rng)
    info = {"scale": round(scale, 4), "swap_cosine": round(target, 4)}  # what each scale matches; the draws' own
    # swap cosine is the ``swap.cosine`` figure's null
    if swaps.rows is None:
        sides = design([side for pair in swaps.pairs for side in pair], table.n_colors, table.n_shapes) @ coef
        base = np.repeat(sides.reshape(len(swaps.pairs), 1, 2, -1), swaps.embeddings.shape[1], axis=1)
        render_target = swap_cosine(swaps.embeddings)
        render_scale = matched_scale(base[:, :, 0].reshape(-1, base.shape[-1]), residual, render_target, rng)
        info |= {"render_scale": round(render_scale, 4), "render_swap_cosine": round(render_target, 4)}
    tables, swap_tables = [], []
    for _ in range(draws):
        emb = fitted + scale * noise(residual, len(fitted), rng)
        tables.append(SceneTable(table.pairs, emb, table.n_colors, table.n_shapes))
        if swaps.rows is not None:
            swap_tables.append(SwapTable(swaps.pairs, emb[swaps.rows][:, None], swaps.rows))
        else:
            shaped = render_scale * noise(residual, base[..., 0].size, rng).reshape(base.shape)
            swap_tables.append(SwapTable(swaps.pairs, base + shaped))
    return tables, swap_tables, info


def beside(value: float, null_values, interval: list[float] | None = None) -> dict:
    """A figure with its null: the null's mean, range, draws and p, the excess over the mean and its reading.

    The value and the draws are rounded to 2 decimals first, as they are recorded, so that p can be recomputed from
    the record (a draw equal to the value counts against it)."""
    v, value = np.round(np.asarray(null_values, dtype=float), 2), round(value, 2)  # as recorded: p reads from them
    p = (1 + int((v >= value - 1e-9).sum())) / (1 + len(v))
    low, high = np.percentile(v, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
    reading = "above chance" if p <= ALPHA else "below chance" if value < low else "at chance"
    entry = {"value": round(value, 2)}
    if interval is not None:
        entry["interval"] = interval
    return entry | {"null": {"mean": round(float(v.mean()), 2), "range": [round(float(low), 2), round(float(high), 2)],
                             "p": round(p, 4), "draws": len(v), "values": [float(x) for x in v]},
                    "excess": round(value - float(v.mean()), 2), "reading": reading}


def readings_with_null(table: SceneTable, draws: int = DRAWS, seed: int = 0) -> dict[str, dict]:
    """``binding.readings`` of a table, each with its null (``beside``)."""
    tables, _, _ = null_draws(table, None, draws, seed)
    model, *nulls = readings_many([table, *tables])
    return {name: beside(value, [n[name] for n in nulls]) for name, value in model.items()}


def measured(table: SceneTable, swaps: SwapTable | None = None, draws: int = DRAWS, seed: int = 0,
             widths: tuple[int, ...] = (16, 64, 256)) -> tuple[dict[str, dict], dict]:
    """Every reading and probe figure of a table with its null, and how the null was drawn.

    Retrieval and swaps told apart carry their 95% interval (test scenes, or swap pairs, resampled).
    """
    swaps = swaps or table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes)
    tables, null_swaps, info = null_draws(table, swaps, draws, seed)
    cancel.check()
    model, *nulls = readings_many([table, *tables])
    out = {name: beside(value, [n[name] for n in nulls]) for name, value in model.items()}
    (probes,), outcomes = probe_outcomes([table], [swaps], widths, seed)
    chosen = {p: probes[f"{p}.width"] for p in PROBES}
    null_probes, _ = probe_outcomes(tables, null_swaps, chosen, seed)
    for name, value in probes.items():
        hits = outcomes.get(name)
        interval = None if hits is None else percent_intervals(hits[0])[0]
        out[f"{name}.heldout_objects"] = {"value": value} if name.endswith(".width") else \
            beside(value, [n[name] for n in null_probes], interval)
    info |= {"draws": draws, "pairs": len(swaps.pairs), "renders": int(swaps.embeddings.shape[1])}
    return out, info


def figures(encoder, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
            widths: tuple[int, ...] = (16, 64, 256), progress=lambda it: it) -> tuple[dict[str, dict], dict]:
    """All the analyzes of a model's image and caption embeddings, each with its null: figures named
    ``READING.KIND`` (percent; ``swap.cosine`` a cosine), and how each kind's null was drawn. ``renders``: how
    often each swap pair is drawn anew for the swaps told apart (0: the scene table's own scenes, once each)."""
    tables = world_tables(encoder, n_colors, n_shapes)
    swaps = swap_renders(encoder, n_colors, n_shapes, renders) if renders else {kind: None for kind in tables}
    out, nulls = {}, {}
    for kind, table in progress(list(tables.items())):
        found, nulls[kind] = measured(table, swaps[kind], draws, widths=widths)
        out |= {f"{name}.{kind}": entry for name, entry in found.items()}
    return out, nulls


def report(encoder, command: str, n_colors: int = 8, n_shapes: int = 3, draws: int = DRAWS, renders: int = RENDERS,
           widths: tuple[int, ...] = (16, 64, 256)) -> dict:
    """What ``binding --json`` writes: the model, the command, every figure with its null, how the nulls were
    drawn, and the seconds it took."""
    import time

    from tqdm import tqdm

    start = time.perf_counter()
    found, nulls = figures(encoder, n_colors, n_shapes, draws, renders, widths,
                           progress=lambda it: tqdm(it, desc="binding", unit="modality"))
    return {"model": encoder.label, "command": command, "figures": found, "null": {"method": METHOD, **nulls},
            "seconds": round(time.perf_counter() - start, 1)}


ROWS = {"r2.objects": "R2 scene ~ sum of its two objects", "r2.concepts": "R2 object ~ colour + shape",
        "edit.top1": "counterfactual edit, top-1", "probe.concepts": "linear probe: colours and shapes present",
        "probe.objects": "linear probe: objects present",
        "mlp.heldout_objects": "slot MLP: retrieval among test scenes",
        "product.heldout_objects": "product probe: retrieval", "additive.heldout_objects": "additive probe: retrieval",
        "swap.mlp.heldout_objects": "swaps told apart: slot MLP",
        "swap.product.heldout_objects": "swaps told apart: product probe",
        "swap.additive.heldout_objects": "swaps told apart: additive probe",
        "swap.cosine.heldout_objects": "swap cosine (the renders' own embeddings)"}


def markdown(report: dict) -> str:
    """A ``report``'s figures as docs/binding.md shows them: each kind's value [interval] beside its null."""
    def cell(name: str) -> str:
        e, digits = report["figures"][name], 2 if name.startswith("swap.cosine") else 1
        interval = f" [{e['interval'][0]:.{digits}f}, {e['interval'][1]:.{digits}f}]" if "interval" in e else ""
        null = e["null"]
        return (f"{e['value']:.{digits}f}{interval} | {null['mean']:.{digits}f} [{null['range'][0]:.{digits}f}, "
                f"{null['range'][1]:.{digits}f}], p {null['p']:.3f}: {e['reading']}")

    lines = ["| figure (percent) | image [95%] | its null: mean [range], p | caption [95%] | "
             "its null: mean [range], p |", "|---|---|---|---|---|"]
    return "\n".join(lines + [f"| {label} | {cell(f'{key}.image')} | {cell(f'{key}.text')} |"
                              for key, label in ROWS.items()]) + "\n"


@dataclass(frozen=True)
class ModelReading:
    """A model's image and caption tables, each one's ``readings`` with their nulls (``beside``), and the image
    objects' 3D MDS (observed and additively reconstructed) with their names."""

    tables: dict[str, SceneTable]
    readings: dict[str, dict[str, dict]]
    observed: np.ndarray
    reconstructed: np.ndarray
    labels: list[str]


def read_model(encoder, n_colors: int = 8, n_shapes: int = 3, tick=lambda done, total, what: None,
               draws: int = DRAWS) -> ModelReading:
    """What the binding tab shows of a model: ``tick(done, total, what)`` before each stage."""
    from explorer import world

    tick(0, 3, "encoding the two-object scenes")
    tables = world_tables(encoder, n_colors, n_shapes)
    found = {}
    for i, (kind, table) in enumerate(tables.items()):
        cancel.check()
        tick(i + 1, len(tables) + 1, f"analyzing the {kind} embeddings and {draws} null tables")
        found[kind] = readings_with_null(table, draws)
    observed, reconstructed = mds_points(tables["image"])
    labels = [f"{list(world.COLORS)[c]} {world.SHAPES[s]}" for c, s in tables["image"].objects]
    return ModelReading(tables, found, observed, reconstructed, labels)
