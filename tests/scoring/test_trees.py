"""The shipped trees are LightGBM's trees: exported, walked in pure Python, the same
scores; and a damaged artifact fails when it is loaded, not while scanning."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from thresher.scoring.model import (
    ARTIFACT_FORMAT,
    CLASSES,
    Artifact,
    OperatingPoint,
    Scorer,
    ScorerError,
    shipped_scorer,
)
from thresher.scoring.samples import Sample
from thresher.scoring.train import (
    PRIORS,
    export_trees,
    fit_booster,
    fit_trees,
    matrix,
    prior_margin,
)
from thresher.scoring.trees import Forest, Tree

np = pytest.importorskip("numpy")


# The plain walk over the node arrays: the reference the compiled forest must agree with.
def predict(trees: Sequence[Tree], row: Sequence[float], classes: int) -> list[float]:
    """Raw scores (one per class) of a dense feature row."""
    scores = [0.0] * classes
    for tree in trees:
        feature, threshold, left, right = tree.feature, tree.threshold, tree.left, tree.right
        node = 0 if feature else -1
        while node >= 0:
            node = left[node] if row[feature[node]] <= threshold[node] else right[node]
        scores[tree.klass] += tree.leaf[~node]
    return scores


def attribute(
    trees: Sequence[Tree], row: Sequence[float], weights: Sequence[float]
) -> dict[int, float]:
    """Feature index -> its share of ``sum(weights[c] * score[c])`` along each path."""
    shares: dict[int, float] = {}
    for tree in trees:
        weight = weights[tree.klass]
        if not weight or not tree.feature:
            continue
        feature, threshold, left, right = tree.feature, tree.threshold, tree.left, tree.right
        node = 0
        while node >= 0:
            split = feature[node]
            nxt = left[node] if row[split] <= threshold[node] else right[node]
            after = tree.node_value[nxt] if nxt >= 0 else tree.leaf[~nxt]
            shares[split] = shares.get(split, 0.0) + weight * (after - tree.node_value[node])
            node = nxt
    return shares


lgb = pytest.importorskip("lightgbm")

POINT = OperatingPoint(real_threshold=0.5, band_low=0.1, band_high=0.9)


def _samples(n: int = 400) -> list[Sample]:
    """Synthetic findings whose label depends on an interaction of two features."""
    rng = random.Random(7)
    samples = []
    for i in range(n):
        a, b, c = rng.random(), rng.random(), rng.random()
        features = {"bias": 1.0, "alpha": a, "beta": b, "gamma": c}
        if rng.random() < 0.2:
            features["value_boolean"] = 1.0  # a prior fires
        label = "real" if (a > 0.5) != (b > 0.5) else ("test" if c > 0.5 else "not_secret")
        samples.append(Sample(group=f"repo{i % 10}", features=features, labels={label: 1}))
    return samples


def test_exported_trees_score_exactly_as_lightgbm() -> None:
    samples = _samples()
    names, booster = fit_booster(samples)
    trees = export_trees(booster.dump_model())
    x = matrix(samples, names)
    expected = booster.predict(x, raw_score=True)
    ours = np.array([predict(trees, list(row), len(CLASSES)) for row in x])
    assert np.allclose(ours, expected, atol=1e-5)
    # And the scorer adds the priors the booster started from.
    scorer = Scorer(
        Artifact(
            format=ARTIFACT_FORMAT,
            classes=CLASSES,
            features=names,
            priors=PRIORS,
            trees=trees,
            operating_point=POINT,
            training={},
        )
    )
    logits = expected + prior_margin(samples)
    softmax = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    for sample, row in zip(samples, softmax, strict=True):
        assert scorer.raw_probabilities(sample.features)[0] == pytest.approx(row[0], abs=1e-5)


def test_the_trees_learn_an_interaction_a_linear_model_cannot() -> None:
    samples = _samples()
    names, trees = fit_trees(samples)
    row = dict.fromkeys(names, 0.0)

    def p_real(a: float, b: float) -> float:
        scores = predict(trees, list({**row, "bias": 1.0, "alpha": a, "beta": b}.values()), 3)
        exps = [np.exp(s) for s in scores]
        return float(exps[0] / sum(exps))

    assert p_real(0.9, 0.1) > 0.8 and p_real(0.1, 0.9) > 0.8
    assert p_real(0.9, 0.9) < 0.2 and p_real(0.1, 0.1) < 0.2


def test_attributions_add_up_to_the_score_minus_the_roots() -> None:
    samples = _samples()
    names, trees = fit_trees(samples)
    row = list(matrix(samples[:1], names)[0])
    weights = (1.0, -0.5, -0.5)
    scores = predict(trees, row, 3)
    margin = sum(w * s for w, s in zip(weights, scores, strict=True))
    roots = sum(weights[t.klass] * (t.node_value[0] if t.feature else t.leaf[0]) for t in trees)
    shares = attribute(trees, row, weights)
    assert sum(shares.values()) == pytest.approx(margin - roots, abs=1e-6)


@pytest.mark.parametrize(
    ("tree", "problem"),
    [
        (
            Tree(
                klass=0,
                feature=(0,),
                threshold=(0.5,),
                left=(0,),
                right=(~1,),
                node_value=(0.0,),
                leaf=(1.0, 2.0),
            ),
            "out of order",
        ),
        (
            Tree(
                klass=0,
                feature=(9,),
                threshold=(0.5,),
                left=(~0,),
                right=(~1,),
                node_value=(0.0,),
                leaf=(1.0, 2.0),
            ),
            "feature out of range",
        ),
        (Tree(klass=5, leaf=(1.0,)), "class 5"),
        (
            Tree(
                klass=0,
                feature=(0,),
                threshold=(0.5,),
                left=(~0,),
                right=(~7,),
                node_value=(0.0,),
                leaf=(1.0, 2.0),
            ),
            "leaf 7",
        ),
    ],
)
def test_a_damaged_tree_is_refused_when_loaded(tree: Tree, problem: str) -> None:
    artifact = Artifact(
        format=ARTIFACT_FORMAT,
        classes=CLASSES,
        features=("bias", "alpha"),
        trees=(tree,),
        operating_point=POINT,
        training={},
    )
    with pytest.raises(ScorerError, match=f"tree 0: .*{problem}"):
        Scorer(artifact, name="damaged")


def test_the_shipped_scorer_cites_features_present_or_absent() -> None:
    scorer = shipped_scorer()
    assessment = scorer.assess_features({"bias": 1.0, "value_boolean": 1.0, "key_password": 1.0})
    names = [f.feature for f in assessment.top_features]
    assert names and all(
        n in scorer.artifact.features or n in PRIORS or n.startswith("no ") for n in names
    )
    assert assessment.p_real < scorer.operating_point.real_threshold


def test_the_compiled_forest_agrees_with_the_reference_walk() -> None:
    samples = _samples()
    names, trees = fit_trees(samples)
    margin = (0.5, -0.25, -0.25)
    forest = Forest(trees, margin)
    for row in matrix(samples[:50], names):
        scores, shares = forest.evaluate(list(row), 3)
        assert scores == pytest.approx(predict(trees, list(row), 3), abs=1e-12)
        expected = attribute(trees, list(row), margin)
        assert shares.keys() == expected.keys()
        for key, value in expected.items():
            assert shares[key] == pytest.approx(value, abs=1e-9)


def test_a_tree_too_deep_to_compile_is_refused() -> None:
    n = 100  # a chain: each split's left child is the next split
    tree = Tree(
        klass=0,
        feature=(0,) * n,
        threshold=(0.5,) * n,
        left=(*range(1, n), ~0),
        right=tuple(~(i + 1) for i in range(n)),
        node_value=(0.0,) * n,
        leaf=(0.0,) * (n + 1),
    )
    assert "deeper than" in (tree.check(1, 3) or "")


def test_the_shipped_forest_sums_exactly_as_the_plain_walk() -> None:
    # Bit for bit, not approximately: the scores and shares a scan reports must not move
    # when the forest's evaluation is rewritten.
    scorer = shipped_scorer()
    trees = scorer.artifact.trees
    forest = Forest(trees, (1.0, -0.5, -0.5))
    rng = random.Random(3)
    width = len(scorer.artifact.features)
    for _ in range(200):
        row = [rng.choice((0.0, 1.0, rng.random())) for _ in range(width)]
        scores, shares = forest.evaluate(row, 3)
        assert scores == predict(trees, row, 3)
        expected = attribute(trees, row, (1.0, -0.5, -0.5))
        assert shares == {j: v for j, v in sorted(expected.items()) if v}


def test_a_forest_of_one_feature_and_numbers_that_are_not_finite() -> None:
    tree = Tree(
        klass=1,
        feature=(0, 0),
        threshold=(float("inf"), 0.5),
        left=(1, ~0),
        right=(~2, ~1),
        node_value=(0.0, float("-inf")),
        leaf=(1.0, float("nan"), 3.0),
    )
    assert tree.check(1, 3) is None
    trees = (tree, Tree(klass=0, leaf=(0.25,)))
    margin = (0.5, -0.25, -0.25)
    forest = Forest(trees, margin)
    for x in (0.2, 0.7, float("inf")):  # leaf 0, leaf 1; inf goes left, then right
        scores, shares = forest.evaluate([x], 3)
        # repr: NaN is no number equal to itself
        assert repr(scores) == repr(predict(trees, [x], 3))
        assert repr(shares) == repr(attribute(trees, [x], margin))
    assert math.isnan(forest.evaluate([0.7], 3)[0][1])


def test_a_forest_that_splits_on_nothing_scores_its_leaves() -> None:
    forest = Forest((Tree(klass=0, leaf=(0.5,)), Tree(klass=2, leaf=(-1.0,))), (1.0, -0.5, -0.5))
    assert forest.evaluate([1.0, 0.0], 3) == ([0.5, 0.0, -1.0], {})
    assert Forest((), (1.0, -0.5, -0.5)).evaluate([], 3) == ([0.0, 0.0, 0.0], {})
