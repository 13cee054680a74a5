#!/usr/bin/env bash
# redis-compare.sh: redis-benchmark against kvstore-server and against Debian's redis-server 7 in the
# same run, on loopback only.
#
#   kvstore-bench/scripts/redis-compare.sh [-n REQUESTS] [-R REPEATS] [-W WARMUP] [-S STEADY] [-o RESULTS.md]
#       [--quick] [--case "CLIENTS SIZE PIPELINE"]... [--durability sync|periodic] [--no-settle]
#
# Matrix (each run is "-t set,get", random keys from -r 100000):
#   BlinkDB table: 10, 100 and 1000 clients, 3-byte values, not pipelined
#   500-byte values, 50 clients, not pipelined and -P 16
# for two durability pairings:
#   kvstore --durability sync      vs  redis appendonly yes, appendfsync always
#   kvstore --durability periodic  vs  redis appendonly yes, appendfsync everysec
# Both servers first get the same warm-up, not recorded: a steady-state load of -S STEADY requests
# (default 2,000,000; 0: none) of 500-byte values, 50 clients, -P 16, SET then GET, which takes
# kvstore through several memtable flushes and a compaction so that the JIT has compiled the write,
# flush, compaction and SSTable read paths (until then a run with a flush also pays for compiling
# them; see docs/decisions/0008-steady-state-warm-up.md), and Redis through several AOF rewrites;
# then every case once at -W WARMUP requests (default 3 x REQUESTS). Then each case runs REPEATS
# times (default 3), alternating the servers, and the table shows the run with the median throughput of
# each server. A run is -n REQUESTS (default 100,000) SETs and as many GETs; a pipelined case's runs
# are 5 x REQUESTS, so that each run lasts about as long as an unpipelined one (a second or two):
# long enough to take in the background work both servers do every few hundred thousand writes
# (kvstore's memtable flushes, Redis's AOF rewrites), where a 0.2 s run either lands on such work
# or misses it.
# After every run (warm-up runs included) the script waits until that server is idle again (at most
# one clock tick in each of three 0.2 s windows, no child process; settle in bench-servers.sh,
# 60 s at most) before the other server's run
# starts: Redis forks an AOF rewrite child whenever its log has doubled (every pipelined 500-byte
# run does that), and kvstore flushes and compacts in the background; on 2 cores such work,
# left running into the other server's run, competes with that run for the CPU
# (docs/decisions/0009-settle-between-runs.md). --no-settle runs them back to back.
# The last two columns are each server's CPU microseconds per request over all the runs of the
# case, SETs and GETs together (user + system from /proc/PID/stat, every thread, the background
# work a run set off until the server is idle again, and Redis' reaped rewrite children: on 2 cores
# this swings far less than requests per second, and decides how much CPU is left for the client).
# Every run also checks that redis-benchmark exited 0 (it exits 1 on any error reply), so the
# 1000-client runs show 1000 concurrent clients held with no errors.
#
# --case (repeatable) runs only the given cases, --durability only one pairing: for a focused look
# at one row; the full matrix is what docs/benchmarks.md reports (its runs: kvstore-bench/results).
# KV_FLAGS adds flags to the kvstore server's command line (e.g. KV_FLAGS="--io-threads 2").
# The kvstore server is started by bin/kvstore-server, so it runs with that script's JVM flags;
# KV_JAVA_OPTS replaces them (it is passed on as KVSTORE_JAVA_OPTS).
# Needs: redis-server, redis-benchmark (apt-get install redis-server redis-tools), java 17.
# Writes a Markdown table (throughput, p50, p99, ratios) to stdout and to -o (default
# kvstore-bench/target/redis-compare.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=100000
OUT="$ROOT/kvstore-bench/target/redis-compare.md"
QUICK=0
REPEATS=3
ONLY_CASES=()
PAIRINGS=("sync always" "periodic everysec")
SETTLE=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    -R) REPEATS="$2"; shift 2 ;;
    -W) WARMUP="$2"; shift 2 ;;
    -S) STEADY="$2"; shift 2 ;;
    --quick) QUICK=1; N=20000; REPEATS=1; WARMUP=10000; STEADY=0; shift ;;
    --case) ONLY_CASES+=("$2"); shift 2 ;;
    --durability)
      case "$2" in
        sync) PAIRINGS=("sync always") ;;
        periodic) PAIRINGS=("periodic everysec") ;;
        *) echo "--durability takes sync or periodic, not $2" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --no-settle) SETTLE=0; shift ;;
    -h|--help) sed -n '2,48p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

WARMUP=${WARMUP:-$((3 * N))}
STEADY=${STEADY:-2000000}

NAME=redis-compare
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init

