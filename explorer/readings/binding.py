"""Binding geometry (the binding paper): how a model's embeddings of two-object scenes combine objects and concepts.

Everything works on a table of scene embeddings indexed by the scene's two objects, so it applies
to any model's image or caption embeddings, and to synthetic embeddings in tests.
"""

from __future__ import annotations

import functools
import itertools
import logging
from dataclasses import dataclass

import numpy as np
import torch

from explorer.core import cancel
from explorer.core.intervals import percent_intervals
from explorer.models.modeling.probes import ConceptProbe, SlotMLP, fit_copies
from explorer.readings.binding_swaps import (
    SwapTable, fold_plan, object_folds, swap_cosine, table_swaps, told_apart_renders,
)

log = logging.getLogger(__name__)

Obj = tuple[int, int]  # (colour index, shape index)


@dataclass(frozen=True)
class SceneTable:
    """Embeddings (N, D) of two-object scenes; ``pairs[n]`` holds scene n's two objects."""

    pairs: list[tuple[Obj, Obj]]
    embeddings: np.ndarray
    n_colors: int
    n_shapes: int

    @property
    def objects(self) -> list[Obj]:
        return [(c, s) for c in range(self.n_colors) for s in range(self.n_shapes)]


def all_pairs(n_colors: int, n_shapes: int) -> list[tuple[Obj, Obj]]:
    """Every unordered pair of distinct colour-shape objects."""
    objs = [(c, s) for c in range(n_colors) for s in range(n_shapes)]
    return list(itertools.combinations(objs, 2))


def r2(target: np.ndarray, prediction: np.ndarray) -> float:
    """Coefficient of determination over all dimensions, in percent."""
    sse = ((target - prediction) ** 2).sum()
    sst = ((target - target.mean(0)) ** 2).sum()
    return float(100 * (1 - sse / sst))


@functools.lru_cache(maxsize=8)
def _incidence(pairs: tuple[tuple[Obj, Obj], ...], n_colors: int, n_shapes: int) -> np.ndarray:
    """(objects, scenes): each object's row averages the scenes that hold it."""
    objs = [(c, s) for c in range(n_colors) for s in range(n_shapes)]
    m = np.array([[obj in p for p in pairs] for obj in objs], dtype=float)
    return m / np.maximum(m.sum(1, keepdims=True), 1)


def object_embeddings(table: SceneTable) -> dict[Obj, np.ndarray]:
    """Each object's embedding: the centred mean of the scenes that contain it."""
    found = _incidence(tuple(table.pairs), table.n_colors, table.n_shapes) @ (table.embeddings -
                                                                             table.embeddings.mean(0))
    return dict(zip(table.objects, found))


def additive_r2(table: SceneTable) -> dict[str, float]:
    """Level I: scene ~ sum of its objects (least-squares scale); level II: object ~ colour + shape."""
    mean = table.embeddings.mean(0)
    objs = object_embeddings(table)
    summed = np.stack([objs[a] + objs[b] for a, b in table.pairs])
    target = table.embeddings - mean
    scale = float((summed * target).sum() / max((summed**2).sum(), 1e-12))
    level1 = r2(table.embeddings, mean + scale * summed)
    return {"objects": level1, "concepts": r2(*concept_reconstruction(table, objs))}


