"""Gradient-boosted trees as data, evaluated in pure Python.

The scorer is trained with LightGBM (``thresher[train]``) and shipped as the fitted
trees written out as plain arrays, so scanning needs no native library, no numpy and
no import beyond the standard library: ``thresher --help`` start-up is untouched and
every platform gets the same probabilities. Each tree is four parallel arrays —
split feature, threshold, left child, right child — where a negative child ``~i``
names leaf ``i``; a row goes left when its feature value is ``<=`` the threshold,
which is LightGBM's own rule for numerical splits (the exporter refuses any other).

Walking a tree also yields each split's share of the score (the change in the node
value along the path, Saabas' attribution), so every decision can still cite the few
features that moved it, as the logistic scorer's weights did.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class Tree(BaseModel):
    """One regression tree of one class's raw score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    klass: int
    feature: tuple[int, ...] = ()
    threshold: tuple[float, ...] = ()
    left: tuple[int, ...] = ()
    right: tuple[int, ...] = ()
    node_value: tuple[float, ...] = ()  # each split node's own value (for attribution)
    leaf: tuple[float, ...] = (0.0,)

    def check(self, features: int, classes: int) -> str | None:
        """What is wrong with the arrays, or None: a hostile or damaged artifact must
        fail when it is loaded, never loop or index out of range while scanning."""
        splits = len(self.feature)
        if not 0 <= self.klass < classes:
            return f"class {self.klass} out of range"
        if not (len(self.threshold) == len(self.left) == len(self.right) == splits):
            return "split arrays differ in length"
        if len(self.node_value) != splits:
            return "node values do not match the splits"
        if len(self.leaf) != splits + 1:
            return f"{splits} splits need {splits + 1} leaves, got {len(self.leaf)}"
        if any(not 0 <= f < features for f in self.feature):
            return "a split names a feature out of range"
        for node, (lo, hi) in enumerate(zip(self.left, self.right, strict=True)):
            for child in (lo, hi):
                # Children point forward (a node's children come after it), so a walk
                # always ends: no cycle can be written in this form.
                if child >= 0 and not node < child < splits:
                    return f"split {node} has a child {child} out of order"
                if child < 0 and not 0 <= ~child <= splits:
                    return f"split {node} names leaf {~child} out of range"
        return None


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
