"""PowerCLIP's region-subset to parse-tree alignment (``explorer/methods/powerclip/alignment.py``, ``method.py``): the
exact and batched paths against brute-force enumeration, the NLAs against the surrogate, and the method's scores."""

import itertools
import math

import numpy as np
import pytest
import torch
from PIL import Image

from explorer import world
from explorer.language.tree import LABELS, parse_tree
from explorer.methods.powerclip.alignment import (
    UNIONS_KEPT_UP_TO, exact_alignment, nla_alignment, nla_best_subset, nla_max, nla_r2t, nla_scan, nla_soft,
    region_groups, region_scores, soft_gap_bound, subset_masks, subset_similarities,
)
from explorer.methods.powerclip.method import PowerCLIP

TAU = 10.0


# --- brute force, written with plain loops and nothing from explorer.methods.powerclip.alignment -------------------


def problem(m, seed, n=24, d=8, k=4):
    rng = np.random.default_rng(seed)
    patches = rng.normal(size=(n, d))
    patches /= np.linalg.norm(patches, axis=1, keepdims=True)
    texts = rng.normal(size=(k, d))
    masks = rng.random((m, n)) < 0.25
    for i in range(m):
        masks[i, rng.integers(n)] = True
    return patches, masks, texts


def all_subsets(m):
    for r in range(1, m + 1):
        yield from itertools.combinations(range(m), r)


def row(subset):
    return sum(1 << i for i in subset) - 1


def brute_cosines(patches, masks, texts):
    """{subset: [cos(normalized mean of the union's unit patches, t_k) for k]}."""
    out = {}
    for subset in all_subsets(len(masks)):
        union = np.zeros(masks.shape[1], dtype=bool)
        for i in subset:
            union |= masks[i]
        v = patches[union].mean(axis=0)
        v = v / np.linalg.norm(v)
        out[subset] = [float(v @ t / np.linalg.norm(t)) for t in texts]
    return out


def brute_surrogate(patches, masks, texts):
    """{subset: [s_k(S)]}: patch shares 1/(regions covering it), summed over the subset, / ||covered sum||."""
    counts = masks.sum(axis=0)
    z = np.linalg.norm(patches[counts > 0].sum(axis=0))
    out = {}
    for subset in all_subsets(len(masks)):
        w = np.zeros(patches.shape[1])
        for n in range(masks.shape[1]):
            inside = sum(1 for i in subset if masks[i, n])
            if inside:
                w += inside / counts[n] * patches[n]
        out[subset] = [float(w @ t / np.linalg.norm(t)) / z for t in texts]
    return out


def brute_additive(a):
    """{subset: [sum_{i in S} a_ik]} for a (M, K) array."""
    return {s: [sum(a[i, k] for i in s) for k in range(a.shape[1])] for s in all_subsets(len(a))}


def brute_aggregates(table, tau):
    values = np.array(list(table.values()))  # (subsets, K)
    soft = [max(col) + math.log(sum(math.exp(tau * (v - max(col))) for v in col)) / tau for col in values.T]
    return values.max(axis=0), np.array(soft), float(values.max(axis=1).mean())


# --- the powerset ---------------------------------------------------------------------------


def test_subset_masks_enumerate_every_nonempty_subset():
    for m in range(1, 7):
        s = subset_masks(m)
        assert s.shape == (2**m - 1, m) and s.dtype == torch.bool
        assert {tuple(np.flatnonzero(r)) for r in s.numpy()} == set(all_subsets(m))
        assert all(row(tuple(np.flatnonzero(r))) == i for i, r in enumerate(s.numpy()))
    with pytest.raises(ValueError):
        subset_masks(0)


