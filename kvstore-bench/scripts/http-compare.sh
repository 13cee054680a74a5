#!/usr/bin/env bash
# http-compare.sh: the same kvstore-server's HTTP API (wrk) against its RESP port (redis-benchmark),
# in the same run, on loopback only.
#
#   kvstore-bench/scripts/http-compare.sh [-d SECONDS] [-n REQUESTS] [-R REPEATS] [-c CONNECTIONS]
#       [--durability periodic|sync|none] [-o RESULTS.md]
#
# One server (bin/kvstore-server, so its JVM flags; KV_JAVA_OPTS replaces them, KV_FLAGS adds flags)
# with RESP on KV_PORT (16379) and HTTP on HTTP_PORT (18080), durability periodic by default. Both
# tools use CONNECTIONS (50) keep-alive connections, unpipelined, 100-byte values and the same
# 100,000 keys of table default/0 (redis-benchmark's key:__rand_int__ names, key:000000012345):
#   HTTP PUT  wrk -t2 -c50 -d SECONDS, PUT  /v1/dbs/default/tables/0/keys/key:NNNNNNNNNNNN
#   HTTP GET  wrk -t2 -c50 -d SECONDS, GET  the same URLs
#   RESP SET  redis-benchmark -c 50 -n REQUESTS -d 100 -r 100000 -t set
#   RESP GET  redis-benchmark -c 50 -n REQUESTS -d 100 -r 100000 -t get
# First a warm-up, not recorded: every case once. Then REPEATS rounds (default 3), each running
# RESP SET, HTTP PUT, RESP GET, HTTP GET in turn (alternating the protocols), and the table shows each
# case's median-throughput run with its p50 and p99 latencies and the HTTP/RESP throughput ratio.
# Needs: wrk (apt-get install wrk), redis-benchmark and redis-cli (redis-tools), curl, java 17.
# Writes a Markdown table to stdout and to -o (default kvstore-bench/target/http-compare.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NAME=http-compare
DURATION=10
REQUESTS=200000
REPEATS=3
CONNECTIONS=50
DURABILITY=periodic
OUT="$ROOT/kvstore-bench/target/http-compare.md"
KV_PORT=${KV_PORT:-16379}
HTTP_PORT=${HTTP_PORT:-18080}

while [[ $# -gt 0 ]]; do
  case "$1" in
    -d) DURATION=$2; shift 2 ;;
    -n) REQUESTS=$2; shift 2 ;;
    -R) REPEATS=$2; shift 2 ;;
    -c) CONNECTIONS=$2; shift 2 ;;
    --durability) DURABILITY=$2; shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "$NAME: unknown argument $1" >&2; exit 2 ;;
  esac
done

for bin in wrk redis-benchmark redis-cli curl java; do
  command -v "$bin" >/dev/null || { echo "$NAME: $bin is not installed" >&2; exit 1; }
done
if [[ ! -f "$ROOT/kvstore-server/target/kvstore-server.jar" ]]; then
  (cd "$ROOT" && ./mvnw -q -B -DskipTests package -pl kvstore-server -am)
