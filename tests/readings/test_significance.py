"""P-values of the binding readings (``explorer/readings/significance.py``): the sign test is exact, the normal fit
to null draws can go below 1 / draws, Holm's adjustment is the textbook step-down."""

import numpy as np
import pytest
from scipy import stats

from explorer.readings.significance import adjusted, against_draws, holm, sign_test


def test_holm_is_the_step_down_adjustment():
    p = {"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5}
    assert holm(p) == pytest.approx({"a": 0.04, "b": 0.09, "c": 0.09, "d": 0.5})  # 4 x, 3 x (monotone), 2 x, 1 x
    assert holm({"x": 0.9, "y": 0.8}) == {"x": 1.0, "y": 1.0}


def test_the_sign_test_counts_renders_decided_either_way():
    entry = sign_test(30.0, apart=30, reversed_=10, renders=100)
    assert entry["null"]["p"] == pytest.approx(stats.binom.sf(29, 40, 0.5), rel=1e-3)
    assert entry["null"]["mean"] == 20.0  # half of the 40 decided renders, in percent of 100
    assert sign_test(0.0, 0, 0, 100)["null"]["p"] == 1.0  # identical sides: nothing decided, nothing to find
    assert sign_test(10.0, 10, 10, 100)["null"]["p"] > 0.5


def test_a_normal_fit_to_the_draws_reaches_below_one_over_draws():
    draws = np.random.default_rng(0).normal(50, 2, 30)
    far, near = against_draws(70.0, draws), against_draws(50.0, draws)
    assert far["null"]["p"] < 1 / 31 / 100 and near["null"]["p"] > 0.3
    assert against_draws(5.0, [5.0] * 10)["null"]["p"] == 1.0  # a reading the flips cannot move
    assert far["null"]["mean"] == pytest.approx(draws.mean(), abs=0.01)


def test_the_reading_follows_the_adjusted_p():
    draws = np.random.default_rng(1).normal(50, 2, 30)
    entries = {f"r{i}": against_draws(v, draws) for i, v in enumerate([70.0, 53.5, 50.0, 40.0])}
    read = adjusted(entries)
    assert read["r0"]["reading"] == "above chance"
    assert read["r1"]["null"]["p"] < 0.05 < read["r1"]["null"]["p_adjusted"]  # nominally below 0.05, not after Holm
    assert read["r1"]["reading"] == "at chance" and read["r3"]["reading"] == "below chance"
