#!/usr/bin/env bash
# warmup-compare.sh: how fast a freshly started and a restarted kvstore-server serves, with its
# warm-up off and on (docs/decisions/0033-server-warm-up.md), in the same run.
#
#   kvstore-bench/scripts/warmup-compare.sh [-R REPEATS] [-W WARM_RUNS] [-n FIRST] [-s STEP] [-T SECONDS]
#       [-d sync|periodic|none] [-o RESULTS.md] [--variant "NAME|SERVER FLAGS|JVM FLAGS|JAVA_HOME"]...
#
# For each variant, REPEATS times (default 3), the variants alternating:
#  1. starts bin/kvstore-server with a fresh data directory (--durability -d, default periodic;
#     RESP only, on KV_PORT) and times it from launch until it answers PING ("to port");
#  2. at once runs "redis-benchmark -t set,get -n FIRST -c 50 -P 16" (FIRST default 500,000, 3-byte
#     values): the first FIRST SETs and GETs of the server's life ("first");
#  3. runs the same WARM_RUNS times more (default 3); the median is the warm rate ("warm"), and
#     first / warm is the ratio the issue's target (at least 0.8) is about;
#  4. runs short runs of -s STEP (default 100,000) requests 3 times on the warm server: the warm rate
#     of a short run (50 connections set up per run costs a short run more than a long one);
#  5. stops the server (SIGTERM) and starts it again on the same data directory, times it to PING,
#     and from then runs short runs back to back for -T SECONDS (default 10), each timed from the
#     port's opening; "to 0.9" is the end of the first short run whose SET and GET rates both reach
#     0.9 of the warm short-run rates (the target: within 5 s), "-" if none did.
# Variants (default: "off|--warmup-duration 0" and "on|--warmup-duration 5"): NAME, flags
# added to the server's command line, KVSTORE_JAVA_OPTS (empty: bin/kvstore-server's defaults; e.g.
# an AppCDS archive, -XX:SharedArchiveFile=...) and JAVA_HOME (empty: this shell's; e.g.
# /usr/lib/jvm/temurin-25-jdk-amd64). The server log is kept with --log-level info, and the
# warm-up's own line ("warm-up: N requests ... ended by ...") is shown below the table.
# Needs: redis-benchmark, redis-cli, java 17, Linux. Writes a Markdown table to stdout and to -o
# (default kvstore-bench/target/warmup-compare.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPEATS=3
WARM_RUNS=3
FIRST=500000
STEP=100000
SECONDS_AFTER=10
KVD=periodic
OUT="$ROOT/kvstore-bench/target/warmup-compare.md"
VARIANTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -R) REPEATS="$2"; shift 2 ;;
    -W) WARM_RUNS="$2"; shift 2 ;;
    -n) FIRST="$2"; shift 2 ;;
    -s) STEP="$2"; shift 2 ;;
    -T) SECONDS_AFTER="$2"; shift 2 ;;
    -d) KVD="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    --variant) VARIANTS+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ ${#VARIANTS[@]} -eq 0 ]]; then VARIANTS=("off|--warmup-duration 0" "on|--warmup-duration 5"); fi

NAME=warmup-compare
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# median < numbers, one a line
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : 0) }'; }

# start_kv DATA_DIR FLAGS JAVA_OPTS JAVA_HOME: starts the server; sets KV_PID, and TO_PORT to the
# seconds from launch until it answered PING
start_kv() {
  local t0 i
  port_free "$KV_PORT"
  t0="$(now)"
  # shellcheck disable=SC2086
  JAVA_HOME="${4:-${JAVA_HOME:-}}" KVSTORE_JAVA_OPTS="$3" "$ROOT/bin/kvstore-server" --data-dir "$1" \
    --bind 127.0.0.1 --resp-port "$KV_PORT" --http-port -1 --thrift-port -1 --durability "$KVD" \
    --log-level info $2 >>"$1.log" 2>&1 &
  KV_PID=$!
  for ((i = 0; i < 6000; i++)); do
    if [[ "$(redis-cli -p "$KV_PORT" ping 2>/dev/null)" == "PONG" ]]; then
      TO_PORT="$(elapsed "$t0" "$(now)")"
      return 0
    fi
    kill -0 "$KV_PID" 2>/dev/null || { echo "$NAME: the server exited at start; log: $1.log" >&2; exit 1; }
    sleep 0.02
  done
  echo "$NAME: no PONG on port $KV_PORT after 120 s" >&2
  exit 1
}

stop_kv() {
  kill "$KV_PID"
  wait "$KV_PID" 2>/dev/null || true
  KV_PID=""
}

