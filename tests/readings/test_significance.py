"""P-values of the binding readings (``explorer/readings/significance.py``): the sign test is exact, the Monte-Carlo p
counts (k + 1) / (n + 1) with a tolerance for float noise, a reading that cannot be tested says so and enters no
family, Holm's adjustment is the textbook step-down (and never smaller when members of its family were not run)."""

import numpy as np
import pytest
from scipy import stats

from explorer.readings.significance import UNTESTED, adjusted, against_draws, holm, sign_test


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


def test_the_sign_test_counts_units_decided_either_way():
    entry = sign_test(30.0, apart=30, reversed_=10, units=100)
    assert entry["null"]["p"] == pytest.approx(stats.binom.sf(29, 40, 0.5), rel=1e-3)
    assert entry["null"]["mean"] == 20.0  # half of the 40 decided units, in percent of 100
    assert sign_test(10.0, 10, 10, 100)["null"]["p"] > 0.5
    assert sign_test(30.0, 30, 10, 100, unit="caption pairs")["null"]["test"].endswith("caption pairs decided")


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
    assert sign_test(0.0, 0, 0, 100)["null"]["p"] is None  # identical sides: nothing decided, nothing to test


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
