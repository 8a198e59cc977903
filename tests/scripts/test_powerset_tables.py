"""scripts/powerset_tables.py at a tiny size: the shape of what it writes, and invariants its figures must keep."""

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer.methods.powerclip.alignment import exact_alignment, nla_max, region_scores, subset_masks

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "powerset_tables.py"
DOC_JSON = Path(__file__).resolve().parents[2] / "docs" / "results" / "powerset-tables.json"
QUANTITIES = {
    "nla_max_vs_enumerated", "nla_soft_vs_enumerated_lse", "soft_minus_max", "soft_minus_max_min", "soft_gap_bound",
    "soft_gap_slack_min", "r2t_estimate_vs_enumerated", "r2t_error_bound", "r2t_slack", "surrogate_max_vs_cosine_max",
    "surrogate_soft_vs_cosine_soft", "surrogate_jaccard", "scan_vs_cosine_max", "scan_below_cosine_max_min",
    "scan_above_floor_min", "scan_jaccard",
}
TIMES = ("exact_ms", "plain_ms", "nla_max_ms", "nla_scan_ms", "exact_ms_cpu", "nla_max_ms_cpu")


@pytest.fixture(scope="module")
def pt():
    spec = importlib.util.spec_from_file_location("powerset_tables", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_errors(errors):
    assert set(errors) == {"iid", "cone"}
    for row in errors.values():
        assert set(row) == QUANTITIES and all(math.isfinite(v) for v in row.values())
        assert row["nla_max_vs_enumerated"] < 1e-9 and row["nla_soft_vs_enumerated_lse"] < 1e-9
        assert row["soft_minus_max_min"] >= -1e-12 and row["soft_gap_slack_min"] >= -1e-12  # 0 <= soft - max <= bound
        assert row["soft_minus_max"] <= row["soft_gap_bound"] + 1e-12
        assert row["r2t_slack"] >= -1e-9 and row["r2t_estimate_vs_enumerated"] <= row["r2t_error_bound"] + 1e-9
        assert row["scan_below_cosine_max_min"] >= -1e-9 and row["scan_above_floor_min"] >= -1e-9  # (i)
        assert 0 <= row["surrogate_jaccard"] <= 1 and 0 <= row["scan_jaccard"] <= 1


def check_times(time):
    for rows in time.values():
        for row in rows.values():
            for name, value in row.items():
                if name.endswith("_iqr"):
                    assert 0 < value[0] <= row[name[: -len("_iqr")]] <= value[1]
                else:
                    assert value > 0 and math.isfinite(value)
    enumerated = [row for rows in time.values() for row in rows.values() if "exact_ms" in row]
    assert enumerated and all(set(TIMES) <= set(row) for row in enumerated)
    for row in enumerated:
        for fast in ("nla_max", "nla_scan"):
            for slow in ("exact", "plain"):
                ratio = row[f"{fast}_speedup_vs_{slow}"]
                assert ratio > 0 and math.isfinite(ratio)


def test_tiny_run_has_the_shape_and_keeps_the_invariants(pt, embedded):
    torch.manual_seed(0)
    report = pt.tables(embedded, quick=True)
    assert set(report) == {"time", "errors", "world_clip"}
    check_times(report["time"])
    check_errors(report["errors"])
    for source in ("random", "segments"):
        row = report["world_clip"][source]
        assert row["images"] == 2 and 1 <= row["mean_regions"] <= 4
        assert row["scan_below_exact_min"] >= -1e-9  # NLA-scan is the cosine of a subset: never above the maximum
        assert row["scan_below_exact_mean"] <= row["scan_below_exact_max"]
        assert row["surrogate_off_max"] == pytest.approx(brute_surrogate_gap(embedded, source), abs=1e-9)


def brute_surrogate_gap(encoder, source, m=4):
    """The quick run's ``surrogate_off_max``, by plain enumeration (``test_powerset``'s loops) of the same cases:
    the largest |max over subsets of the surrogate - max over subsets of the cosine| over nodes and images."""
    from explorer import world
    from explorer.language.tree import parse_tree
    from explorer.methods.powerclip.method import PowerCLIP
    from tests.methods.test_powerset import brute_cosines, brute_surrogate

    item = world.swap_items("heldout", "attribute", 1)[0]
    nodes = [node.text for c in item.captions for node in parse_tree(c)]
    texts = torch.stack([f.embedding for f in encoder.encode_texts(nodes)]).double().numpy()
    gaps = []
    for i, scene in enumerate(item.images):
        image = scene.render(encoder.image_size)
        method = PowerCLIP(encoder, regions=source, n_random=m, seed=i, max_regions=m)
        _, masks = method.region_masks(image, encoder.encode_image(image).grid)
        patches = torch.nn.functional.normalize(encoder.encode_image(image).patches.double(), dim=-1).numpy()
        surrogate = np.array(list(brute_surrogate(patches, masks.numpy(), texts).values())).max(0)
        cosine = np.array(list(brute_cosines(patches, masks.numpy(), texts).values())).max(0)
        gaps.append(np.abs(surrogate - cosine).max())
    return float(max(gaps))


def test_the_draws_are_what_they_say(pt):
    p, b, t = pt.cone_problem(6, 40, 16, 3, seed=1)
    assert (b.sum(0) <= 1).all() and b.any(1).all()  # disjoint, non-empty object masks
    v = torch.stack([torch.nn.functional.normalize(p, dim=-1)[mask].sum(0) for mask in b])
    assert (v @ v.T >= 0).all()  # a cone: F3's condition, so the surrogate max lies in [c(all), max(0, max c)]
    surrogate = nla_max(region_scores(p, b, t))
    exact = exact_alignment(p, b, t)
    full = pt.subset_similarities_full(p, b, t)
    assert (full - 1e-9 <= surrogate).all() and (surrogate <= exact.best.clamp_min(0) + 1e-9).all()
    p, b, t = pt.iid_problem(5, 20, 8, 2, seed=2)
    assert p.dtype == torch.float64 and b.any(1).all() and (b.sum(0) > 1).any()  # overlapping masks
    assert torch.equal(pt.iid_problem(5, 20, 8, 2, seed=2)[0], p)  # fixed seeds


def test_plain_enumeration_agrees_with_the_grouped_one(pt):
    p, b, t = pt.iid_problem(6, 30, 16, 4, seed=3)
    best, soft, r2t = pt.plain_enumeration(p, b, t)
    exact = exact_alignment(p, b, t)
    torch.testing.assert_close(best, exact.best, atol=1e-9, rtol=0)
    torch.testing.assert_close(soft, exact.soft, atol=1e-9, rtol=0)
    assert r2t == pytest.approx(exact.r2t, abs=1e-9)
    assert len(subset_masks(6)) == 63


def test_the_committed_tables_keep_the_invariants():
    report = json.loads(DOC_JSON.read_text())
    assert report["command"] == "python scripts/powerset_tables.py"
    env = report["environment"]
    assert env["threads"] == 1 and env["dtype"] == "float64" and len(env["load_average_start"]) == 3
    assert set(report["time"]) == {"m12", "m14", "m64"} and set(report["time"]["m12"]) == {"n49", "n196"}
    check_times(report["time"])
    assert all(row["nla_max_speedup_vs_exact"] > 1 for row in report["time"]["m14"].values())
    check_errors(report["errors"])
    assert {"random", "segments"} == set(report["world_clip"])