# bench REQUESTS -> "SET_RPS GET_RPS"
bench() {
  local csv
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$KV_PORT" -c 50 -P 16 -n "$1" -t set,get --csv 2>"$WORK/bench.err")"; then
    echo "$NAME: redis-benchmark failed: $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  echo "$csv" | tr -d '"' | awk -F, '$1=="SET" { s = $2 } $1=="GET" { g = $2 } END { print s, g }'
}

{
  echo "warmup-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')),"
  echo "$(java -version 2>&1 | head -1), $(redis-benchmark --version 2>/dev/null | head -1 || true), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "durability $KVD; first: -t set,get -n $FIRST -c 50 -P 16 (3-byte values) as soon as PING answers; warm: median of $WARM_RUNS more;"
  echo "restart: short runs of -n $STEP for $SECONDS_AFTER s from the port's opening; to 0.9: end of the first short run at 0.9 of the warm short-run rate (SET and GET)"
  echo
  echo "| variant | run | to port s | first SET rps | first GET rps | warm SET rps | warm GET rps | first/warm SET | first/warm GET | restart to port s | restart first run SET/GET ratio | restart to 0.9 s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$OUT.tmp"

declare -A SUMMARY
for ((r = 1; r <= REPEATS; r++)); do
  for v in "${VARIANTS[@]}"; do
    IFS='|' read -r vname vflags vopts vhome _ <<<"$v||||"
    data="$WORK/kv-$vname-$r"
    start_kv "$data" "$vflags" "$vopts" "$vhome"
    to_port="$TO_PORT"
    read -r first_set first_get <<<"$(bench "$FIRST")"
    sets=""; gets=""
    for ((w = 0; w < WARM_RUNS; w++)); do
      read -r s g <<<"$(bench "$FIRST")"
      sets+="$s"$'\n'; gets+="$g"$'\n'
    done
    warm_set="$(median <<<"$sets")"; warm_get="$(median <<<"$gets")"
    sets=""; gets=""
    for ((w = 0; w < 3; w++)); do
      read -r s g <<<"$(bench "$STEP")"
      sets+="$s"$'\n'; gets+="$g"$'\n'
    done
    step_set="$(median <<<"$sets")"; step_get="$(median <<<"$gets")"
    stop_kv
    start_kv "$data" "$vflags" "$vopts" "$vhome"
    re_port="$TO_PORT"
    t_open="$(now)"
    to_09="-"; first_ratio=""
    while true; do
      read -r s g <<<"$(bench "$STEP")"
      t="$(elapsed "$t_open" "$(now)")"
      rs="$(ratio "$s" "$step_set")"; rg="$(ratio "$g" "$step_get")"
      [[ -z "$first_ratio" ]] && first_ratio="$rs/$rg"
      if [[ "$to_09" == "-" ]] && awk -v a="$rs" -v b="$rg" 'BEGIN { exit !(a >= 0.9 && b >= 0.9) }'; then
        to_09="$t"
      fi
      echo "$vname $r restart +$t s: SET $s GET $g ($rs/$rg of warm)" >>"$WORK/restart.log"
      if awk -v t="$t" -v T="$SECONDS_AFTER" 'BEGIN { exit !(t >= T) }'; then break; fi
    done
    stop_kv
    fs="$(ratio "$first_set" "$warm_set")"; fg="$(ratio "$first_get" "$warm_get")"
    echo "| $vname | $r | $to_port | $first_set | $first_get | $warm_set | $warm_get | $fs | $fg | $re_port | $first_ratio | $to_09 |" | tee -a "$OUT.tmp"
    SUMMARY[$vname]+="$fs $fg $to_port $re_port ${to_09/-/999}"$'\n'
    grep -h "warm-up: [0-9]" "$data.log" | sed "s/^/$vname $r: /" >>"$WORK/warmup-lines.log" || true
  done
done

{
  echo
  echo "Medians over the runs (to 0.9: 999 = not reached within $SECONDS_AFTER s):"
  echo
  echo "| variant | first/warm SET | first/warm GET | to port s | restart to port s | restart to 0.9 s |"
  echo "|---|---:|---:|---:|---:|---:|"
  for v in "${VARIANTS[@]}"; do
    IFS='|' read -r vname _ <<<"$v|"
    rows="${SUMMARY[$vname]}"
    col() { awk -v c="$1" 'NF { print $c }' <<<"$rows" | median; }
    echo "| $vname | $(col 1) | $(col 2) | $(col 3) | $(col 4) | $(col 5) |"
  done
  echo
  echo "Warm-up log lines:"
  echo
  sed 's/^/    /' "$WORK/warmup-lines.log" 2>/dev/null || true
  echo
  echo "Restarts, every short run (seconds from the port's opening to the run's end):"
  echo
  sed 's/^/    /' "$WORK/restart.log"
  echo
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo "every redis-benchmark run exited 0; results in $OUT"
