"""P-values of the binding readings (``explorer/readings/significance.py``): the swap pairs' sign-flip test is exact,
the Monte-Carlo p counts (k + 1) / (n + 1) with a tolerance for float noise, a reading that cannot be tested says so
and enters no family, Holm's adjustment is the textbook step-down (and never smaller when members of its family were
not run), and an above-chance reading shows binding only where its effect clears the smallest one."""

import itertools

import numpy as np
import pytest

from explorer.readings.significance import (
    NEGLIGIBLE, SHOWS, SMALLEST, UNTESTED, adjusted, against_draws, holm, pair_test,
)


def test_holm_is_the_step_down_adjustment():
    p = {"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5}
    assert holm(p) == pytest.approx({"a": 0.04, "b": 0.09, "c": 0.09, "d": 0.5})  # 4 x, 3 x (monotone), 2 x, 1 x
    assert holm({"x": 0.9, "y": 0.8}) == {"x": 1.0, "y": 1.0}


def test_holm_over_part_of_a_family_is_never_bolder_than_over_all_of_it():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = dict(zip("abcdefghij", rng.random(10) ** 3))
        part = {k: p[k] for k in "abcd"}
        whole, alone = holm(p), holm(part, family=10)
        assert all(alone[k] >= whole[k] for k in part)
    assert holm({"a": 0.001}, family=22) == {"a": 0.022}


def test_the_pair_test_is_the_exact_sign_flip_test_over_pairs():
    rng = np.random.default_rng(0)
    renders = rng.integers(1, 4, 10)
    apart = np.array([rng.integers(0, n + 1) for n in renders])
    wrong = np.array([rng.integers(0, n - a + 1) for a, n in zip(apart, renders)])
    entry = pair_test(apart, wrong, renders)
    d = (apart - wrong) / renders
    flips = np.array([np.dot(s, d) for s in itertools.product((1, -1), repeat=len(d))])  # all 1024 sign patterns
    assert entry["null"]["p"] == pytest.approx(np.mean(flips >= d.sum() - 1e-12), rel=1e-3)
    assert entry["value"] == pytest.approx(100 * np.mean(apart / renders), abs=0.01)
    assert entry["null"]["mean"] == pytest.approx(50 * np.mean((apart + wrong) / renders), abs=0.01)
    assert entry["effect"]["value"] == pytest.approx(50 * d.mean(), abs=0.011)
    assert entry["null"]["units"] == 10 and entry["null"]["unit"] == "pairs"
    low, high = entry["effect"]["interval"]
    assert low <= entry["effect"]["value"] <= high


def test_renders_of_a_pair_count_once_however_many_there_are():
    one = pair_test([3, 0, 2], [0, 1, 0], [4, 4, 4])
    many = pair_test([30, 0, 20], [0, 10, 0], [40, 40, 40])  # the same shares, ten times the renders: the same p
    assert one["null"]["p"] == many["null"]["p"] == pytest.approx(2 / 8)
    assert pair_test([1, 1], [1, 1], [2, 2])["null"]["p"] is None  # no pair leans either way: nothing to test


def test_the_monte_carlo_p_is_the_share_at_or_above_plus_one():
    draws = np.random.default_rng(0).normal(50, 2, 500)
    far, near = against_draws(70.0, draws), against_draws(50.0, draws)
    assert far["null"]["p"] == pytest.approx(1 / 501, rel=1e-3) and far["null"]["at_or_above"] == 0
    k = int((draws >= 50.0).sum())
    assert near["null"]["p"] == pytest.approx((k + 1) / 501, rel=1e-3) and near["null"]["at_or_above"] == k
    assert far["null"]["mean"] == pytest.approx(draws.mean(), abs=0.01)
    ties = against_draws(60.0, [60.0] * 3 + [50.0] * 497)
    assert ties["null"]["at_or_above"] == 3  # a draw equal to the value counts against it
    stopped = against_draws(60.0, [61.0] * 10 + [50.0] * 40, stopped=True)
    assert stopped["null"]["p"] == pytest.approx(10 / 50)  # Besag and Clifford: k / n when drawing stopped at k


def test_float_noise_is_no_difference_and_a_reading_the_flips_cannot_move_is_not_tested():
    flat = 94.14 + 1e-14 * np.random.default_rng(0).normal(size=500)  # thirty... five hundred equal draws
    one_step_up = against_draws(94.14 + 1e-12, flat)
    assert one_step_up["null"]["p"] is None and "cannot move" in one_step_up["null"]["untested"]
    assert against_draws(95.0, flat)["null"]["p"] == pytest.approx(1 / 501, rel=1e-3)  # a real difference counts
    assert against_draws(90.0, flat)["null"]["p"] == 1.0
    for value, draws in ((float("nan"), [1.0, 2.0]), (1.0, [1.0, float("nan")])):
        assert "not a number" in against_draws(value, draws)["null"]["untested"]
    assert pair_test([0] * 5, [0] * 5, [8] * 5)["null"]["p"] is None  # identical sides: nothing decided


def test_the_reading_follows_the_adjusted_p_and_an_untested_one_enters_no_family():
    draws = np.random.default_rng(1).normal(50, 2, 500)
    entries = {f"r{i}": against_draws(v, draws) for i, v in enumerate([70.0, 53.5, 50.0, 40.0])}
    entries["flat"] = against_draws(5.0, [5.0] * 500)
    read = adjusted(entries)
    assert read["r0"]["reading"] == "above chance"
    assert read["r1"]["null"]["p"] < 0.05 < read["r1"]["null"]["p_adjusted"]  # nominally below 0.05, not after Holm
    assert read["r1"]["reading"] == "at chance" and read["r3"]["reading"] == "below chance"
    assert read["flat"]["reading"] == UNTESTED and read["flat"]["null"]["p_adjusted"] is None
    assert read["r0"]["null"]["family"] == 4  # four tested, the flat one not among them
    assert read["r1"]["null"]["p_adjusted"] == pytest.approx(min(1, 3 * read["r1"]["null"]["p"]), rel=1e-3)


def test_an_above_chance_reading_shows_binding_only_where_its_effect_clears_the_smallest():
    draws = np.random.default_rng(2).normal(50, 0.1, 500)
    read = adjusted({"big": against_draws(55.0, draws), "tiny": against_draws(50.6, draws),
                     "none": against_draws(50.0, draws)})
    assert read["big"]["binding"] == SHOWS and read["big"]["effect"]["interval"][0] >= SMALLEST
    assert read["tiny"]["reading"] == "above chance" and read["tiny"]["binding"] == NEGLIGIBLE
    assert read["none"]["binding"] is None
    assert read["tiny"]["effect"]["value"] == pytest.approx(50.6 - read["tiny"]["null"]["mean"], abs=0.01)