@pytest.mark.parametrize("m", range(1, 11))
def test_exact_path_equals_brute_force(m):
    patches, masks, texts = problem(m, seed=m)
    table = brute_cosines(patches, masks, texts)
    args = [torch.tensor(x) for x in (patches, masks, texts)]
    sims = subset_similarities(*args, chunk=100).numpy()
    expected = np.zeros_like(sims)
    for subset, values in table.items():
        expected[row(subset)] = values
    np.testing.assert_allclose(sims, expected, atol=1e-9)
    best, soft, r2t = brute_aggregates(table, TAU)
    exact = exact_alignment(*args, tau=TAU)
    np.testing.assert_allclose(exact.best.numpy(), best, atol=1e-9)
    np.testing.assert_allclose(exact.soft.numpy(), soft, atol=1e-9)
    assert exact.t2r == pytest.approx(best.mean(), abs=1e-9)
    assert exact.r2t == pytest.approx(r2t, abs=1e-9)
    chosen = subset_masks(m)[exact.best_subset].numpy()
    for k, subset in enumerate(chosen):
        assert table[tuple(np.flatnonzero(subset))][k] == pytest.approx(best[k], abs=1e-12)
    kept = exact_alignment(*args, tau=TAU, groups=region_groups(*args[:2], keep_unions=True))  # made once per image
    np.testing.assert_array_equal(kept.best.numpy(), exact.best.numpy())
    np.testing.assert_array_equal(kept.soft.numpy(), exact.soft.numpy())
    assert (kept.t2r, kept.r2t) == (exact.t2r, exact.r2t)


def check_nlas(a, table):
    """Every NLA against the enumerated additive scores, within its stated bound."""
    best, soft, r2t = brute_aggregates(table, TAU)
    t = torch.tensor(a)
    np.testing.assert_allclose(nla_max(t).numpy(), best, atol=1e-9)
    for k, subset in enumerate(nla_best_subset(t).T.numpy()):
        assert table[tuple(np.flatnonzero(subset))][k] == pytest.approx(best[k], abs=1e-9)
    np.testing.assert_allclose(nla_soft(t, TAU).numpy(), soft, atol=1e-9)
    gap, bound = soft - best, soft_gap_bound(t, TAU).numpy()
    assert (gap >= -1e-12).all() and (gap <= bound + 1e-12).all()
    assert (bound <= len(a) * math.log(2) / TAU + 1e-12).all()
    r = nla_r2t(t)
    assert r.lower - 1e-9 <= r2t <= r.upper + 1e-9
    assert abs(r.estimate - r2t) <= r.error_bound + 1e-9


@pytest.mark.parametrize("m", range(1, 11))
def test_nlas_equal_or_bound_the_enumerated_surrogate(m):
    patches, masks, texts = problem(m, seed=100 + m)
    table = brute_surrogate(patches, masks, texts)
    a = region_scores(*(torch.tensor(x) for x in (patches, masks, texts))).numpy()
    for subset, values in table.items():  # the surrogate is additive over regions
        np.testing.assert_allclose([sum(a[i, k] for i in subset) for k in range(a.shape[1])], values, atol=1e-9)
    full = tuple(range(m))  # F1: on all regions the surrogate is the cosine
    np.testing.assert_allclose(table[full], brute_cosines(patches, masks, texts)[full], atol=1e-9)
    check_nlas(a, table)


@pytest.mark.parametrize("case", ["mixed", "negative", "zero", "steep"])
def test_nlas_on_hand_made_scores(case):
    rng = np.random.default_rng(7)
    a = {
        "mixed": rng.normal(size=(8, 3)),
        "negative": -rng.random((8, 3)) - 0.1,
        "zero": np.zeros((5, 2)),
        "steep": rng.normal(size=(6, 3)) * 200,
    }[case]
    check_nlas(a, brute_additive(a))


def test_surrogate_max_lies_between_the_full_set_and_the_best_cosine():
    """F3: disjoint regions, patch tokens in a cone."""
    rng = np.random.default_rng(3)
    for trial in range(5):
        patches = rng.normal(size=(30, 8)) * 0.3 + 1.0
        patches /= np.linalg.norm(patches, axis=1, keepdims=True)
        texts = rng.normal(size=(5, 8))
        owner = rng.integers(-1, 6, size=30)  # -1: no region
        masks = np.stack([owner == i for i in range(6)])
        masks = masks[masks.any(axis=1)]
        args = [torch.tensor(x) for x in (patches, masks, texts)]
        surrogate = nla_max(region_scores(*args)).numpy()
        cos = brute_cosines(patches, masks, texts)
        full, best = np.array(cos[tuple(range(len(masks)))]), np.array(list(cos.values())).max(axis=0)
        assert (full - 1e-9 <= surrogate).all() and (surrogate <= np.maximum(best, 0) + 1e-9).all()


