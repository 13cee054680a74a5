#!/usr/bin/env bash
# thrift-compare.sh: Thrift against RESP on the same kvstore-server in the same run (issue 24:
# Thrift get and put at least 0.7 times the RESP rate), on loopback only.
#
#   kvstore-bench/scripts/thrift-compare.sh [-n REQUESTS] [-R REPEATS] [-W WARMUP] [-c CLIENTS]
#       [-d VALUE_BYTES] [-r KEYSPACE] [--durability periodic|sync|none] [--mode selector|async|blocking]
#       [-o RESULTS.md] [--no-settle]
#
# One kvstore-server (bin/kvstore-server, so with its JVM flags; --durability periodic by default),
# RESP on KV_PORT (16379) and Thrift on THRIFT_PORT (19090), data in a temporary directory.
# RESP load: redis-benchmark -c CLIENTS (50) -d VALUE_BYTES (100) -r KEYSPACE (100000) -t set,get
# -n REQUESTS (100,000), not pipelined. Thrift load: org.kvstore.bench.ThriftLoad (CLIENTS clients,
# each its own framed-binary connection, unpipelined; --mode selector (default): the generated
# KvService.Client of each driven from one thread through one selector, as redis-benchmark runs its
# clients on one event loop; --mode async: libthrift's async clients on its TAsyncClientManager;
# --mode blocking: a thread per client), put then get, -n REQUESTS each, the same key
# names (key:NNNNNNNNNNNN) and values (x...) in the same table (RESP database 0 = default/0).
# First a warm-up, not recorded: one RESP run and one Thrift put and get run at WARMUP requests
# (default REQUESTS); the Thrift get of the warm-up writes every key once, so that every later GET
# on either protocol finds its key. Then REPEATS rounds (default 3), each a RESP run, a Thrift put
# run and a Thrift get run; after every run the script waits until the server is idle again
# (settle in bench-servers.sh) unless --no-settle. The table shows, for each protocol and op, the
# run with the median throughput, and the Thrift/RESP ratio of those medians; the last two columns
# are the server's CPU microseconds per request over all the rounds (RESP: SET and GET together, as
# one redis-benchmark run does both).
# Every run must succeed: redis-benchmark exits 1 on an error reply, ThriftLoad on any failed call
# or missing key.
# Environment: KV_PORT, THRIFT_PORT, KV_FLAGS (more server flags), KV_JAVA_OPTS (replaces
# bin/kvstore-server's JVM flags), LOAD_JAVA_OPTS (the ThriftLoad JVM's flags).
# Builds kvstore-server/target/kvstore-server.jar and kvstore-bench/target/benchmarks.jar when
# missing. Writes the Markdown table to stdout and to -o (default kvstore-bench/target/thrift-compare.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=100000
REPEATS=3
CLIENTS=50
SIZE=100
KEYSPACE=100000
DURABILITY=periodic
OUT="$ROOT/kvstore-bench/target/thrift-compare.md"
SETTLE=1
MODE=selector
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -R) REPEATS="$2"; shift 2 ;;
    -W) WARMUP="$2"; shift 2 ;;
    -c) CLIENTS="$2"; shift 2 ;;
    -d) SIZE="$2"; shift 2 ;;
    -r) KEYSPACE="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    --durability) DURABILITY="$2"; shift 2 ;;
    --no-settle) SETTLE=0; shift ;;
    --mode) MODE="$2"; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
WARMUP=${WARMUP:-$N}
THRIFT_PORT=${THRIFT_PORT:-19090}
BENCH_JAR="$ROOT/kvstore-bench/target/benchmarks.jar"

NAME=thrift-compare
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init
if [[ ! -f "$BENCH_JAR" ]]; then
  (cd "$ROOT" && ./mvnw -q -B -DskipTests package -pl kvstore-bench -am)
fi

# Only kvstore is needed here (bench-servers.sh's start_servers also starts Redis and turns
# Thrift off); started the same way, with Thrift on THRIFT_PORT.
thrift_port_free() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$THRIFT_PORT") 2>/dev/null; then
    echo "$NAME: something already listens on port $THRIFT_PORT; stop it (or set THRIFT_PORT)" >&2
    exit 1
  fi
}
start_kvstore() { # durability
  rm -rf "$WORK/kv"
  port_free "$KV_PORT"
  thrift_port_free
  # shellcheck disable=SC2086
  KVSTORE_JAVA_OPTS="${KV_JAVA_OPTS:-}" "$ROOT/bin/kvstore-server" --data-dir "$WORK/kv" --bind 127.0.0.1 \
    --resp-port "$KV_PORT" --http-port -1 --thrift-port "$THRIFT_PORT" --durability "$1" --log-level warn \
    ${KV_FLAGS:-} >"$WORK/kv.log" 2>&1 &
  KV_PID=$!
  wait_ping "$KV_PORT" || { cat "$WORK/kv.log" >&2; exit 1; }
  kill -0 "$KV_PID" || { echo "$NAME: the server exited at start" >&2; cat "$WORK/kv.log" >&2; exit 1; }
  (exec 3<>"/dev/tcp/127.0.0.1/$THRIFT_PORT") 2>/dev/null \
    || { echo "$NAME: the server does not listen on Thrift port $THRIFT_PORT" >&2; exit 1; }
}

