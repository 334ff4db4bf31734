#!/usr/bin/env bash
# Grouped 5-fold cross-validation by repository on the dev corpus (../shared/corpus/dev
# from the project root): each fold is decided through the real pipeline by a scorer
# trained on the other folds only. Prints per-fold precision/recall/F1 for 'real', the
# escalation rate and the oracle ceiling, mean and spread, calibration, and breakdowns by
# rule and file kind.
# PYTHON names the interpreter thresher is installed for (default: python, as the other
# benchmarks run), so no thresher script needs to be on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus/dev}"
out="${2:-.thresher/eval-cv.json}"
mkdir -p "$(dirname "$out")"
exec "${PYTHON:-python}" -m thresher --model heuristic:default eval "$corpus" --folds 5 --escalate uncertain --json "$out"