@pytest.mark.parametrize("m", range(1, 11))
def test_scan_is_a_real_subset_between_the_simple_candidates_and_the_best(m):
    patches, masks, texts = problem(m, seed=200 + m)
    table = brute_cosines(patches, masks, texts)
    values, subsets = nla_scan(*(torch.tensor(x) for x in (patches, masks, texts)))
    best = np.array(list(table.values())).max(axis=0)
    floor = np.maximum(table[tuple(range(m))], np.max([table[(i,)] for i in range(m)], axis=0))
    assert (floor - 1e-9 <= values.numpy()).all() and (values.numpy() <= best + 1e-9).all()
    for k, subset in enumerate(subsets.T.numpy()):
        assert table[tuple(np.flatnonzero(subset))][k] == pytest.approx(float(values[k]), abs=1e-9)
    args = [torch.tensor(x) for x in (patches, masks, texts)]
    kept_values, kept_subsets = nla_scan(*args, groups=region_groups(*args[:2]))  # made once per image
    assert torch.equal(kept_values, values) and torch.equal(kept_subsets, subsets)


def test_scan_is_exact_for_disjoint_orthogonal_regions():
    rng = np.random.default_rng(5)
    for trial in range(5):
        owner = rng.permutation(np.arange(40) % 9)  # 9 disjoint regions over 40 orthonormal patches
        patches, texts = np.eye(48)[:40], rng.normal(size=(6, 48))
        texts[0] = np.abs(texts[0])  # keep the positive-maximum case
        masks = np.stack([owner == i for i in range(9)])
        table = brute_cosines(patches, masks, texts)
        best = np.array(list(table.values())).max(axis=0)
        values, _ = nla_scan(*(torch.tensor(x) for x in (patches, masks, texts)))
        positive = best > 0
        np.testing.assert_allclose(values.numpy()[positive], best[positive], atol=1e-9)


@pytest.mark.parametrize("m", [1, 5, 9])
def test_batched_nlas_equal_the_enumerated_surrogate_item_by_item(m):
    items = [problem(m, seed=300 + m + i) for i in range(3)]
    patches, masks, texts = (torch.tensor(np.stack(x)) for x in zip(*items))
    nla = nla_alignment(patches, masks.double(), texts, tau=TAU)
    for i, item in enumerate(items):
        best, soft, r2t = brute_aggregates(brute_surrogate(*item), TAU)
        np.testing.assert_allclose(nla.best[i].numpy(), best, atol=1e-9)
        np.testing.assert_allclose(nla.soft[i].numpy(), soft, atol=1e-9)
        assert nla.r2t_lower[i] - 1e-9 <= r2t <= nla.r2t_upper[i] + 1e-9


def test_unions_are_kept_for_few_regions_only_and_change_nothing():
    for m in (UNIONS_KEPT_UP_TO, UNIONS_KEPT_UP_TO + 1):
        patches, masks, texts = (torch.tensor(x) for x in problem(m, seed=300 + m, n=40))
        groups = region_groups(patches, masks, keep_unions=True)
        assert (groups.unions is not None) == (m <= UNIONS_KEPT_UP_TO)
        kept, made = exact_alignment(patches, masks, texts, groups=groups), exact_alignment(patches, masks, texts)
        assert torch.allclose(kept.best, made.best, atol=1e-12) and torch.equal(kept.best_subset, made.best_subset)


