#!/usr/bin/env bash
# The test command StrykerJS runs for every mutant of a runtime module (stryker.config.mjs): `conform` against
# the demo server of each built-in spec over stdio, with a fixed seed and conform's
# default 20 runs (at 5 the seed draws no wait and no cancel). Exits with conform's
# code for the first spec it does not pass (1: a rule broken; 3: the server could not be tested, e.g. it
# crashed, or an answer did not come within 20 s), 0 when every spec passes. The demo answers these
# requests in milliseconds; a shorter wait than conform's default (60 s) keeps a mutant that stalls the
# server (a task that never ends, whose blocking result never comes) from costing minutes.
#
#   bash scripts/stryker-conform.sh <module>        # e.g. machine, for runtime/machine.ts
#
# STRYKER_CONFORM_SPECS, STRYKER_CONFORM_RUNS and STRYKER_CONFORM_SEED override the specs, runs and seed.
set -u
cd "$(dirname "$0")/.."
module="${1:?which runtime module? e.g. machine}"
specs="${STRYKER_CONFORM_SPECS:-mcp-2025-11-25 sep-1686-draft ext-tasks-2026-07-28}"
runs="${STRYKER_CONFORM_RUNS:-20}"
seed="${STRYKER_CONFORM_SEED:-20261204}"
src="runtime/$module.ts"
[ -f "$src" ] || { echo "stryker-conform: no $src" >&2; exit 2; }
for spec in $specs; do
  # The demo runs under tsx from this folder (Stryker's sandbox): tsconfig.json's `paths` send the generated
  # code's imports of @mcp-task-gen/runtime to runtime/*.ts here, the mutated module included.
  node bin/mcp-task-gen.js conform --spec "$spec" --stdio "node_modules/.bin/tsx scripts/demo-server.ts $spec" --runs "$runs" --seed "$seed" --request-timeout 20
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "stryker-conform: $spec: conform exited $rc"
    exit "$rc"
  fi
done
