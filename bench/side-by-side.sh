#!/usr/bin/env bash
# Every row of issue 15 side by side with its yardsticks, in one command, and the ratios between them:
# ../shared/perf/run.sh (the shared harness: autocannon; the service on PostgreSQL and embedded, bare Koa 3
# with and without a jose ES256 verify, the upstream called directly, the openapi-mcp-generator peer), run
# against this checkout. It prints summary.md (req/s, p50/p99, CPU ms per call per process, RSS, ratios).
#
#   ./run build && bench/side-by-side.sh                                            # every row, ~25 min
#   PHASES=get,mcp CONNS=64 WARMUP_S=5 DURATION_S=10 bench/side-by-side.sh          # the read hot paths, ~4 min
#
# The harness lives next to the project (PERF_DIR, default ../shared/perf relative to the project root).
# It loads both cores for minutes: run nothing else meanwhile. For CPU per call of the hot paths only (robust
# on a busy machine), `node bench/hot-paths.mjs`.
set -euo pipefail
project="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
perf="$(cd "$project" && cd "${PERF_DIR:-../shared/perf}" && pwd)"
# The harness starts two services on this host; both would listen for metrics on 9464 and the second
# would exit (EADDRINUSE). Metrics stay off unless METRICS_PORT is given.
export METRICS_PORT="${METRICS_PORT:-0}"
exec "$perf/run.sh" "$project"