def test_nlas_at_64_regions_keep_their_closed_forms_and_bounds():
    """At M = 64 nothing can be enumerated; each NLA is checked against its closed form, computed here in numpy,
    and the subsets they return against the values they claim (the enumerations at small M are above)."""
    rng = np.random.default_rng(0)
    patches, texts = torch.tensor(rng.normal(size=(196, 64))), torch.tensor(rng.normal(size=(8, 64)))
    masks = torch.tensor(rng.random((64, 196)) < 0.05)
    masks[np.arange(64), rng.integers(196, size=64)] = True
    a = region_scores(patches, masks, texts)
    an, m = a.numpy(), 64
    best, soft, bound = nla_max(a), nla_soft(a, TAU), soft_gap_bound(a, TAU)
    np.testing.assert_allclose(best, np.maximum(an, 0).sum(0) + np.minimum(0, an.max(0)), atol=1e-12)
    picked = nla_best_subset(a).numpy()
    assert picked.shape == (64, 8) and picked.any(0).all()
    np.testing.assert_allclose((an * picked).sum(0), best, atol=1e-12)  # the subset it returns attains the max
    total = np.logaddexp(0, TAU * an).sum(0)  # log prod_i (1 + e^{tau a_i}), then less the empty set's 1
    np.testing.assert_allclose(soft, (total + np.log(-np.expm1(-total))) / TAU, atol=1e-9)
    assert ((soft - best) >= 0).all() and ((soft - best) <= bound + 1e-12).all()
    assert (bound <= m * math.log(2) / TAU + 1e-12).all()
    r = nla_r2t(a)
    assert r.lower == pytest.approx(float((an.sum(0) * 2 ** (m - 1) / (2**m - 1)).max()), abs=1e-12)
    assert r.lower <= r.estimate <= r.upper < math.inf and r.error_bound == pytest.approx((r.upper - r.lower) / 2)
    scan, subsets = nla_scan(patches, masks, texts)
    unit = torch.nn.functional.normalize(patches, dim=-1).numpy()
    t = texts.numpy() / np.linalg.norm(texts.numpy(), axis=1, keepdims=True)

    def cosine(regions, k):
        v = unit[masks.numpy()[regions].any(0)].sum(0)
        return float(v @ t[k] / np.linalg.norm(v))

    for k in range(8):
        assert scan[k] == pytest.approx(cosine(subsets[:, k].numpy(), k), abs=1e-9)  # a real subset's cosine
        assert scan[k] >= cosine(np.ones(m, dtype=bool), k) - 1e-9  # at least the full set
        assert scan[k] >= max(cosine(np.eye(m, dtype=bool)[i], k) for i in range(m)) - 1e-9  # and every single


# --- the caption tree -----------------------------------------------------------------------


CAPTIONS = [
    "a black dog and a white cat", "a red square to the left of a blue circle", "the man riding a horse", "red", "a dog.",
    "", "...",
]


@pytest.mark.parametrize("caption", CAPTIONS)
def test_tree_is_a_well_formed_tree(caption):
    nodes = parse_tree(caption)
    assert nodes[0].label == "S" and nodes[0].parent is None and nodes[0].text == caption
    for i, n in enumerate(nodes):
        assert n.label in LABELS
        assert n.text == caption[n.chars[0] : n.chars[1]]
        assert n.tokens[0] <= n.tokens[1]
        for c in n.children:
            child = nodes[c]
            assert child.parent == i
            assert n.tokens[0] <= child.tokens[0] and child.tokens[1] <= n.tokens[1]
            assert (child.tokens, child.chars) != (n.tokens, n.chars)
    assert sum(len(n.children) for n in nodes) == len(nodes) - 1


def phrases(caption):
    return {(n.label, n.text) for n in parse_tree(caption)[1:]}


def test_tree_finds_the_phrases():
    assert phrases("a black dog and a white cat") == {("NP", "a black dog"), ("NP", "a white cat")}
    assert {("NP", "a red square"), ("PP", "to the left of a blue circle"), ("NP", "a blue circle")} <= phrases(
        "a red square to the left of a blue circle"
    )
    assert phrases("the man riding a horse") == {("NP", "the man"), ("VP", "riding a horse"), ("NP", "a horse")}
    assert phrases("red") == set()
    assert phrases("a dog.") == {("NP", "a dog")}
    tree = parse_tree("the man riding a horse")
    vp = next(n for n in tree if n.label == "VP")
    assert [tree[c].text for c in vp.children] == ["a horse"]