# bench port clients size pipeline [requests] -> lines "SET rps p50 p99" and "GET rps p50 p99"
bench() {
  local csv
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$1" -c "$2" -d "$3" -P "$4" -n "${5:-$N}" -r 100000 \
      -t set,get --csv 2>"$WORK/bench.err")"; then
    echo "redis-compare: redis-benchmark failed on port $1 (-c $2 -d $3 -P $4): $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  echo "$csv" | tr -d '"' | awk -F, '$1=="SET"||$1=="GET" {print $1, $2, $5, $7}'
}

# median OP < lines of bench output from several runs -> "rps p50 p99" of the median-throughput run
median() {
  grep "^$1 " | sort -k2,2 -g | awk '{ line[NR] = $2 " " $3 " " $4 } END { print line[int((NR + 1) / 2)] }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

HZ="$(getconf CLK_TCK)"
# after_run PID: lets that server's background work finish before the next run (unless --no-settle)
after_run() { if [[ $SETTLE == 1 ]]; then settle "$1"; fi; }
# us_per_request TICKS REQUESTS -> CPU microseconds per request
us_per_request() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }'; }

{
  echo "redis-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')),"
  echo "$(java -version 2>&1 | head -1), $(redis-server --version | cut -d' ' -f3), $(redis-benchmark --version 2>/dev/null | head -1 || true)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); -n $N -r 100000 per run ($((5 * N)) pipelined), median of $REPEATS runs after a warm-up of $STEADY pipelined 500-byte requests and $WARMUP per case; settle between runs: $([[ $SETTLE == 1 ]] && echo yes || echo no); kvstore flags: ${KV_FLAGS:-none}; JVM: ${KV_JAVA_OPTS:-bin/kvstore-server defaults}"
  echo
  echo "| durability (kv / redis) | clients | value | pipeline | op | kv rps | kv p50 ms | kv p99 ms | redis rps | redis p50 ms | redis p99 ms | kv/redis | kv CPU us/req | redis CPU us/req |"
  echo "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$OUT.tmp"

CASES=("10 3 1" "100 3 1" "1000 3 1" "50 500 1" "50 500 16")
if [[ $QUICK == 1 ]]; then CASES=("10 3 1" "1000 3 1" "50 500 16"); fi
if [[ ${#ONLY_CASES[@]} -gt 0 ]]; then CASES=("${ONLY_CASES[@]}"); fi

for pairing in "${PAIRINGS[@]}"; do
  read -r kvd rfs <<<"$pairing"
  start_servers "$kvd" "$rfs"
  # Warm-up (not recorded), the same on both servers: the steady-state load, then every case once
  # at WARMUP requests.
  if ((STEADY > 0)); then
    bench "$KV_PORT" 50 500 16 "$STEADY" >/dev/null
    after_run "$KV_PID"
    bench "$REDIS_PORT" 50 500 16 "$STEADY" >/dev/null
    after_run "$REDIS_PID"
  fi
  for c in "${CASES[@]}"; do
    read -r clients size pipe <<<"$c"
    bench "$KV_PORT" "$clients" "$size" "$pipe" "$WARMUP" >/dev/null
    after_run "$KV_PID"
    bench "$REDIS_PORT" "$clients" "$size" "$pipe" "$WARMUP" >/dev/null
    after_run "$REDIS_PID"
  done
  for c in "${CASES[@]}"; do
    read -r clients size pipe <<<"$c"
    n=$N
    if ((pipe > 1)); then n=$((5 * N)); fi
    kv=""; rd=""; kv_ticks=0; rd_ticks=0
    for ((r = 0; r < REPEATS; r++)); do
      t0="$(cpu_ticks "$KV_PID")"
      kv+="$(bench "$KV_PORT" "$clients" "$size" "$pipe" "$n")"$'\n'
      after_run "$KV_PID"
      kv_ticks=$((kv_ticks + $(cpu_ticks "$KV_PID") - t0))
      t0="$(cpu_ticks "$REDIS_PID")"
      rd+="$(bench "$REDIS_PORT" "$clients" "$size" "$pipe" "$n")"$'\n'
      after_run "$REDIS_PID"
      rd_ticks=$((rd_ticks + $(cpu_ticks "$REDIS_PID") - t0))
    done
    # Server CPU per request over all the case's runs, SETs and GETs together (-t set,get).
    kv_us="$(us_per_request "$kv_ticks" $((2 * n * REPEATS)))"
    rd_us="$(us_per_request "$rd_ticks" $((2 * n * REPEATS)))"
    for op in SET GET; do
      read -r krps kp50 kp99 <<<"$(median "$op" <<<"$kv")"
      read -r rrps rp50 rp99 <<<"$(median "$op" <<<"$rd")"
      echo "| $kvd / $rfs | $clients | $size B | $pipe | $op | $krps | $kp50 | $kp99 | $rrps | $rp50 | $rp99 | $(ratio "$krps" "$rrps") | $kv_us | $rd_us |" | tee -a "$OUT.tmp"
    done
  done
  stop_servers
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo
echo "every redis-benchmark run exited 0 (no error replies); results in $OUT"