fi
WORK="$(mktemp -d "/tmp/$NAME.XXXXXX")"
KV_PID=""
cleanup() {
  [[ -n "$KV_PID" ]] && kill "$KV_PID" 2>/dev/null && wait "$KV_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if redis-cli -p "$KV_PORT" ping >/dev/null 2>&1 || curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/health"; then
  echo "$NAME: something already answers on port $KV_PORT or $HTTP_PORT; stop it (or set KV_PORT/HTTP_PORT)" >&2
  exit 1
fi
# shellcheck disable=SC2086
KVSTORE_JAVA_OPTS="${KV_JAVA_OPTS:-}" "$ROOT/bin/kvstore-server" --data-dir "$WORK/kv" --bind 127.0.0.1 \
  --resp-port "$KV_PORT" --http-port "$HTTP_PORT" --thrift-port -1 --durability "$DURABILITY" --log-level warn \
  ${KV_FLAGS:-} >"$WORK/kv.log" 2>&1 &
KV_PID=$!
for _ in $(seq 1 300); do
  [[ "$(curl -s "http://127.0.0.1:$HTTP_PORT/ready" 2>/dev/null)" == *'"status":"UP"'* ]] && break
  kill -0 "$KV_PID" 2>/dev/null || { echo "$NAME: the server exited at start:" >&2; cat "$WORK/kv.log" >&2; exit 1; }
  sleep 0.1
done

cat >"$WORK/put.lua" <<'LUA'
wrk.method = "PUT"
wrk.body = string.rep("x", 100)
wrk.headers["Content-Type"] = "application/octet-stream"
request = function()
  return wrk.format(nil, string.format("/v1/dbs/default/tables/0/keys/key:%012d", math.random(0, 99999)))
end
LUA
cat >"$WORK/get.lua" <<'LUA'
request = function()
  return wrk.format("GET", string.format("/v1/dbs/default/tables/0/keys/key:%012d", math.random(0, 99999)))
end
-- a missing key (404) is a valid answer; any other non-2xx is counted and fails the run
local errors = 0
response = function(status, headers, body)
  if status ~= 200 and status ~= 404 and status ~= 201 and status ~= 204 then errors = errors + 1 end
end
LUA
sed -n '/^local errors/,$p' "$WORK/get.lua" >>"$WORK/put.lua"

# to_ms VALUE UNIT -> milliseconds (wrk prints 812.00us, 1.20ms, 1.02s)
to_ms() {
  awk -v v="$1" 'BEGIN { if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v); print v + 0 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 } else print v }'
}

# run_http put|get -> "RPS P50_MS P99_MS"
run_http() {
  local out
  out="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$1.lua" "http://127.0.0.1:$HTTP_PORT" 2>&1)"
  if grep -q "Non-2xx or 3xx responses" <<<"$out" && [[ "$1" == put ]]; then
    echo "$NAME: HTTP PUT had error responses:" >&2; echo "$out" >&2; exit 1
  fi
  if grep -q "Socket errors" <<<"$out"; then
    echo "$NAME: wrk reported socket errors:" >&2; echo "$out" >&2; exit 1
  fi
  local rps p50 p99
  rps="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")"
  p50="$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")")"
  p99="$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")"
  echo "$rps $p50 $p99"
}

# run_resp_full set|get -> "RPS P50_MS P99_MS" from the latency distribution redis-benchmark prints
run_resp_full() {
  local out
  out="$(redis-benchmark -p "$KV_PORT" -c "$CONNECTIONS" -n "$REQUESTS" -d 100 -r 100000 -t "$1" 2>&1 | tr '\r' '\n')"
  grep -q "requests per second" <<<"$out" || { echo "$NAME: redis-benchmark -t $1 failed:" >&2; echo "$out" >&2; exit 1; }
  local rps p50 p99
  rps="$(awk '/throughput summary:/ { print $3 }' <<<"$out")"
  # "  avg       min       p50       p95       p99       max" then the values
  p50="$(awk '/latency summary/ { getline; getline; print $3 }' <<<"$out")"
  p99="$(awk '/latency summary/ { getline; getline; print $5 }' <<<"$out")"
  echo "$rps $p50 $p99"
}

declare -A RESULTS
record() { RESULTS["$1"]+="$2;"; }

echo "$NAME: warm-up (every case once, not recorded)" >&2
run_resp_full set >/dev/null; run_http put >/dev/null; run_resp_full get >/dev/null; run_http get >/dev/null
for r in $(seq 1 "$REPEATS"); do
  echo "$NAME: round $r of $REPEATS" >&2
  record "RESP SET" "$(run_resp_full set)"
  record "HTTP PUT" "$(run_http put)"
  record "RESP GET" "$(run_resp_full get)"
  record "HTTP GET" "$(run_http get)"
done

# median CASE -> the run ("RPS P50 P99") with the median throughput
median() {
  tr ';' '\n' <<<"${RESULTS[$1]}" | sed '/^$/d' | sort -n -k1,1 | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'
}

mkdir -p "$(dirname "$OUT")"
{
  echo "## HTTP (wrk) vs RESP (redis-benchmark), same server"
  echo
  echo "durability $DURABILITY, $CONNECTIONS keep-alive connections, unpipelined, 100-byte values, 100,000 keys;"
  echo "wrk ${DURATION} s per run, redis-benchmark $REQUESTS requests per run; median of $REPEATS alternating rounds."
  echo
  echo "| case | requests/s | p50 ms | p99 ms | HTTP / RESP |"
  echo "|---|---:|---:|---:|---:|"
  for pair in "PUT SET" "GET GET"; do
    read -r h r <<<"$pair"
    read -r hr hp50 hp99 <<<"$(median "HTTP $h")"
    read -r rr rp50 rp99 <<<"$(median "RESP $r")"
    ratio="$(awk -v a="$hr" -v b="$rr" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    printf '| RESP %s | %.0f | %s | %s | |\n' "$r" "$rr" "$rp50" "$rp99"
    printf '| HTTP %s | %.0f | %s | %s | %s |\n' "$h" "$hr" "$hp50" "$hp99" "$ratio"
  done
} | tee "$OUT"