def concept_reconstruction(table: SceneTable, objs: dict[Obj, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Observed object embeddings (n_objects, D) and their colour + shape sums from concept averages."""
    observed = np.stack([objs[o] for o in table.objects])
    colors = {c: observed[[i for i, o in enumerate(table.objects) if o[0] == c]].mean(0) for c in range(table.n_colors)}
    shapes = {s: observed[[i for i, o in enumerate(table.objects) if o[1] == s]].mean(0) for s in range(table.n_shapes)}
    return observed, np.stack([colors[c] + shapes[s] for c, s in table.objects])


@functools.lru_cache(maxsize=8)
def _edit_plan(pairs: tuple[tuple[Obj, Obj], ...], n_colors: int, n_shapes: int) -> tuple[np.ndarray, ...]:
    """Every recolouring of one object of a scene into another scene of the table: (scene, object recoloured, its
    recoloured object, the scene it should become), objects as indices into ``SceneTable.objects``."""
    index = {frozenset(p): i for i, p in enumerate(pairs)}
    plan = [(i, a[0] * n_shapes + a[1], new_color * n_shapes + a[1], index[frozenset(((new_color, a[1]), b))])
            for i, (a, b) in enumerate(pairs) for new_color in range(n_colors)
            if new_color != a[0] and frozenset(((new_color, a[1]), b)) in index]
    return tuple(np.array(column, dtype=int).reshape(-1) for column in zip(*plan)) if plan else \
        tuple(np.zeros(0, dtype=int) for _ in range(4))


def edit_top1(table: SceneTable) -> float:
    """Counterfactual edits e' = e - e(a1, o1) + e(a_t, o1), scored by retrieving the edited scene (percent)."""
    scene, old, new, target = _edit_plan(tuple(table.pairs), table.n_colors, table.n_shapes)
    if not len(scene):
        return 0.0
    objs = np.stack(list(object_embeddings(table).values()))
    emb = table.embeddings / np.linalg.norm(table.embeddings, axis=1, keepdims=True)
    edited = table.embeddings[scene] - objs[old] + objs[new]
    edited /= np.linalg.norm(edited, axis=1, keepdims=True)
    return float(100 * (np.argmax(edited @ emb.T, axis=1) == target).mean())


@dataclass(frozen=True)
class Edit:
    """A counterfactual edit: the scene edited, the scene it should become, and the scene retrieved."""

    source: int
    target: int | None
    retrieved: int

    @property
    def correct(self) -> bool:
        return self.retrieved == self.target


def edit(table: SceneTable, scene: int, which: int, new_color: int) -> Edit:
    """Recolour object ``which`` (0 or 1) of ``scene`` in embedding space and retrieve the nearest scene."""
    objs = object_embeddings(table)
    a, b = table.pairs[scene][which], table.pairs[scene][1 - which]
    edited = (new_color, a[1])
    target = {frozenset(p): i for i, p in enumerate(table.pairs)}.get(frozenset((edited, b)))
    e = table.embeddings[scene] - objs[a] + objs[edited]
    emb = table.embeddings / np.linalg.norm(table.embeddings, axis=1, keepdims=True)
    return Edit(scene, target if edited != b else None, int(np.argmax(emb @ (e / np.linalg.norm(e)))))


def mds_points(table: SceneTable, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """3D MDS of the observed object embeddings and their colour + shape reconstructions, jointly."""
    from sklearn.manifold import MDS

    observed, recon = concept_reconstruction(table, object_embeddings(table))
    xyz = MDS(n_components=3, random_state=seed, n_init=1).fit_transform(np.concatenate([observed, recon]))
    return xyz[: len(observed)], xyz[len(observed) :]


def _split(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng(seed).permutation(n)
    cut = int(0.7 * n)
    return order[:cut], order[cut:]


RIDGE = 1.0  # the linear probes' L2 penalty, on standardised dimensions


def ridge_scores(x: np.ndarray, y: np.ndarray, test: np.ndarray, penalty: float = RIDGE) -> np.ndarray:
    """One-vs-rest ridge classifiers (scikit-learn's ``RidgeClassifier``: least squares to labels of -1 and 1, an
    unpenalised intercept), every copy at once in closed form: ``x`` (copies, N, D), ``y`` (N, L) 0/1, ``test``
    (copies, M, D); returns the decision function on ``test``, (copies, M, L)."""
    mean = x.mean(1, keepdims=True)
    xc, target = x - mean, 2 * y - 1
    gram = xc.transpose(0, 2, 1) @ xc + penalty * np.eye(x.shape[2])
    w = np.linalg.solve(gram, xc.transpose(0, 2, 1) @ (target - target.mean(0)))
    return (test - mean) @ w + target.mean(0)


def probe_accuracy(table: SceneTable) -> dict[str, float]:
    """Linear probes on held-out scenes: the two colours and shapes present; the two objects present (percent)."""
    return probe_accuracy_many([table])[0]


def probe_accuracy_many(tables: list[SceneTable]) -> list[dict[str, float]]:
    """``probe_accuracy`` of tables over the same scenes (a model's and its null's), the probes fitted at once.

    Each label (a colour, a shape or an object present) is one ridge classifier (``ridge_scores``) on 70% of the
    scenes, each dimension standardised on them (so that an encoder's scale does not decide the fit); a scene is
    right when its top-k labels are exactly its k labels.
    """
    t0 = tables[0]
    train, test = _split(len(t0.pairs))
    x = np.stack([t.embeddings for t in tables]).astype(np.float64)
    sd = x[:, train].std(1, keepdims=True)
    x = x / np.where(sd > 1e-12, sd, 1.0)  # each dimension standardised on the training scenes
    labelings = {
        "concepts": [lambda p, k=k: [o[k] for o in p] for k in (0, 1)],
        "objects": [lambda p: [o[0] * t0.n_shapes + o[1] for o in p]],
    }
    out: list[dict[str, float]] = [{} for _ in tables]
    for name, getters in labelings.items():
        right = np.ones((len(tables), len(test)), dtype=bool)
        for get in getters:
            labels = [set(get(p)) for p in t0.pairs]
            classes = sorted(set().union(*labels))
            y = np.array([[c in lab for c in classes] for lab in labels], dtype=float)
            scores = np.broadcast_to(y[train[0]], (len(tables), len(test), len(classes))).copy()
            varying = [j for j in range(len(classes)) if y[train, j].min() != y[train, j].max()]
            if varying:  # a label constant over the training scenes keeps that constant as its score
                scores[..., varying] = ridge_scores(x[:, train], y[train][:, varying], x[:, test])
            # a scene is right when its top-k labels (k: how many it has) are all its own
            order = np.argsort(-scores, axis=2)
            own = np.take_along_axis(np.broadcast_to(y[test][None] > 0, scores.shape), order, axis=2)
            within = np.arange(len(classes)) < y[test].sum(1, keepdims=True)
            right &= (own | ~within).all(2)
        for b in range(len(tables)):
            out[b][name] = float(100 * right[b].mean())
    return out


def heldout_object_split(table: SceneTable, n_heldout: int | None = None,
                         seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Scenes without any held-out object (train) and scenes with one (test)."""
    objs = table.objects
    rng = np.random.default_rng(seed)
    n_heldout = n_heldout or max(1, len(objs) // 6)
    held = {objs[i] for i in rng.choice(len(objs), size=n_heldout, replace=False)}
    has = np.array([bool(held & set(p)) for p in table.pairs])
    return np.nonzero(~has)[0], np.nonzero(has)[0]


def probe_splits(table: SceneTable, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train (no held-out object), validation and test scenes (half each of those with a held-out object)."""
    train, heldout = heldout_object_split(table, seed=seed)
    heldout = np.random.default_rng(seed + 1).permutation(heldout)
    return train, np.sort(heldout[: len(heldout) // 2]), np.sort(heldout[len(heldout) // 2 :])


def _indices(pairs: list[tuple[Obj, Obj]], rows=None) -> torch.Tensor:
    """(N, objects, 2): scenes' objects as (colour, shape) indices, one slot per object."""
    return torch.tensor([[list(o) for o in pairs[i]] for i in (range(len(pairs)) if rows is None else rows)])


PROBES = {
    "mlp": lambda nc, ns, w, d, copies=1: SlotMLP(nc, ns, w, d, copies),
    "product": lambda nc, ns, w, d, copies=1: ConceptProbe(nc, ns, w, d, "product", copies),
    "additive": lambda nc, ns, w, d, copies=1: ConceptProbe(nc, ns, w, d, "sum", copies),
}
# the additive probe with the product beside it in one head: what it fits beyond "additive" is the sweep's measure
# of multiplicative structure
JOINT = lambda nc, ns, w, d, copies=1: ConceptProbe(nc, ns, w, d, "both", copies)  # noqa: E731
FOLDS = 6  # folds of held-out objects over which every swap pair is judged once (``binding_swaps``)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def retrieval_hits(pred: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """(copies, n): whether each prediction's nearest scene among the n scenes predicted (never the training
    scenes) is its own; ``pred`` and ``embeddings`` are (copies, n, D)."""
    sims = np.einsum("bnd,bmd->bnm", _unit(pred), _unit(embeddings))
    return np.argmax(sims, axis=2) == np.arange(pred.shape[1])


def retrieval(pred: np.ndarray, table: SceneTable, rows: np.ndarray) -> float:
    """How often each prediction's nearest scene, among ``rows`` only (never the training scenes), is its own."""
    return float(100 * retrieval_hits(pred[None], table.embeddings[rows][None]).mean())


def probe_outcomes(tables: list[SceneTable], swaps: list[SwapTable] | None, widths, seed: int = 0,
                   folds: int = FOLDS, probes: dict = PROBES) -> tuple[list[dict[str, float]], dict[str, np.ndarray]]:
    """Each probe's figures for tables over the same scenes (a model's, or its null's draws), fitted at once.

    ``widths``: a tuple to choose each probe's width from on validation scenes, or {probe: width} to take. For
    each probe: retrieval among the test scenes (scenes with held-out objects, ``probe_splits``) and, unless
    ``swaps`` is None, the share of ``swaps`` told apart, each pair judged in its fold by a probe that saw neither of
    its scenes (``binding_swaps``). Returns each table's figures (percent) and the per-item outcomes (copies, items)
    behind them: ``NAME`` per test scene, ``swap.NAME`` the share of each swap pair's renders told apart, and
    ``apart.NAME`` and ``reversed.NAME`` whether each render (copies, pairs, renders) is told apart, and told the
    wrong way round.
    """
    t0, n = tables[0], len(tables)
    train, val, test = probe_splits(t0, seed)
    y = torch.from_numpy(np.stack([t.embeddings for t in tables]).astype(np.float32))
    figures: list[dict[str, float]] = [{} for _ in tables]
    outcomes: dict[str, np.ndarray] = {}
    for name, make in probes.items():
        cancel.check()
        chosen, hits = np.zeros(n, dtype=int), np.zeros((n, len(test)), dtype=bool)
        candidates = (widths[name],) if isinstance(widths, dict) else tuple(widths)
        best = np.full(n, -1.0)
        for w in candidates:
            predict = fit_copies(lambda k, w=w: make(t0.n_colors, t0.n_shapes, w, y.shape[2], k),
                                 _indices(t0.pairs, train), y[:, train], seed=seed)
            score = retrieval_hits(predict(_indices(t0.pairs, val)).numpy(), y[:, val].numpy()).mean(1)
            better = score > best if len(candidates) > 1 else np.ones(n, dtype=bool)
            best[better], chosen[better] = score[better], w
            hits[better] = retrieval_hits(predict(_indices(t0.pairs, test)).numpy(), y[:, test].numpy())[better]
        outcomes[name] = hits
        for b in range(n):
            figures[b] |= {name: float(100 * hits[b].mean()), f"{name}.width": int(chosen[b])}
        if swaps is not None:
            outcomes[f"apart.{name}"], outcomes[f"reversed.{name}"] = _swap_verdicts(t0, swaps, make, chosen, y, seed,
                                                                                    folds)
            outcomes[f"swap.{name}"] = outcomes[f"apart.{name}"].mean(-1)
            for b in range(n):
                figures[b][f"swap.{name}"] = float(100 * outcomes[f"swap.{name}"][b].mean())
    for b, s in enumerate(swaps or []):
        figures[b]["swap.cosine"] = swap_cosine(s.embeddings)
    return figures, outcomes


def _swap_verdicts(t0: SceneTable, swaps: list[SwapTable], make, chosen: np.ndarray, y: torch.Tensor, seed: int,
                   folds: int) -> tuple[np.ndarray, np.ndarray]:
    """(copies, pairs, renders): whether each render is told apart, and told the wrong way round, by one probe at each
    copy's ``chosen`` width, each pair judged in its fold (``binding_swaps.fold_plan``)."""
    plan = fold_plan(t0.pairs, swaps[0].pairs, object_folds(t0.n_colors, t0.n_shapes, folds, seed), seed)
    swap_emb = np.stack([s.embeddings for s in swaps])
    apart, wrong = (np.zeros((len(chosen), *swap_emb.shape[1:3]), dtype=bool) for _ in range(2))
    for w in np.unique(chosen):
        copies = np.nonzero(chosen == w)[0]
        for rows, judged in plan:
            if not len(judged):
                continue
            predict = fit_copies(lambda k, w=w: make(t0.n_colors, t0.n_shapes, int(w), y.shape[2], k),
                                 _indices(t0.pairs, rows), y[copies][:, rows], seed=seed)
            sides = [side for p in judged for side in swaps[0].pairs[p]]
            pred = predict(_indices(sides)).numpy().reshape(len(copies), len(judged), 2, -1)
            apart[np.ix_(copies, judged)] = told_apart_renders(pred, swap_emb[copies][:, judged])
            wrong[np.ix_(copies, judged)] = told_apart_renders(pred, swap_emb[copies][:, judged][..., ::-1, :])
    return apart, wrong


def composition_probes(table: SceneTable, widths: tuple[int, ...] = (16, 64, 256), seed: int = 0,
                       swaps: SwapTable | None = None, joint: bool = False) -> dict[str, float]:
    """Scenes with held-out objects predicted from their objects' concepts by three probes (``probe_outcomes``).

    ``swaps``: the swap pairs to tell apart; by default the table's own scenes (each pair seen once).
    ``swap.cosine`` is how alike the swapped scenes' own embeddings are (1: the model cannot tell them, so no
    probe can). ``joint``: also the joint probe, fitted in the same pass, and its increment (``increment``).
    """
    swaps = swaps or table_swaps(table.pairs, table.embeddings, table.n_colors, table.n_shapes)
    figures, outcomes = probe_outcomes([table], [swaps], widths, seed, probes={**PROBES, "joint": JOINT} if joint
                                       else PROBES)
    return figures[0] | (_increment(figures[0], outcomes) if joint else {})


def _increment(figures: dict[str, float], outcomes: dict[str, np.ndarray]) -> dict:
    """The joint probe's retrieval of the test scenes minus the additive probe's, in points, with the 95% interval of
    the test scenes resampled (both probes judged on each)."""
    paired = outcomes["joint"][0].astype(float) - outcomes["additive"][0].astype(float)
    return {"joint_fit": figures["joint"], "increment": figures["joint"] - figures["additive"],
            "increment_ci": percent_intervals(paired)[0], "joint_swaps": figures["swap.joint"]}


def world_scenes(n_colors: int = 8, n_shapes: int = 3, seed: int = 0):
    """Every two-object world scene over the grid (seeded places; ``equal_area.picture`` draws each object over the
    same pixels) with a caption naming them in random order."""
    from explorer import world
    from explorer.readings.equal_area import placed

    colors, shapes = list(world.COLORS)[:n_colors], list(world.SHAPES)[:n_shapes]
    rng = np.random.default_rng(seed)
    pairs = all_pairs(n_colors, n_shapes)
    scenes, captions = [], []
    for pair in pairs:
        objs = placed(rng, [(colors[c], shapes[s]) for c, s in pair])
        scenes.append(world.Scene(tuple(objs)))
        captions.append(world.list_caption([objs[i] for i in rng.permutation(2)]))
    return pairs, scenes, captions


def world_tables(encoder, n_colors: int = 8, n_shapes: int = 3, seed: int = 0) -> dict[str, SceneTable]:
    """Image and caption embeddings of every two-object world scene over a colour x shape grid."""
    from explorer.readings.equal_area import picture

    pairs, scenes, captions = world_scenes(n_colors, n_shapes, seed)
    drawn = []
    for s in scenes:  # hundreds of scenes: a request given up stops between them
        cancel.check()
        drawn.append(picture(s.objects, encoder.image_size))
    images = encoder.embed_images(drawn).numpy()
    texts = encoder.embed_texts(captions).numpy()
    return {kind: SceneTable(pairs, emb, n_colors, n_shapes) for kind, emb in (("image", images), ("text", texts))}


def readings(table: SceneTable) -> dict[str, float]:
    """One table's additive fits (``r2.objects``, ``r2.concepts``), edit top-1 and linear probes (``probe.concepts``,
    ``probe.objects``), in percent."""
    return readings_many([table])[0]


def readings_many(tables: list[SceneTable]) -> list[dict[str, float]]:
    """``readings`` of tables over the same scenes (a model's and its null's), the linear probes fitted at once."""
    out = []
    for table, probes in zip(tables, probe_accuracy_many(tables)):
        found = {f"r2.{level}": value for level, value in additive_r2(table).items()}
        found["edit.top1"] = edit_top1(table)
        out.append(found | {f"probe.{name}": value for name, value in probes.items()})
    return out
