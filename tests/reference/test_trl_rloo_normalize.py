"""advantages.rloo, convention="trl", normalize=True: TRL head RLOOTrainer gives a row with no scorable
sibling the baseline 0/0 = nan, so it is left out of the nanmean/nanstd of the normalisation and only
then set to 0. Expected values are hand arithmetic."""

import math

import pytest

from checkers.reference import call

NAN = float("nan")


def rloo(scores, g, normalize):
    out = call("advantages.rloo", scores=scores, group_size=g, normalize=normalize, convention="trl", device="cpu")
    return [float(x) for x in out["advantages"]]


def test_lone_scorable_and_unscorable_rows_stay_out_of_the_statistics():
    # groups of 2: [1, 3] → A = [1 − 3, 3 − 1] = [−2, 2]; [nan, nan] → unscorable; [5, nan] → 5 has no
    # scorable sibling (0/0). Statistics over [−2, 2] only: mean 0, unbiased std √((4 + 4)/1) = 2√2.
    got = rloo([1.0, 3.0, NAN, NAN, 5.0, NAN], 2, True)
    d = 2 * math.sqrt(2.0) + 1e-4
    assert got == pytest.approx([-2 / d, 2 / d, 0.0, 0.0, 0.0, 0.0], abs=1e-12)


def test_groups_of_three():
    # [1, 2, 6]: A = [1 − 4, 2 − 3.5, 6 − 1.5] = [−3, −1.5, 4.5]; [4, nan, nan]: 4 is alone → 0.
    # mean 0; unbiased var (9 + 2.25 + 20.25)/2 = 15.75.
    got = rloo([1.0, 2.0, 6.0, 4.0, NAN, NAN], 3, True)
    d = math.sqrt(15.75) + 1e-4
    assert got == pytest.approx([-3 / d, -1.5 / d, 4.5 / d, 0.0, 0.0, 0.0], abs=1e-12)


def test_without_normalize_unchanged():
    assert rloo([1.0, 3.0, NAN, NAN, 5.0, NAN], 2, False) == pytest.approx([-2.0, 2.0, 0.0, 0.0, 0.0, 0.0])
