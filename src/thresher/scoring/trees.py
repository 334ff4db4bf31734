"""Gradient-boosted trees as data, evaluated in pure Python.

The scorer is trained with LightGBM (``thresher[train]``) and shipped as the fitted
trees written out as plain arrays, so scanning needs no native library, no numpy and
no import beyond the standard library: ``thresher --help`` start-up is untouched and
every platform gets the same probabilities. Each tree is four parallel arrays —
split feature, threshold, left child, right child — where a negative child ``~i``
names leaf ``i``; a row goes left when its feature value is ``<=`` the threshold,
which is LightGBM's own rule for numerical splits (the exporter refuses any other).

Each split's share of the score (the change in the node value along the path,
Saabas' attribution) is precomputed per leaf, so every decision can still cite the few
features that moved it, as the logistic scorer's weights did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from operator import getitem
from typing import cast

from pydantic import BaseModel, ConfigDict

# Far beyond what training grows (15 leaves), well within what Python compiles.
MAX_DEPTH = 64


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
        depth = [0] * splits
        for node in range(splits):  # children come after parents: one forward pass
            for child in (self.left[node], self.right[node]):
                if child >= 0:
                    depth[child] = depth[node] + 1
        if splits and max(depth) >= MAX_DEPTH:
            return f"deeper than {MAX_DEPTH} levels"
        return None


class Forest:
    """The trees compiled once into one Python expression per forest, for speed.

    A loop over node arrays costs an interpreted step per node; a nested conditional
    expression costs one comparison per level, about ten times less, which is what keeps
    the scorer under a millisecond per candidate. The expression is built from nothing
    but integers this class formats itself (feature indices, threshold indices, leaf
    indices, all checked by ``Tree.check`` before), and the thresholds are passed in as a
    tuple, so no text of the artifact is ever compiled. It returns the leaf each tree
    reaches; each leaf's score and its path's shares (Saabas) are looked up, precomputed.
    """

    def __init__(self, trees: Sequence[Tree], margin: Sequence[float]) -> None:
        thresholds: list[float] = []
        parts = [self._expression(tree, 0 if tree.feature else -1, thresholds) for tree in trees]
        source = "lambda r, T: (" + "".join(f"{p}," for p in parts) + ")"
        code = compile(source, "<thresher-forest>", "eval")
        # The source is integers and fixed syntax only (see the class docstring).
        self._leaves = eval(code, {"__builtins__": {}})  # noqa: S307
        self._thresholds = tuple(thresholds)
        self._classes = tuple(tree.klass for tree in trees)
        self._values = tuple(tree.leaf for tree in trees)
        paths = tuple(_leaf_paths(tree, margin[tree.klass]) for tree in trees)
        # Per tree, per leaf: the features of its path, and their changes, apart.
        self._paths_f: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(path[0] for path in leaves) for leaves in paths
        )
        self._paths_c: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
            tuple(path[1] for path in leaves) for leaves in paths
        )

    def _expression(self, tree: Tree, node: int, thresholds: list[float]) -> str:
        if node < 0:
            return str(~node)
        index = len(thresholds)
        thresholds.append(tree.threshold[node])
        low = self._expression(tree, tree.left[node], thresholds)
        high = self._expression(tree, tree.right[node], thresholds)
        return f"({low} if r[{int(tree.feature[node])}] <= T[{index}] else {high})"

    def evaluate(self, row: Sequence[float], classes: int) -> tuple[list[float], dict[int, float]]:
        """Raw class scores and each feature's share of the margin along the paths.

        The shares are summed in the order of the trees and, within a tree, of its path,
        one interpreted step per split: the paths reached are chained, not walked."""
        scores = [0.0] * classes
        leaves = self._leaves(row, self._thresholds)
        for klass, values, leaf in zip(self._classes, self._values, leaves, strict=True):
            scores[klass] += values[leaf]
        acc = [0.0] * len(row)
        # ``getitem`` in C picks each tree's leaf's path (typeshed cannot type the pair).
        features = cast(list[int], list(chain.from_iterable(map(getitem, self._paths_f, leaves))))
        changes = cast(Iterable[float], chain.from_iterable(map(getitem, self._paths_c, leaves)))
        for feature, change in zip(features, changes, strict=True):
            acc[feature] += change
        # Only the features split on can hold a share: a tenth of the row, in its order.
        return scores, {j: acc[j] for j in sorted(set(features)) if acc[j]}


def _leaf_paths(tree: Tree, weight: float) -> tuple[tuple[tuple[int, ...], tuple[float, ...]], ...]:
    """Per leaf: the features split on along its path and the weighted change in node
    value each split made (two parallel tuples: the scorer sums them per candidate)."""
    paths: list[tuple[tuple[int, ...], tuple[float, ...]]] = [((), ())] * len(tree.leaf)

    def visit(node: int, features: tuple[int, ...], changes: tuple[float, ...]) -> None:
        for child in (tree.left[node], tree.right[node]):
            after = tree.node_value[child] if child >= 0 else tree.leaf[~child]
            step_features = (*features, tree.feature[node])
            step_changes = (*changes, weight * (after - tree.node_value[node]))
            if child >= 0:
                visit(child, step_features, step_changes)
            elif weight:
                paths[~child] = (step_features, step_changes)

    if tree.feature:
        visit(0, (), ())
    return tuple(paths)
