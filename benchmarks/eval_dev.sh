#!/usr/bin/env bash
# Scores the heuristic model on the dev corpus (../shared/corpus/dev from the project root):
# precision/recall/F1 for 'real' next to the raw detect-secrets baseline, the confusion
# matrix, detection recall, the share decided without a model call, usage and wall time.
# PYTHON names the interpreter thresher is installed for (default: python, as the other
# benchmarks run), so no thresher script needs to be on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus/dev}"
out="${2:-.thresher/eval-dev.json}"
mkdir -p "$(dirname "$out")"
exec "${PYTHON:-python}" -m thresher --model heuristic:default eval "$corpus" --escalate never --json "$out"
