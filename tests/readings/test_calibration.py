"""The binding nulls are calibrated: on controls exactly exchangeable by construction (a swap pair's two scenes, or
a unit's two sides, drawn alike), over many seeds, each reading rejects at most at its nominal rate, within its
binomial interval, at 0.05 and at 0.01: the table readings' Monte-Carlo p over flipped tables, and the swaps'
sign-flip test over pairs (the captions of ``swap_scenes``, which repeat across renders, averaged inside their
pair)."""

import numpy as np
from scipy import stats

from explorer.readings.binding import SceneTable, all_pairs
from explorer.readings.binding_null import flip_orders, swap_entry, table_readings
from explorer.readings.binding_swaps import distinct_units, grid_swaps, swap_scenes, told_apart_renders
from explorer.readings.significance import against_draws

SEEDS = 120
LEVELS = (0.05, 0.01)


def _at_most_nominal(p: np.ndarray, level: float) -> bool:
    """Whether the share of p at or under ``level`` is at most the upper end of the 99% binomial interval of a
    nominal test over as many seeds."""
    return (p <= level).sum() <= stats.binom.ppf(0.995, len(p), level)


def _bag_table(seed: int, n_colors: int = 4, n_shapes: int = 3, dim: int = 12) -> SceneTable:
    """Each scene: its colours' and shapes' vectors summed, plus noise of its own: a scene and its swap hold the same
    concepts, so they are exchangeable."""
    rng = np.random.default_rng(seed)
    concepts = rng.normal(size=(n_colors + n_shapes, dim))
    pairs = all_pairs(n_colors, n_shapes)
    emb = np.stack([sum(concepts[c] + concepts[n_colors + s] for c, s in p) for p in pairs])
    return SceneTable(pairs, emb + 0.7 * rng.normal(size=emb.shape), n_colors, n_shapes)


def test_an_exchangeable_table_reads_at_its_nominal_rate_on_every_table_reading():
    found: dict[str, list[float]] = {}
    for seed in range(SEEDS):
        table = _bag_table(seed)
        model, null = table_readings(table, flip_orders(table, 99, seed=1000 + seed))
        for name, value in model.items():
            entry = against_draws(value, [n[name] for n in null])
            found.setdefault(name, []).append(1.0 if entry["null"]["p"] is None else entry["null"]["p"])
    for name, p in found.items():
        for level in LEVELS:
            assert _at_most_nominal(np.array(p), level), (name, level, np.mean(np.array(p) <= level))


def _caption_units(seed: int, n_colors: int = 4, n_shapes: int = 3, renders: int = 8, dim: int = 6):
    """Told apart and told the wrong way round for every render of the grid's swaps, by fixed predictions against
    caption embeddings: each caption's own noise around its bag of words, so a caption pair's two sides are
    exchangeable, and a render repeating a caption repeats its embedding."""
    rng = np.random.default_rng(seed)
    sides, captions = swap_scenes(n_colors, n_shapes, renders, seed=seed)
    noise = {c: rng.normal(size=dim) for c in sorted(set(captions))}
    emb = np.stack([noise[c] for c in captions]).reshape(len(grid_swaps(n_colors, n_shapes)), renders, 2, dim)
    pred = rng.normal(size=(emb.shape[0], 2, dim))
    return told_apart_renders(pred, emb), told_apart_renders(pred, emb[..., ::-1, :]), distinct_units(emb)


def test_the_swap_test_counts_each_pair_once_and_keeps_its_nominal_rate():
    p_pairs, p_renders = [], []
    for seed in range(SEEDS):
        apart, wrong, units = _caption_units(seed)
        assert units.sum() <= 2 * len(units)  # captions name no places: two orders a pair at most
        p_pairs.append(swap_entry(apart, wrong, units, "caption orders")["null"]["p"] or 1.0)
        a, r = int(apart.sum()), int(wrong.sum())  # every render counted as a unit of its own
        p_renders.append(stats.binomtest(a, a + r, 0.5, alternative="greater").pvalue if a + r else 1.0)
    for level in LEVELS:
        assert _at_most_nominal(np.array(p_pairs), level), (level, np.mean(np.array(p_pairs) <= level))
    assert not _at_most_nominal(np.array(p_renders), 0.05)  # counting repeated renders as new ones rejects too often
