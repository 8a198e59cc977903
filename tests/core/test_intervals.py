"""Bootstrap intervals: seeded, around the score, as wide as the count of items says."""

import numpy as np
import pytest

from explorer.core.intervals import percent_intervals


def test_intervals_hold_the_score_and_shrink_with_more_items():
    rng = np.random.default_rng(3)
    few, many = rng.random(50) < 0.6, rng.random(2000) < 0.6
    (lo_few, hi_few), = percent_intervals(few)
    (lo_many, hi_many), = percent_intervals(many)
    assert lo_few <= 100 * few.mean() <= hi_few and lo_many <= 100 * many.mean() <= hi_many
    assert (hi_many - lo_many) < (hi_few - lo_few) / 3  # width ~ 1 / sqrt(n)
    assert hi_many - lo_many == pytest.approx(2 * 1.96 * 100 * np.sqrt(0.6 * 0.4 / 2000), rel=0.2)


def test_intervals_are_seeded_and_per_column():
    hits = np.array([[True, False], [True, True], [False, False], [True, True]] * 10)
    assert percent_intervals(hits) == percent_intervals(hits)
    varied = np.random.default_rng(0).random((333, 1)) < 0.37
    assert percent_intervals(varied, seed=1) != percent_intervals(varied, seed=2)  # the seed is what fixes them
    (a_lo, a_hi), (b_lo, b_hi) = percent_intervals(hits)
    assert b_hi < a_hi  # the second column scores lower
    assert percent_intervals(np.ones((30, 1), bool)) == [[100.0, 100.0]]  # no spread without disagreement
    assert percent_intervals(np.zeros((0, 3), bool)) == [[0.0, 0.0]] * 3
