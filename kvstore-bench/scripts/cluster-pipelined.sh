#!/usr/bin/env bash
# Pipelined GETs or SETs on a 3-node KVStore cluster (three shards, one led by each node):
# redis-benchmark --cluster, 50 clients, -P 16, 10,000 keys, after 200,000 SETs and an unmeasured
# run of the command; prints two measured runs. Compares builds: run it with each checkout's root as
# argument, in turns (docs/benchmarks.md, "Cluster: pipelined GETs and SETs").
#
#   kvstore-bench/scripts/cluster-pipelined.sh [REPO_ROOT] [get|set]
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
op="${2:-get}"
n=1000000
[[ "$op" == set ]] && n=300000
rm -rf /tmp/kvpg
KVSTORE_JAVA_OPTS="-Xms512m -Xmx512m -XX:+UseParallelGC" "$root/bin/kvstore-cluster" create --dir /tmp/kvpg --base-port 17001 --shards 0 >/dev/null 2>&1
redis-benchmark --cluster -p 17001 -t set -n 200000 -c 50 -r 10000 -q >/dev/null 2>&1
redis-benchmark --cluster -p 17001 -t "$op" -n "$n" -c 50 -r 10000 -P 16 -q >/dev/null 2>&1
for i in 1 2; do
  redis-benchmark --cluster -p 17001 -t "$op" -n "$n" -c 50 -r 10000 -P 16 -q 2>/dev/null | tr '\r' '\n' \
    | grep "requests per second" | tail -1
done
"$root/bin/kvstore-cluster" stop --dir /tmp/kvpg >/dev/null 2>&1 || true
