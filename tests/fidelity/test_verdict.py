"""The fidelity suite's verdict (bench/fidelity/fidelity.py) on made-up rows: the tolerances by
confidence, the mean absolute error over counted rows only, and the failure when nothing counts."""
import math

import pytest

import fidelity
from fidelity import Row, Verdict, format_table


def row(conf, ratio, counted=True, case="C-1"):
    return Row(case=case, conf=conf, what="figure", measured=200.0, simulated=200.0 * ratio,
               unit="ns", counted=counted)


def test_error_is_relative_to_the_measurement():
    r = row("H", 1.08)
    assert r.ratio == pytest.approx(1.08)
    assert r.error == pytest.approx(0.08)
    assert row("H", 0.92).error == pytest.approx(0.08)


@pytest.mark.parametrize("conf,ratio,within", [
    ("H", 1.099, True), ("H", 1.101, False), ("H", 0.899, False),
    ("M", 1.249, True), ("M", 0.76, True), ("M", 1.251, False), ("M", 0.74, False)])
def test_tolerance_follows_the_confidence(conf, ratio, within):
    assert row(conf, ratio).within is within


def test_passes_only_with_every_row_inside_and_a_small_mean_error():
    assert Verdict([row("H", 1.02), row("M", 0.97), row("M", 1.04)]).passed
    # Every row inside its tolerance, but the mean absolute error is 7%.
    v = Verdict([row("H", 1.07), row("M", 0.93)])
    assert v.mae == pytest.approx(0.07)
    assert not v.outside and not v.passed
    # One row outside fails even with a small mean.
    v = Verdict([row("H", 1.11)] + [row("M", 1.0)] * 9)
    assert v.mae < 0.05 and [r.ratio for r in v.outside] == [pytest.approx(1.11)]
    assert not v.passed


def test_uncounted_rows_are_printed_not_judged():
    v = Verdict([row("H", 1.0), row("M", 3.0, counted=False)])
    assert v.passed and v.mae == 0.0 and len(v.counted) == 1
    text = format_table(v.rows, v)
    assert "(not counted)" in text and "mean absolute error: 0.00%" in text
    assert not Verdict([row("H", 1.0, counted=False)]).passed  # nothing judged: no pass


def test_a_zero_measurement_has_no_ratio():
    r = Row("C-9", "M", "x", 0.0, 1.0, "us")
    assert math.isnan(r.ratio) and not r.within


def test_known_gaps_are_not_judged_until_they_close(monkeypatch):
    monkeypatch.setattr(fidelity, "KNOWN_GAPS", {("C-6", "gap"): "why"})
    gap = Row("C-6", "H", "gap", 100.0, 50.0, "%")
    v = Verdict([row("H", 1.0), gap])
    assert v.passed and v.gaps == [gap] and len(v.counted) == 1 and v.mae == 0.0
    assert "known gap C-6 gap: why" in format_table(v.rows, v)
    closed = Row("C-6", "H", "gap", 100.0, 95.0, "%")  # within 10%: the list is stale
    v = Verdict([row("H", 1.0), closed])
    assert v.stale_gaps == [closed] and not v.passed
