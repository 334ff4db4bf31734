"""Gradient-boosted trees as data, evaluated in pure Python.

The scorer is trained with LightGBM (``thresher[train]``) and shipped as the fitted
trees written out as plain arrays, so scanning needs no native library, no numpy and
no import beyond the standard library: ``thresher --help`` start-up is untouched and
every platform gets the same probabilities. Each tree is four parallel arrays —
split feature, threshold, left child, right child — where a negative child ``~i``
names leaf ``i``; a row goes left when its feature value is ``<=`` the threshold,
which is LightGBM's own rule for numerical splits (the exporter refuses any other).

Each split's share of the score (the change in the node value along the path,
Saabas' attribution) is precomputed per branch, so every decision can still cite the
few features that moved it, as the logistic scorer's weights did.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import itemgetter
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
    """The trees compiled once into one Python function per forest, for speed.

    A loop over node arrays costs several interpreted steps per node; here each split is
    one ``if`` comparing a local variable with a constant, each branch first adds its
    split's share (Saabas: the weighted change in node value it makes) to its feature's
    local variable, and each leaf adds its tree's score: several times less than walking
    the arrays and summing the paths reached in a loop. The source is written by this
    class alone: feature indices (integers, checked by ``Tree.check`` before) and
    numbers written as ``repr`` of a finite float, which reads back as the same float; a
    number that is not finite is read from a tuple passed in. No text of the artifact
    is ever compiled. Every sum is taken in the order of the trees and, within a tree,
    of its path, as a plain walk takes it: the same floats, bit for bit.
    """

    def __init__(self, trees: Sequence[Tree], margin: Sequence[float]) -> None:
        self._classes = len(margin)
        # Every feature split on, in index order: the row's values read, and the shares'.
        self._features = tuple(sorted({f for tree in trees for f in tree.feature}))
        source = _Source()
        for tree in trees:
            source.subtree(tree, 0 if tree.feature else -1, margin[tree.klass], 1)
        scores = "".join(f"s{k}, " for k in range(self._classes))
        shares = "".join(f"a{j}, " for j in self._features)
        if len(self._features) > 1:
            read = ["".join(f"f{j}, " for j in self._features) + "= G(r)"]
        else:  # ``itemgetter`` of one index gives the value itself, not a tuple
            read = [f"f{j} = r[{j}]" for j in self._features]
        lines = [
            "def forest(r):",
            *(f" {line}" for line in read),
            *(f" s{k} = 0.0" for k in range(self._classes)),
            *(f" a{j} = 0.0" for j in self._features),
            *source.lines,
            f" return ({scores}), ({shares})",
        ]
        namespace: dict[str, object] = {}
        # ``G`` reads the row's values split on (``itemgetter`` of one index or none reads
        # no tuple: those forests read ``r`` themselves, or nothing).
        getter = itemgetter(*self._features) if len(self._features) > 1 else None
        scope: dict[str, object] = {"__builtins__": {}, "G": getter, "K": tuple(source.other)}
        # The source is integers, finite floats' reprs and fixed syntax (the docstring).
        exec(compile("\n".join(lines), "<thresher-forest>", "exec"), scope, namespace)  # noqa: S102
        # ``run(row)``: the class scores (one per weight of the margin) and the shares of
        # ``features``, zero where no path reached split on one.
        self.run = cast(
            Callable[[Sequence[float]], tuple[tuple[float, ...], tuple[float, ...]]],
            namespace["forest"],
        )

    @property
    def features(self) -> tuple[int, ...]:
        """The features split on, in index order: the order of ``run``'s shares."""
        return self._features

    def evaluate(self, row: Sequence[float], classes: int) -> tuple[list[float], dict[int, float]]:
        """Raw class scores and each feature's share of the margin along the path (the
        features split on, in index order, whose share is not zero)."""
        scores, shares = self.run(row)
        padded = [*scores, *([0.0] * (classes - len(scores)))]
        return padded, {j: a for j, a in zip(self._features, shares, strict=True) if a}


class _Source:
    """The statements of the compiled forest, and the numbers that are not finite (read
    from the tuple ``K``: ``repr`` would write a name, ``inf`` or ``nan``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.other: list[float] = []

    def number(self, value: float) -> str:
        if math.isfinite(value):
            return repr(float(value))
        self.other.append(value)
        return f"K[{len(self.other) - 1}]"

    def subtree(self, tree: Tree, node: int, weight: float, depth: int) -> None:
        """``node``'s subtree, indented ``depth`` levels: a split's test and its two
        branches, each adding its share (none when the class's ``weight`` is zero), or a
        leaf's score."""
        pad = " " * depth
        if node < 0:
            self.lines.append(f"{pad}s{int(tree.klass)} += {self.number(tree.leaf[~node])}")
            return
        feature = int(tree.feature[node])
        limit = self.number(tree.threshold[node])
        for test, child in (
            (f"if f{feature} <= {limit}:", tree.left[node]),
            ("else:", tree.right[node]),
        ):
            self.lines.append(f"{pad}{test}")
            if weight:
                after = tree.node_value[child] if child >= 0 else tree.leaf[~child]
                change = weight * (after - tree.node_value[node])
                self.lines.append(f"{pad} a{feature} += {self.number(change)}")
            self.subtree(tree, child, weight, depth + 1)