# --- the scoring method ---------------------------------------------------------------------


def check_evidence(score, grid, limit):
    ev = score.evidence
    m = len(ev.regions)
    assert ev.masks.shape == (m, *grid) and ev.masks.reshape(m, -1).any(axis=1).all()
    assert ev.exact_regions == min(m, limit)
    assert len(ev.alignments) == len(ev.tree) and [a.node for a in ev.alignments] == list(ev.tree)
    for a in ev.alignments:
        assert a.best and max(a.best) < ev.exact_regions and -1 <= a.exact <= 1
        assert a.nla_best and max(a.nla_best) < m
        assert a.nla <= a.exact + 1e-6  # NLA-scan is the cosine of one of the enumerated subsets
        assert a.error == pytest.approx(a.exact - a.nla)
    assert ev.exact_seconds > 0 and ev.nla_seconds > 0
    assert score.value == pytest.approx(np.mean([a.exact for a in ev.alignments]))


def test_method_on_a_world_scene(random_vit):
    image = world.swap_items("id", "attribute", 1)[0].images[0].render(224)
    captions = ["a red square to the left of a blue circle", "red"]
    grid = random_vit.encode_image(image).grid
    for options in ({"regions": "world"}, {}, {"regions": "random", "n_random": 12}):
        method = PowerCLIP(random_vit, **options)
        scores = method.score(image, captions)
        assert [s.caption for s in scores] == captions and all(s.method == "powerclip" for s in scores)
        for s in scores:
            check_evidence(s, grid, 10)
    assert len(scores[0].evidence.regions) == 12
    world_scores = PowerCLIP(random_vit, regions="world").score(image, ["x"])
    assert all(r.source == "world" for r in world_scores[0].evidence.regions)


def test_the_seconds_shown_are_the_enumerations_and_the_scans(random_vit, monkeypatch):
    import time

    from explorer.methods.powerclip import method as powerset_method

    exact = powerset_method.exact_alignment

    def slow_exact(*args, **kwargs):
        time.sleep(0.2)
        return exact(*args, **kwargs)

    monkeypatch.setattr(powerset_method, "exact_alignment", slow_exact)
    image = world.swap_items("id", "attribute", 1)[0].images[0].render(224)
    ev = PowerCLIP(random_vit, regions="world").score(image, ["a red square"])[0].evidence
    assert ev.exact_seconds >= 0.2 > ev.nla_seconds > 0  # the enumeration's time, not the scan's, holds the sleep


def test_a_caption_edit_reads_the_images_groups_and_makes_none(random_vit, monkeypatch):
    from explorer.methods.powerclip import method as powerset_method

    image = world.swap_items("id", "attribute", 1)[0].images[0].render(224)
    method = PowerCLIP(random_vit)
    made = []
    monkeypatch.setattr(powerset_method, "region_groups", lambda *a, **k: made.append(1) or region_groups(*a, **k))
    [first] = method.score(image, ["a red square to the left of a blue circle"])
    assert len(made) == (1 if first.evidence.exact_regions == len(first.evidence.regions) else 2)
    made.clear()
    [edit] = method.score(image, ["a red square to the left of a blue circle on a grey floor"])
    assert made == []
    check_evidence(edit, random_vit.encode_image(image).grid, 10)
    fresh = PowerCLIP(random_vit).score(image, [edit.caption])[0]  # groups made for this caption alone
    assert [(a.exact, a.nla, a.nla_all) for a in edit.evidence.alignments] == \
        [(a.exact, a.nla, a.nla_all) for a in fresh.evidence.alignments]


def test_method_copes_with_a_blank_oblong_image(random_vit):
    [score] = PowerCLIP(random_vit).score(Image.new("RGB", (90, 40), "white"), ["a dog."])
    assert [r.source for r in score.evidence.regions] == ["image"]
    check_evidence(score, random_vit.encode_image(Image.new("RGB", (90, 40), "white")).grid, 10)
    with pytest.raises(ValueError):
        PowerCLIP(random_vit, regions="sam")
