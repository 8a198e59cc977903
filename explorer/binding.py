"""Binding geometry (seed 002): how a model's embeddings of two-object scenes combine objects and concepts.

Everything works on a table of scene embeddings indexed by the scene's two objects, so it applies
to any model's image or caption embeddings, and to synthetic embeddings in tests.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression

from explorer import cancel
from explorer.modeling.probes import ConceptProbe, SlotMLP

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


def object_embeddings(table: SceneTable) -> dict[Obj, np.ndarray]:
    """Each object's embedding: the centred mean of the scenes that contain it."""
    centred = table.embeddings - table.embeddings.mean(0)
    out = {}
    for obj in table.objects:
        rows = [i for i, p in enumerate(table.pairs) if obj in p]
        out[obj] = centred[rows].mean(0)
    return out


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


def edit_top1(table: SceneTable) -> float:
    """Counterfactual edits e' = e - e(a1, o1) + e(a_t, o1), scored by retrieving the edited scene (percent)."""
    objs = object_embeddings(table)
    index = {frozenset(p): i for i, p in enumerate(table.pairs)}
    emb = table.embeddings / np.linalg.norm(table.embeddings, axis=1, keepdims=True)
    hits = total = 0
    for i, (a, b) in enumerate(table.pairs):
        for new_color in range(table.n_colors):
            edited = (new_color, a[1])
            target = index.get(frozenset((edited, b)))
            if new_color == a[0] or target is None:
                continue
            e = table.embeddings[i] - objs[a] + objs[edited]
            e = e / np.linalg.norm(e)
            hits += int(np.argmax(emb @ e) == target)
            total += 1
    return float(100 * hits / max(total, 1))


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


def probe_accuracy(table: SceneTable) -> dict[str, float]:
    """Linear probes on held-out scenes: the two colours and shapes present; the two objects present (percent)."""
    train, test = _split(len(table.pairs))
    x = table.embeddings
    out = {}
    labelings = {
        "concepts": [lambda p, k=k: [o[k] for o in p] for k in (0, 1)],
        "objects": [lambda p: [o[0] * table.n_shapes + o[1] for o in p]],
    }
    for name, getters in labelings.items():
        right = np.ones(len(test), dtype=bool)
        for get in getters:
            labels = [set(get(p)) for p in table.pairs]
            classes = sorted(set().union(*labels))
            y = np.array([[c in lab for c in classes] for lab in labels], dtype=float)
            scores = np.zeros((len(test), len(classes)))
            for j in range(len(classes)):
                if y[train, j].min() == y[train, j].max():
                    scores[:, j] = y[train, j][0]
                    continue
                clf = LogisticRegression(max_iter=2000).fit(x[train], y[train, j])
                scores[:, j] = clf.decision_function(x[test])
            for row, i in enumerate(test):
                k = len(labels[i])
                predicted = {classes[j] for j in np.argsort(-scores[row])[:k]}
                right[row] &= predicted == labels[i]
        out[name] = float(100 * right.mean())
    return out


