#!/usr/bin/env bash
# False `real` calls and escalations per clean tree: the wild corpus's HEAD trees
# (benchmarks/wild_export.py writes them to ../wild from the project root), scanned whole
# through the real pipeline with the shipped scorer. Every `real` call is a false alarm.
# PYTHON names the interpreter thresher is installed for (default: python).
set -euo pipefail
cd "$(dirname "$0")/.."
trees="${1:-../wild}"
out="${2:-.thresher/eval-wild.json}"
mkdir -p "$(dirname "$out")"
exec "${PYTHON:-python}" -m thresher eval "$trees" --clean --json "$out"
