#!/usr/bin/env bash
# build-compare.sh: two builds of kvstore-server against each other in the same run ("is it slower
# than before?"), on loopback only. Both jars run side by side with the same JVM flags
# (bin/kvstore-server's, or KV_JAVA_OPTS) and the same server flags; redis-benchmark drives them in
# turn, the order flipping every round so neither build always runs first.
#
#   kvstore-bench/scripts/build-compare.sh --before OLD.jar [--after NEW.jar] [-n REQUESTS] [-R ROUNDS]
#       [--case "CLIENTS SIZE PIPELINE"]... [--durability periodic|sync|none] [-o RESULTS.md]
#
# --after defaults to this checkout's kvstore-server/target/kvstore-server.jar. A jar of an older
# commit: git worktree add /tmp/old COMMIT && (cd /tmp/old && ./mvnw -q -B -DskipTests package -pl
# kvstore-server -am), then --before /tmp/old/kvstore-server/target/kvstore-server.jar.
# Cases (default): 50 clients, 3-byte values, unpipelined; 50 clients, 500-byte values, -P 16. Each
# case runs `redis-benchmark -t set,get -r 100000` ROUNDS times (default 5) on each build (-n
# REQUESTS, default 200,000; pipelined cases 5 x REQUESTS), after one unrecorded warm-up run per
# build and case; every run waits for its server to be idle before the next. The table shows each
# build's median throughput, the after/before ratio of the medians, the lowest and highest ratio of
# one round's pair, and each build's server CPU microseconds per request over all its rounds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=200000
ROUNDS=5
CASES=()
DURABILITY=periodic
BEFORE=""
AFTER="$ROOT/kvstore-server/target/kvstore-server.jar"
OUT="$ROOT/kvstore-bench/target/build-compare.md"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --before) BEFORE="$2"; shift 2 ;;
    --after) AFTER="$2"; shift 2 ;;
    -n) N="$2"; shift 2 ;;
    -R) ROUNDS="$2"; shift 2 ;;
    --case) CASES+=("$2"); shift 2 ;;
    --durability) DURABILITY="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -n "$BEFORE" ]] || { echo "build-compare: --before JAR is required" >&2; exit 2; }
for jar in "$BEFORE" "$AFTER"; do
  [[ -f "$jar" ]] || { echo "build-compare: no such jar: $jar" >&2; exit 2; }
done
if [[ ${#CASES[@]} -eq 0 ]]; then
  CASES=("50 3 1" "50 500 16")
fi

NAME=build-compare
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init
BEFORE_PORT=${BEFORE_PORT:-16381}
AFTER_PORT=${AFTER_PORT:-16382}
declare -A PID

start() { # name jar port
  rm -rf "$WORK/$1"
  port_free "$3"
  # shellcheck disable=SC2086
  java ${KV_JAVA_OPTS:--Xms2g -Xmx2g -XX:+UseZGC -XX:+AlwaysPreTouch -XX:MetaspaceSize=128m} -jar "$2" \
    --data-dir "$WORK/$1" --bind 127.0.0.1 --resp-port "$3" --http-port -1 --thrift-port -1 \
    --durability "$DURABILITY" --log-level warn ${KV_FLAGS:-} >"$WORK/$1.log" 2>&1 &
  PID[$1]=$!
  wait_ping "$3" || { cat "$WORK/$1.log" >&2; exit 1; }
}
stop_builds() {
  for p in "${PID[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  bench_servers_cleanup
}
trap stop_builds EXIT

# bench port clients size pipeline requests -> lines "SET rps" and "GET rps"
bench() {
  local csv
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$1" -c "$2" -d "$3" -P "$4" -n "$5" -r 100000 -t set,get --csv \
      2>"$WORK/bench.err")"; then
    echo "$NAME: redis-benchmark failed on port $1: $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  echo "$csv" | tr -d '"' | awk -F, '$1=="SET" || $1=="GET" { print $1, $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
HZ="$(getconf CLK_TCK)"

start before "$BEFORE" "$BEFORE_PORT"
start after "$AFTER" "$AFTER_PORT"
{
  echo "build-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(java -version 2>&1 | head -1)"
  echo "before: $BEFORE ($(stat -c %y "$BEFORE" | cut -d. -f1)); after: $AFTER ($(stat -c %y "$AFTER" | cut -d. -f1))"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); --durability $DURABILITY; JVM: ${KV_JAVA_OPTS:-bin/kvstore-server defaults}; -n $N (pipelined 5 x), $ROUNDS rounds, order flipped each round"
  echo
  echo "| clients | value | pipeline | op | before rps | after rps | after/before | lowest, highest round | before CPU us/req | after CPU us/req |"
  echo "|---:|---:|---:|---|---:|---:|---:|---|---:|---:|"
} | tee "$OUT.tmp"

for c in "${CASES[@]}"; do
  read -r clients size pipe <<<"$c"
  n=$N
  ((pipe > 1)) && n=$((5 * N))
  declare -A ticks=([before]=0 [after]=0)
  runs=""
  for build in before after; do
    port=$BEFORE_PORT; [[ $build == after ]] && port=$AFTER_PORT
    bench "$port" "$clients" "$size" "$pipe" "$n" >/dev/null
    settle "${PID[$build]}"
  done
  for ((r = 0; r < ROUNDS; r++)); do
    order="before after"; ((r % 2 == 1)) && order="after before"
    for build in $order; do
      port=$BEFORE_PORT; [[ $build == after ]] && port=$AFTER_PORT
      t0=$(cpu_ticks "${PID[$build]}")
      runs+="$(bench "$port" "$clients" "$size" "$pipe" "$n" | sed "s/^/$r $build /")"$'\n'
      settle "${PID[$build]}"
      ticks[$build]=$((ticks[$build] + $(cpu_ticks "${PID[$build]}") - t0))
    done
    echo "  round $r: $(grep "^$r " <<<"$runs" | cut -d' ' -f2- | paste -sd, - | sed 's/,/, /g')" >&2
  done
  for op in SET GET; do
    b=$(awk -v op=$op '$2=="before" && $3==op { print $4 }' <<<"$runs" | median)
    a=$(awk -v op=$op '$2=="after" && $3==op { print $4 }' <<<"$runs" | median)
    spread=$(awk -v op=$op '$3==op { v[$1, $2] = $4; rounds[$1] = 1 }
      END { lo = 1e9; hi = 0; for (r in rounds) { q = v[r, "after"] / v[r, "before"]; if (q < lo) lo = q; if (q > hi) hi = q }
            printf "%.2f, %.2f", lo, hi }' <<<"$runs")
    us() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }'; }
    echo "| $clients | $size B | $pipe | $op | $b | $a | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }') | $spread | $(us "${ticks[before]}" $((2 * n * ROUNDS))) | $(us "${ticks[after]}" $((2 * n * ROUNDS))) |" \
      | tee -a "$OUT.tmp"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); CPU per request counts SET and GET together" | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo "results in $OUT"
