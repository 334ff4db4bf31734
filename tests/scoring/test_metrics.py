"""Average precision and precision at recall, as scikit-learn defines them."""

from __future__ import annotations

from thresher.scoring.metrics import average_precision, pr_curve, precision_at_recall


def test_average_precision_of_a_perfect_and_a_reversed_ranking() -> None:
    perfect = [(0.9, True, 1.0), (0.8, True, 1.0), (0.2, False, 1.0), (0.1, False, 1.0)]
    assert average_precision(perfect) == 1.0
    reversed_ = [(0.9, False, 1.0), (0.8, False, 1.0), (0.2, True, 1.0), (0.1, True, 1.0)]
    # recall 0.5 at precision 1/3, recall 1.0 at precision 2/4
    assert average_precision(reversed_) == round(0.5 * (1 / 3) + 0.5 * 0.5, 4)


def test_ties_are_one_threshold_and_weights_count_lines() -> None:
    tied = [(0.5, True, 1.0), (0.5, False, 1.0)]
    assert average_precision(tied) == 0.5
    weighted = [(0.9, True, 3.0), (0.1, False, 1.0)]
    assert average_precision(weighted) == 1.0


def test_precision_at_recall_takes_the_best_threshold_that_keeps_the_recall() -> None:
    points = [(0.9, True, 1.0), (0.8, True, 1.0), (0.7, False, 1.0), (0.1, True, 1.0)]
    assert precision_at_recall(points, 0.6) == 1.0  # the 0.8 threshold keeps 2 of 3
    assert precision_at_recall(points, 0.9) == 0.75
    assert precision_at_recall([], 0.9) == 0.0


def test_pr_curve_is_thinned_but_keeps_both_ends() -> None:
    """A few hundred points draw the same line as thousands of distinct scores."""
    many = [(i / 5000, i % 3 == 0, 1.0) for i in range(5000)]
    curve = pr_curve(many)
    assert 2 <= len(curve) < 500
    assert curve[-1].recall == 1.0
    assert curve[0].threshold > curve[-1].threshold
    assert pr_curve([(0.5, False, 1.0)]) == []  # no real line: no curve
