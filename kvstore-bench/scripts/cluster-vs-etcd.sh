#!/usr/bin/env bash
# The cluster comparison of docs/benchmarks.md: a 3-node KVStore cluster (bin/kvstore-cluster, one
# shard per node) against etcd 3.4 (Debian etcd-server, three members) and a single KVStore node with
# sync durability, all on this machine's loopback, with the same closed-loop load (clusterload/: 50
# clients, 100-byte values, random keys of 100,000): puts, then linearizable gets. Systems take
# turns, ROUNDS times; the table shows the median of the rounds and the ratios. Then the time from a
# leader's SIGKILL to the first successful write, for the KVStore cluster and for etcd.
#
#   kvstore-bench/scripts/cluster-vs-etcd.sh [--rounds 3] [--duration 20] [--clients 50] [--shards 1]
#
# Before the measured rounds every system runs each workload once unmeasured (a JVM server reaches
# its rate only after its hot paths are compiled). --shards: the KVStore cluster's shard count (one
# Raft group per shard; etcd has one).
#
# Needs Go (for clusterload), etcd-server and redis-tools (apt-get install etcd-server redis-tools).
# Writes kvstore-bench/results/<date>-cluster-etcd/{runs.jsonl,failover.txt,report.md}.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=3
duration=20
clients=50
shards=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in go etcd etcdctl redis-cli; do
  command -v "$tool" >/dev/null || { echo "cluster-vs-etcd: $tool is missing (apt-get install etcd-server redis-tools; Go)" >&2; exit 1; }
done

out="$ROOT/kvstore-bench/results/$(date -u +%F)-cluster-etcd-${shards}shard"
work="$(mktemp -d)"
mkdir -p "$out"
: >"$out/runs.jsonl"
pids=()
cleanup() {
  "$ROOT/bin/kvstore-cluster" stop --dir "$work/kv" >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do { kill -9 "$p" && wait "$p"; } 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$ROOT/kvstore-bench/scripts/clusterload" && go build -o "$work/clusterload" .)
[[ -f "$ROOT/kvstore-server/target/kvstore-server.jar" ]] || (cd "$ROOT" && ./mvnw -q -B -DskipTests package -pl kvstore-server -am)

# etcd: three members, each fsyncs its log before acknowledging (etcd always does).
initial="e1=http://127.0.0.1:12380,e2=http://127.0.0.1:22380,e3=http://127.0.0.1:32380"
for i in 1 2 3; do
  etcd --name "e$i" --data-dir "$work/etcd/e$i" \
    --listen-client-urls "http://127.0.0.1:${i}2379" --advertise-client-urls "http://127.0.0.1:${i}2379" \
    --listen-peer-urls "http://127.0.0.1:${i}2380" --initial-advertise-peer-urls "http://127.0.0.1:${i}2380" \
    --initial-cluster "$initial" --initial-cluster-state new --log-level error >"$work/etcd-e$i.log" 2>&1 &
  pids+=($!)
done
etcd_eps="127.0.0.1:12379,127.0.0.1:22379,127.0.0.1:32379"

# KVStore: a 3-node cluster (durability of the Raft log: fsync before a majority acknowledges), and
# one node with sync durability (fsync before each acknowledgement).
KVSTORE_JAVA_OPTS="-Xms512m -Xmx512m -XX:+UseParallelGC" "$ROOT/bin/kvstore-cluster" create --dir "$work/kv" --base-port 17001 --shards "$shards" >/dev/null
kv_eps="127.0.0.1:17001,127.0.0.1:17002,127.0.0.1:17003"
KVSTORE_JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseParallelGC" "$ROOT/bin/kvstore-server" --data-dir "$work/single" \
  --resp-port 17100 --http-port -1 --thrift-port -1 --durability sync >"$work/single.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do
  etcdctl --endpoints "$etcd_eps" endpoint health >/dev/null 2>&1 && redis-cli -p 17100 ping >/dev/null 2>&1 && break
  sleep 0.2
done

run() { # system op
  local sys="$1" op="$2" line
  case "$sys" in
    kvstore-cluster) line="$("$work/clusterload" -target redis -endpoints "$kv_eps" -op "$op" -clients "$clients" -duration "${duration}s")" ;;
    etcd) line="$("$work/clusterload" -target etcd -endpoints "$etcd_eps" -op "$op" -clients "$clients" -duration "${duration}s")" ;;
    kvstore-single) line="$("$work/clusterload" -target redis -cluster=false -endpoints 127.0.0.1:17100 -op "$op" -clients "$clients" -duration "${duration}s")" ;;
  esac
  echo "{\"system\":\"$sys\",\"round\":$round,${line#\{}" | tee -a "$out/runs.jsonl"
}
# Warm-up: each system and workload once, not recorded.
for sys in kvstore-cluster etcd kvstore-single; do
  for op in put get; do
    case "$sys" in
      kvstore-cluster) "$work/clusterload" -target redis -endpoints "$kv_eps" -op "$op" -clients "$clients" -duration "${duration}s" >/dev/null ;;
      etcd) "$work/clusterload" -target etcd -endpoints "$etcd_eps" -op "$op" -clients "$clients" -duration "${duration}s" >/dev/null ;;
      kvstore-single) "$work/clusterload" -target redis -cluster=false -endpoints 127.0.0.1:17100 -op "$op" -clients "$clients" -duration "${duration}s" >/dev/null ;;
    esac
  done