def heldout_object_split(table: SceneTable, n_heldout: int | None = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
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


def _indices(table: SceneTable, rows: np.ndarray) -> torch.Tensor:
    """(N, objects, 2): each scene's objects as (colour, shape) indices, one slot per object."""
    return torch.tensor([[list(o) for o in table.pairs[i]] for i in rows])


PROBES = {
    "mlp": lambda nc, ns, w, d: SlotMLP(nc, ns, w, d),
    "product": lambda nc, ns, w, d: ConceptProbe(nc, ns, w, d, "product"),
    "additive": lambda nc, ns, w, d: ConceptProbe(nc, ns, w, d, "sum"),
}


def _fit(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int = 600, lr: float = 1e-2) -> None:
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def retrieval(pred: np.ndarray, table: SceneTable, rows: np.ndarray) -> float:
    """How often each prediction's nearest scene, among ``rows`` only (never the training scenes), is its own."""
    sims = _unit(pred) @ _unit(table.embeddings[rows]).T
    return float(100 * np.mean(np.argmax(sims, axis=1) == np.arange(len(rows))))


def swap_partners(table: SceneTable, rows: np.ndarray) -> list[tuple[int, int]]:
    """(scene, its swap): {(c1, s1), (c2, s2)} and {(c2, s1), (c1, s2)}, for the scenes of ``rows`` that have one."""
    index = {frozenset(p): i for i, p in enumerate(table.pairs)}
    out = []
    for i in rows:
        (c1, s1), (c2, s2) = table.pairs[i]
        if c1 != c2 and s1 != s2:
            out.append((int(i), index[frozenset({(c2, s1), (c1, s2)})]))
    return out


def swap_separation(predict, table: SceneTable, pairs: list[tuple[int, int]]) -> float:
    """Percent of swap pairs told apart: each scene's prediction nearer to its own embedding than to its swap's."""
    if not pairs:
        return float("nan")
    i, j = (np.array(side) for side in zip(*pairs))
    pi, pj = _unit(predict(i)), _unit(predict(j))
    ei, ej = _unit(table.embeddings[i]), _unit(table.embeddings[j])
    margin = 1e-6  # float noise in identical embeddings is no separation
    right = ((pi * ei).sum(1) > (pi * ej).sum(1) + margin) & ((pj * ej).sum(1) > (pj * ei).sum(1) + margin)
    return float(100 * right.mean())


def composition_probes(table: SceneTable, widths: tuple[int, ...] = (16, 64, 256), seed: int = 0) -> dict[str, float]:
    """Scenes with held-out objects predicted from their objects' concepts by three probes.

    Each probe's width is chosen on validation scenes; the figures are on test scenes: retrieval among the test
    scenes, and the share of swap pairs told apart. ``swap.cosine`` is how alike the swapped scenes' own
    embeddings are (1: the model cannot tell them, so no probe can).
    """
    train, val, test = probe_splits(table, seed)
    y = torch.from_numpy(table.embeddings.astype(np.float32))
    pairs = swap_partners(table, test)
    out: dict[str, float] = {}
    for name, make in PROBES.items():
        best = None
        for w in widths:
            torch.manual_seed(seed)
            probe = make(table.n_colors, table.n_shapes, w, y.shape[1])
            _fit(probe, _indices(table, train), y[train])
            predict = lambda rows, probe=probe: probe(_indices(table, rows)).detach().numpy()  # noqa: E731
            score = retrieval(predict(val), table, val)
            if best is None or score > best[0]:
                best = (score, w, predict)
        _, width, predict = best
        out[name] = retrieval(predict(test), table, test)
        out[f"{name}.width"] = width
        out[f"swap.{name}"] = swap_separation(predict, table, pairs)
    i, j = (np.array(side) for side in zip(*pairs))
    out["swap.cosine"] = float((_unit(table.embeddings[i]) * _unit(table.embeddings[j])).sum(1).mean())
    return out


def world_scenes(n_colors: int = 8, n_shapes: int = 3, seed: int = 0):
    """Every two-object world scene over the grid (seeded places) with a caption naming them in random order."""
    from explorer import world

    colors, shapes = list(world.COLORS)[:n_colors], list(world.SHAPES)[:n_shapes]
    rng = np.random.default_rng(seed)
    pairs = all_pairs(n_colors, n_shapes)
    scenes, captions = [], []
    for a, b in pairs:
        (x0, y0), (x1, y1) = world.place_objects(rng, [world.SIZES["large"]] * 2)
        objs = [world.WorldObject(colors[a[0]], shapes[a[1]], "large", x0, y0),
                world.WorldObject(colors[b[0]], shapes[b[1]], "large", x1, y1)]
        scenes.append(world.Scene(tuple(objs)))
        captions.append(world.list_caption([objs[i] for i in rng.permutation(2)]))
    return pairs, scenes, captions


def world_tables(encoder, n_colors: int = 8, n_shapes: int = 3, seed: int = 0) -> dict[str, SceneTable]:
    """Image and caption embeddings of every two-object world scene over a colour x shape grid."""
    pairs, scenes, captions = world_scenes(n_colors, n_shapes, seed)
    images = encoder.embed_images([s.render(encoder.image_size) for s in scenes]).numpy()
    texts = encoder.embed_texts(captions).numpy()
    return {kind: SceneTable(pairs, emb, n_colors, n_shapes) for kind, emb in (("image", images), ("text", texts))}


def readings(table: SceneTable) -> dict[str, float]:
    """One table's additive fits (``r2.objects``, ``r2.concepts``), edit top-1 and linear probes (``probe.concepts``,
    ``probe.objects``), in percent."""
    out = {f"r2.{level}": value for level, value in additive_r2(table).items()}
    out["edit.top1"] = edit_top1(table)
    return out | {f"probe.{name}": value for name, value in probe_accuracy(table).items()}


@dataclass(frozen=True)
class ModelReading:
    """A model's image and caption tables, each one's ``readings``, and the image objects' 3D MDS (observed and
    additively reconstructed) with their names."""

    tables: dict[str, SceneTable]
    readings: dict[str, dict[str, float]]
    observed: np.ndarray
    reconstructed: np.ndarray
    labels: list[str]


def read_model(encoder, n_colors: int = 8, n_shapes: int = 3, tick=lambda done, total, what: None) -> ModelReading:
    """What the binding tab shows of a model: ``tick(done, total, what)`` before each stage."""
    from explorer import world

    tick(0, 3, "encoding the two-object scenes")
    tables = world_tables(encoder, n_colors, n_shapes)
    found = {}
    for i, (kind, table) in enumerate(tables.items()):
        cancel.check()
        tick(i + 1, len(tables) + 1, f"analysing the {kind} embeddings")
        found[kind] = readings(table)
    observed, reconstructed = mds_points(tables["image"])
    labels = [f"{list(world.COLORS)[c]} {world.SHAPES[s]}" for c, s in tables["image"].objects]
    return ModelReading(tables, found, observed, reconstructed, labels)


def figures(encoder, n_colors: int = 8, n_shapes: int = 3, progress=lambda it: it) -> dict[str, float]:
    """All the analyses for image and caption embeddings, as named figures (percent)."""
    tables = world_tables(encoder, n_colors, n_shapes)
    out: dict[str, float] = {}
    for kind, table in progress(list(tables.items())):
        out |= {f"{name}.{kind}": value for name, value in readings(table).items()}
        for name, value in composition_probes(table).items():
            out[f"{name}.heldout_objects.{kind}"] = value
    return {k: round(v, 2) for k, v in out.items()}
