#!/usr/bin/env bash
# cpu-per-request.sh: server CPU time per request, kvstore-server against Debian's redis-server 7,
# measured in the same run. Throughput on a small shared machine swings with whatever else runs;
# the CPU a server spends per request swings much less, and on 2 cores it is what decides how much
# CPU is left for the clients (redis-benchmark is single-threaded and needs most of a core).
#
#   kvstore-bench/scripts/cpu-per-request.sh [-n REQUESTS] [-R REPEATS] [-t get|set]
#       [--case "CLIENTS SIZE PIPELINE"] [--durability sync|periodic] [--keyspace N]
#
# Both servers start empty (kvstore with the given durability, Redis with appendonly yes and
# appendfsync always or everysec to match), get the same warm-up (3 x 300,000 "-t set,get"
# requests of the case), then the runs alternate between them: REPEATS runs (default 5) of
# REQUESTS requests (default 500,000) of one command (default get) each. Every run prints the
# requests per second and the server's CPU microseconds per request (user + system, from
# /proc/PID/stat over the run and until the server is idle again: all the server's threads,
# background flushes and compactions, the JIT and GC, and Redis' reaped AOF rewrite children).
# After every run (warm-up runs too) the script waits until that server is idle (settle in
# bench-servers.sh), so one server's background work does not run into the other's run.
# --keyspace: random keys out of N (redis-benchmark -r, default 100000); 0 = one key for every
# request, as redis-benchmark does without -r (a single hot key: every lookup hits the CPU cache).
# KV_FLAGS adds kvstore server flags; KV_JAVA_OPTS replaces bin/kvstore-server's JVM flags.
# Needs: redis-server, redis-benchmark, java 17, Linux (/proc).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=500000
REPEATS=5
OP=get
CASE="50 500 16"
KVD=periodic
KEYSPACE=100000
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -R) REPEATS="$2"; shift 2 ;;
    -t) OP="$2"; shift 2 ;;
    --case) CASE="$2"; shift 2 ;;
    --durability) KVD="$2"; shift 2 ;;
    --keyspace) KEYSPACE="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$OP" in get|set) ;; *) echo "-t takes get or set, not $OP" >&2; exit 2 ;; esac
case "$KVD" in
  sync) FSYNC=always ;;
  periodic) FSYNC=everysec ;;
  *) echo "--durability takes sync or periodic, not $KVD" >&2; exit 2 ;;
esac
read -r CLIENTS SIZE PIPE <<<"$CASE"
RANDOM_KEYS=()
[[ "$KEYSPACE" == 0 ]] || RANDOM_KEYS=(-r "$KEYSPACE")

NAME=cpu-per-request
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init
start_servers "$KVD" "$FSYNC"

bench() { # port requests tests
  redis-benchmark -h 127.0.0.1 -p "$1" -c "$CLIENTS" -d "$SIZE" -P "$PIPE" -n "$2" "${RANDOM_KEYS[@]}" -t "$3" --csv
}
HZ=$(getconf CLK_TCK)

echo "cpu-per-request: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg);" \
  "-c $CLIENTS -d $SIZE -P $PIPE -t $OP, keyspace $KEYSPACE (0: one key), $N requests per run, kvstore $KVD vs redis appendfsync $FSYNC"
for p in "$KV_PORT:$KV_PID" "$REDIS_PORT:$REDIS_PID"; do
  for _ in 1 2 3; do bench "${p%%:*}" 300000 set,get >/dev/null; settle "${p##*:}"; done
done
for ((r = 1; r <= REPEATS; r++)); do
  for server in kvstore redis; do
    if [[ $server == kvstore ]]; then port=$KV_PORT; pid=$KV_PID; else port=$REDIS_PORT; pid=$REDIS_PID; fi
    before=$(cpu_ticks "$pid")
    rps=$(bench "$port" "$N" "$OP" | tr -d '"' | awk -F, 'NR > 1 { printf "%d", $2 }')
    settle "$pid"
    after=$(cpu_ticks "$pid")
    awk -v s="$server" -v r="$r" -v rps="$rps" -v t=$((after - before)) -v hz="$HZ" -v n="$N" \
      'BEGIN { printf "run %d %-8s %8d requests/s  %5.2f CPU us/request\n", r, s, rps, t / hz * 1e6 / n }'
  done
done