# resp REQUESTS -> lines "put rps p50 p99" and "get rps p50 p99"
resp() {
  local csv
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$KV_PORT" -c "$CLIENTS" -d "$SIZE" -n "$1" -r "$KEYSPACE" \
      -t set,get --csv 2>"$WORK/bench.err")"; then
    echo "$NAME: redis-benchmark failed: $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  echo "$csv" | tr -d '"' | awk -F, '$1=="SET" {print "put", $2, $5, $7} $1=="GET" {print "get", $2, $5, $7}'
}

# thrift OP REQUESTS [ThriftLoad flags] -> a line "OP rps p50 p99 warmup_requests"
thrift() {
  local op=$1 n=$2 line
  shift 2
  # shellcheck disable=SC2086
  if ! line="$(java ${LOAD_JAVA_OPTS:--Xms512m -Xmx512m -XX:+UseParallelGC} -cp "$BENCH_JAR" \
      org.kvstore.bench.ThriftLoad "$op" --port "$THRIFT_PORT" --clients "$CLIENTS" --value-size "$SIZE" \
      --keyspace "$KEYSPACE" --requests "$n" --mode "$MODE" "$@" 2>"$WORK/load.err" | grep '^op=')"; then
    echo "$NAME: ThriftLoad $op failed: $(cat "$WORK/load.err")" >&2
    exit 1
  fi
  # op=get clients=50 requests=... seconds=... rps=... p50_ms=... p99_ms=...
  awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
         print f["op"], f["rps"], f["p50_ms"], f["p99_ms"], f["warmup_requests"] }' <<<"$line"
}

# median OP < lines from several runs -> "rps p50 p99" of the median-throughput run
median() {
  grep "^$1 " | sort -k2,2 -g | awk '{ line[NR] = $2 " " $3 " " $4 } END { print line[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
after_run() { if [[ $SETTLE == 1 ]]; then settle "$KV_PID"; fi; }
HZ="$(getconf CLK_TCK)"
us_per_request() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }'; }

start_kvstore "$DURABILITY"

{
  echo "thrift-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')),"
  echo "$(java -version 2>&1 | head -1), $(redis-benchmark --version 2>/dev/null | head -1 || true)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); kvstore --durability $DURABILITY, flags: ${KV_FLAGS:-none}; server JVM: ${KV_JAVA_OPTS:-bin/kvstore-server defaults}; ThriftLoad JVM: ${LOAD_JAVA_OPTS:--Xms512m -Xmx512m -XX:+UseParallelGC}"
  echo "$CLIENTS clients (Thrift: $MODE), $SIZE-byte values, $KEYSPACE keys, unpipelined; -n $N per run, median of $REPEATS rounds after a warm-up of $WARMUP; settle between runs: $([[ $SETTLE == 1 ]] && echo yes || echo no)"
  echo
  echo "| op | RESP rps | RESP p50 ms | RESP p99 ms | Thrift rps | Thrift p50 ms | Thrift p99 ms | Thrift/RESP | RESP CPU us/req | Thrift CPU us/req |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$OUT.tmp"

# Warm-up, not recorded; its Thrift get preloads every key.
resp "$WARMUP" >/dev/null
after_run
thrift put "$WARMUP" >/dev/null
after_run
thrift get "$WARMUP" --preload true >/dev/null
after_run

# Each measured ThriftLoad run first warms its own fresh JVM for 1 s on its connections (not
# counted in its rps or percentiles; redis-benchmark, in C, needs none); the server CPU per request
# counts those calls too.
resp_runs=""; thrift_runs=""; resp_ticks=0
declare -A ticks=([put]=0 [get]=0) calls=([put]=0 [get]=0)
for ((r = 0; r < REPEATS; r++)); do
  t0="$(cpu_ticks "$KV_PID")"
  resp_runs+="$(resp "$N")"$'\n'
  after_run
  resp_ticks=$((resp_ticks + $(cpu_ticks "$KV_PID") - t0))
  for op in put get; do
    t0="$(cpu_ticks "$KV_PID")"
    line="$(thrift "$op" "$N" --warmup-seconds 1 --preload false)"
    after_run
    ticks[$op]=$((ticks[$op] + $(cpu_ticks "$KV_PID") - t0))
    calls[$op]=$((calls[$op] + N + $(awk '{ print $5 }' <<<"$line")))
    thrift_runs+="$line"$'\n'
  done
done

resp_us="$(us_per_request "$resp_ticks" $((2 * N * REPEATS)))"
for op in put get; do
  read -r rrps rp50 rp99 <<<"$(median "$op" <<<"$resp_runs")"
  read -r trps tp50 tp99 _ <<<"$(median "$op" <<<"$thrift_runs")"
  echo "| $op | $rrps | $rp50 | $rp99 | $trps | $tp50 | $tp99 | $(ratio "$trps" "$rrps") | $resp_us | $(us_per_request "${ticks[$op]}" "${calls[$op]}") |" \
    | tee -a "$OUT.tmp"
done
{
  echo
  echo "runs (op rps p50 p99): RESP $(grep . <<<"$resp_runs" | paste -sd, - | sed 's/,/, /g');" \
    "Thrift $(grep . <<<"$thrift_runs" | cut -d' ' -f1-4 | paste -sd, - | sed 's/,/, /g')"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo
echo "every run succeeded (redis-benchmark exit 0, ThriftLoad with no failed call); results in $OUT"
