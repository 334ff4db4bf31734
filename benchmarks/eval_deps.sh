#!/usr/bin/env bash
# Scores the offline dependency heuristic on the hand-labelled dependency corpus
# (benchmarks/deps_corpus: 16 fixture projects on real OSV advisories): precision/recall/F1
# for 'affected', the escalation rate, the oracle ceiling (escalated findings decided
# right), the scanner-alone baseline, and breakdowns per case and per project.
# The OSV records are kept as JSON and packed into OSV's all.zip layout at run time.
# PYTHON names the interpreter thresher is installed for (default: python, as the other
# benchmarks run), so no thresher script needs to be on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-benchmarks/deps_corpus}"
out="${2:-.thresher/eval-deps.json}"
mkdir -p "$(dirname "$out")"
exec "${PYTHON:-python}" -m thresher --model heuristic:default eval "$corpus" --kind deps --escalate uncertain --json "$out"