done
for round in $(seq 1 "$rounds"); do
  for op in put get; do
    for sys in kvstore-cluster etcd kvstore-single; do
      run "$sys" "$op"
    done
  done
done

# Failover: SIGKILL the leader, then the time until a write to its data succeeds elsewhere.
ms() { date +%s%3N; }
{
  key="failover-key"
  port=""
  for p in 17001 17002 17003; do # the node that serves the key answers the GET instead of -MOVED
    if ! redis-cli -p "$p" get "$key" 2>&1 | grep -q MOVED; then port=$p; break; fi
  done
  node="n$((port - 17000))"
  t0=$(ms); kill -9 "$(cat "$work/kv/$node.pid")"
  until redis-cli -c -p $(( port == 17001 ? 17002 : 17001 )) set "$key" v 2>/dev/null | grep -q OK; do sleep 0.02; done
  echo "kvstore-cluster: SIGKILL of $node (leader of the key's shard) to the first successful write: $(( $(ms) - t0 )) ms"
  leader_ep=$(etcdctl --endpoints "$etcd_eps" endpoint status -w json | python3 -c \
    'import json,sys; s=json.load(sys.stdin); print([e["Endpoint"] for e in s if e["Status"]["leader"]==e["Status"]["header"]["member_id"]][0])')
  idx=$(( ${leader_ep##*:} / 10000 ))
  t0=$(ms); kill -9 "${pids[$((idx - 1))]}"
  others=$(echo "$etcd_eps" | tr ',' '\n' | grep -v "$leader_ep" | paste -sd,)
  until etcdctl --endpoints "$others" --command-timeout=1s put failover-key v >/dev/null 2>&1; do sleep 0.02; done
  echo "etcd: SIGKILL of the leader ($leader_ep) to the first successful write: $(( $(ms) - t0 )) ms"
} | tee "$out/failover.txt"

python3 - "$out" "$rounds" "$duration" "$clients" "$shards" <<'EOF'
import json, os, statistics, subprocess, sys
out, rounds, duration, clients, shards = sys.argv[1:6]
runs = [json.loads(l) for l in open(os.path.join(out, "runs.jsonl"))]
def med(sys_, op, f):
    v = [r[f] for r in runs if r["system"] == sys_ and r["op"] == op]
    return statistics.median(v) if v else float("nan")
lines = [f"# 3-node KVStore cluster ({shards} shard(s)) against etcd 3.4 and a single node", "",
         f"{clients} clients, 100-byte values, random keys of 100,000; {duration} s per run after a 5 s warm-up;"
         f" one unmeasured pass of each first, then {rounds} rounds, systems in turns; medians."
         " Gets are linearizable on both clusters.", "",
         "| op | KVStore cluster ops/s | etcd ops/s | single node (sync) ops/s | cluster / etcd | cluster / single |"
         " cluster p50 / p99 ms | etcd p50 / p99 ms |", "|---|---|---|---|---|---|---|---|"]
for op in ("put", "get"):
    c, e, s = (med(x, op, "ops_per_sec") for x in ("kvstore-cluster", "etcd", "kvstore-single"))
    lines.append(f"| {op} | {c:,.0f} | {e:,.0f} | {s:,.0f} | {c/e:.2f} | {c/s:.2f} | "
                 f"{med('kvstore-cluster', op, 'p50_ms'):.1f} / {med('kvstore-cluster', op, 'p99_ms'):.1f} | "
                 f"{med('etcd', op, 'p50_ms'):.1f} / {med('etcd', op, 'p99_ms'):.1f} |")
lines += ["", "Spread (min-max ops/s over the rounds):", ""]
for op in ("put", "get"):
    for x in ("kvstore-cluster", "etcd", "kvstore-single"):
        v = [r["ops_per_sec"] for r in runs if r["system"] == x and r["op"] == op]
        lines.append(f"- {op} {x}: {min(v):,.0f}-{max(v):,.0f}")
lines += ["", "Failover:", ""] + ["- " + l.strip() for l in open(os.path.join(out, "failover.txt")) if l.strip()]
lines += ["", f"Command: `kvstore-bench/scripts/cluster-vs-etcd.sh --rounds {rounds} --duration {duration} --shards {shards}`"]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
