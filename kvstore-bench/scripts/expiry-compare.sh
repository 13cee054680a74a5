#!/usr/bin/env bash
# expiry-compare.sh: the cost of a time to live on writes. redis-benchmark sends plain
# "SET key:__rand_int__ V" and "SET key:__rand_int__ V EX 60" to kvstore-server and to Debian's
# redis-server 7 in the same run, on loopback only, alternating the commands and the servers.
#
#   kvstore-bench/scripts/expiry-compare.sh [-n REQUESTS] [-R REPEATS] [-o RESULTS.md]
#       [--case "CLIENTS SIZE PIPELINE"]... [--durability sync|periodic]
#
# Cases (default): 50 clients, 3-byte values, not pipelined; 50 clients, 500-byte values, -P 16.
# Each case runs REPEATS times (default 5) in the order kv SET, kv SET EX, redis SET, redis SET EX
# (after one unrecorded warm-up round), every run waiting for its server to be idle before the next
# (settle, bench-servers.sh). The table shows each command's median throughput, and the ratios the
# issue's target is about: SET EX / SET on each server (kvstore must keep at least 0.9).
# A pipelined case's runs are 5 x REQUESTS. Writes a Markdown table to stdout and to -o (default
# kvstore-bench/target/expiry-compare.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=200000
OUT="$ROOT/kvstore-bench/target/expiry-compare.md"
REPEATS=5
ONLY_CASES=()
PAIRING="periodic everysec"
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    -R) REPEATS="$2"; shift 2 ;;
    --case) ONLY_CASES+=("$2"); shift 2 ;;
    --durability)
      case "$2" in
        sync) PAIRING="sync always" ;;
        periodic) PAIRING="periodic everysec" ;;
        *) echo "--durability takes sync or periodic, not $2" >&2; exit 2 ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

NAME=expiry-compare
# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init

# run port clients value pipeline requests [EX] -> throughput (requests per second)
run() {
  local port=$1 clients=$2 value=$3 pipe=$4 n=$5 csv
  shift 5
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$port" -c "$clients" -P "$pipe" -n "$n" -r 100000 --csv \
      SET key:__rand_int__ "$value" "$@" 2>"$WORK/bench.err")"; then
    echo "expiry-compare: redis-benchmark failed on port $port: $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  echo "$csv" | tr -d '"' | awk -F, 'NR > 1 && $2 ~ /^[0-9.]+$/ { print $2; exit }'
}

median() { grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

read -r kvd rfs <<<"$PAIRING"
{
  echo "expiry-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')),"
  echo "$(java -version 2>&1 | head -1), $(redis-server --version | cut -d' ' -f3); kvstore --durability $kvd, redis appendfsync $rfs"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); -n $N -r 100000 per run ($((5 * N)) pipelined), median of $REPEATS runs"
  echo
  echo "| clients | value | pipeline | kv SET rps | kv SET EX 60 rps | kv EX/SET | redis SET rps | redis SET EX 60 rps | redis EX/SET | kv/redis (SET EX) |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$OUT.tmp"

CASES=("50 3 1" "50 500 16")
if [[ ${#ONLY_CASES[@]} -gt 0 ]]; then CASES=("${ONLY_CASES[@]}"); fi

start_servers "$kvd" "$rfs"
for c in "${CASES[@]}"; do
  read -r clients size pipe <<<"$c"
  value="$(head -c "$size" /dev/zero | tr '\0' 'x')"
  n=$N
  if ((pipe > 1)); then n=$((5 * N)); fi
  kv_set=""; kv_ex=""; rd_set=""; rd_ex=""
  for ((r = -1; r < REPEATS; r++)); do
    a="$(run "$KV_PORT" "$clients" "$value" "$pipe" "$n")"; settle "$KV_PID"
    b="$(run "$KV_PORT" "$clients" "$value" "$pipe" "$n" EX 60)"; settle "$KV_PID"
    c2="$(run "$REDIS_PORT" "$clients" "$value" "$pipe" "$n")"; settle "$REDIS_PID"
    d="$(run "$REDIS_PORT" "$clients" "$value" "$pipe" "$n" EX 60)"; settle "$REDIS_PID"
    if ((r >= 0)); then
      kv_set+="$a"$'\n'; kv_ex+="$b"$'\n'; rd_set+="$c2"$'\n'; rd_ex+="$d"$'\n'
      echo "  run $r: kv SET $a, kv SET EX $b, redis SET $c2, redis SET EX $d" >&2
    fi
  done
  ks="$(median <<<"$kv_set")"; ke="$(median <<<"$kv_ex")"
  rs="$(median <<<"$rd_set")"; re="$(median <<<"$rd_ex")"
  echo "| $clients | $size B | $pipe | $ks | $ke | $(ratio "$ke" "$ks") | $rs | $re | $(ratio "$re" "$rs") | $(ratio "$ke" "$re") |" | tee -a "$OUT.tmp"
done
stop_servers
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo "results in $OUT"
