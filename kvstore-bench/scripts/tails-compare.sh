#!/usr/bin/env bash
# tails-compare.sh: latency tails and collector pauses under a sustained write load, kvstore-server
# under several JVMs and collectors against Debian's redis-server 7, in the same run, on loopback.
#
#   kvstore-bench/scripts/tails-compare.sh [-n REQUESTS] [-u REQUESTS] [-R REPEATS] [-o RESULTS.md]
#       [--load pipelined|unpipelined]... [--variant "NAME;JAVA_HOME;FLAGS"]... [--launcher]
#       [--durability periodic|sync]
#
# Loads (each on a freshly started, empty server, so that it is the sustained load of issue 25):
#   pipelined    redis-benchmark -t set -n REQUESTS (4,000,000) -r 100000000 -d 500 -c 50 -P 16
#   unpipelined  the same with -P 1 and -u REQUESTS (2,000,000: about 30 s)
# Variants: kvstore-server started by bin/kvstore-server with KVSTORE_JAVA_OPTS=FLAGS ("-": unset,
# the launcher's own defaults, whatever they are) and JAVA_HOME=JAVA_HOME ("-": the java on PATH,
# JDK 17 here). Defaults, all with a fixed 2 GiB heap touched at start, as the launcher's:
#   parallel       JDK 17, -Xmn1g -XX:+UseParallelGC (the launcher's flags when this was written)
#   g1             JDK 17, -XX:+UseG1GC -XX:MaxGCPauseMillis=20
#   zgc            JDK 17, -XX:+UseZGC (single-generation ZGC)
#   g1-jdk25       JDK 25 (JDK25, default /usr/lib/jvm/temurin-25-jdk-amd64), G1 as above
#   zgc-jdk25      JDK 25, -XX:+UseZGC (generational: the only ZGC since JDK 24)
# --variant replaces that list (repeatable); --launcher adds "launcher" (the launcher's defaults on
# the java on PATH) and, when JDK25 exists, "launcher-jdk25" (its defaults on JDK 25).
# Every kvstore run logs its collector through JDK_JAVA_OPTIONS (read by the java launcher, so the
# variant's own flags stay as given): -Xlog:gc*,safepoint to a file in the work directory, parsed
# after the run for the pauses (unified-logging lines "Pause ... N.NNNms": parallel and G1
# collections, ZGC's Pause Mark Start/Mark End/Relocate Start), ZGC's "Allocation Stall" lines (an
# application thread waiting for the collector) and the longest safepoint (the whole stop: time to
# reach the safepoint included). The log covers the server's start too.
# Each round (REPEATS rounds, default 1) runs, for each load, Redis first (appendonly yes,
# appendfsync everysec; fresh) and then every variant (fresh servers, the variants' order rotated
# by one each round); every server waits until idle (settle in bench-servers.sh) before its run and
# is stopped after it. The server's RSS (VmRSS) is read at the end of its run.
# Writes, per load, a table of each variant over all rounds: mean throughput, the worst p50, p99 and
# max latency of its runs and their ratios to Redis' worst, the collector's pauses, and whether the
# issue's targets hold (max <= 2x Redis, p99 <= 1.5x Redis, no pause or allocation stall over 50 ms);
# then every run on its own. To stdout and to -o (default kvstore-bench/target/tails-compare.md).
# KV_FLAGS adds kvstore server flags. Needs: redis-server, redis-benchmark 7 (its --csv has the
# percentiles), java 17, Linux (/proc).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NAME=tails-compare
N=4000000
NU=2000000
REPEATS=1
OUT="$ROOT/kvstore-bench/target/tails-compare.md"
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
KVD=periodic
LOADS=()
VARIANTS=()
LAUNCHER=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -u) NU="$2"; shift 2 ;;
    -R) REPEATS="$2"; shift 2 ;;
    -o) OUT="$2"; shift 2 ;;
    --load)
      case "$2" in pipelined|unpipelined) LOADS+=("$2") ;; *) echo "--load takes pipelined or unpipelined, not $2" >&2; exit 2 ;; esac
      shift 2 ;;
    --variant) VARIANTS+=("$2"); shift 2 ;;
    --launcher) LAUNCHER=1; shift ;;
    --durability)
      case "$2" in periodic|sync) KVD="$2" ;; *) echo "--durability takes periodic or sync, not $2" >&2; exit 2 ;; esac
      shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ $KVD == sync ]]; then RFS=always; else RFS=everysec; fi
if [[ ${#LOADS[@]} -eq 0 ]]; then LOADS=(pipelined unpipelined); fi
HEAP="-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
if [[ ${#VARIANTS[@]} -eq 0 ]]; then
  VARIANTS=(
    "parallel;-;$HEAP -Xmn1g -XX:+UseParallelGC"
    "g1;-;$HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20"
    "zgc;-;$HEAP -XX:+UseZGC"
  )
  if [[ -x "$JDK25/bin/java" ]]; then
    VARIANTS+=(
      "g1-jdk25;$JDK25;$HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20"
      "zgc-jdk25;$JDK25;$HEAP -XX:+UseZGC"
    )
  fi
fi
if [[ $LAUNCHER == 1 ]]; then
  VARIANTS+=("launcher;-;-")
  if [[ -x "$JDK25/bin/java" ]]; then VARIANTS+=("launcher-jdk25;$JDK25;-"); fi
fi
for v in "${VARIANTS[@]}"; do
  IFS=';' read -r vname vhome _ <<<"$v"
  [[ -n "$vname" && "$vname" != *" "* ]] || { echo "$NAME: a variant needs a name without spaces: $v" >&2; exit 2; }
  [[ "$vhome" == - || -x "$vhome/bin/java" ]] || { echo "$NAME: no $vhome/bin/java (variant $vname)" >&2; exit 2; }
done

# shellcheck source=bench-servers.sh
source "$ROOT/kvstore-bench/scripts/bench-servers.sh"
bench_servers_init
RUNS="$WORK/runs.txt"
: >"$RUNS"

# Unlike start_servers, one server at a time: each run gets a fresh server and nothing else.
start_kv() { # java-home flags gc-log
  rm -rf "$WORK/kv"
  port_free "$KV_PORT"
  (
    if [[ $1 == - ]]; then unset JAVA_HOME; else export JAVA_HOME="$1"; fi
    if [[ $2 == - ]]; then unset KVSTORE_JAVA_OPTS; else export KVSTORE_JAVA_OPTS="$2"; fi
    export JDK_JAVA_OPTIONS="-Xlog:gc*,safepoint:file=$3:uptime,level,tags:filecount=0"
    # shellcheck disable=SC2086
    exec "$ROOT/bin/kvstore-server" --data-dir "$WORK/kv" --bind 127.0.0.1 --resp-port "$KV_PORT" \
      --http-port -1 --thrift-port -1 --durability "$KVD" --log-level warn ${KV_FLAGS:-}
  ) >"$WORK/kv.log" 2>&1 &
  KV_PID=$!
  wait_ping "$KV_PORT" || { cat "$WORK/kv.log" >&2; exit 1; }
  kill -0 "$KV_PID" || { echo "$NAME: kvstore-server exited at start" >&2; exit 1; }
}

start_redis() {
  rm -rf "$WORK/redis"; mkdir -p "$WORK/redis"
  port_free "$REDIS_PORT"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$WORK/redis" --save "" \
    --appendonly yes --appendfsync "$RFS" --maxclients 10000 --daemonize no --logfile "$WORK/redis.log" &
  REDIS_PID=$!
  wait_ping "$REDIS_PORT"
  local fs
  fs="$(redis-cli -p "$REDIS_PORT" config get appendfsync | tail -1)"
  [[ "$fs" == "$RFS" ]] || { echo "$NAME: redis on $REDIS_PORT has appendfsync $fs, not $RFS" >&2; exit 1; }
}

stop_pid() { kill "$1"; wait "$1" 2>/dev/null || true; }

# bench port load -> "rps p50 p99 max" (ms) of the SETs
bench() {
  local csv pipe=16 n=$N
  if [[ $2 == unpipelined ]]; then pipe=1; n=$NU; fi
  if ! csv="$(redis-benchmark -h 127.0.0.1 -p "$1" -t set -n "$n" -r 100000000 -d 500 -c 50 -P "$pipe" \
      --csv 2>"$WORK/bench.err")"; then
    echo "$NAME: redis-benchmark failed on port $1 ($2): $(cat "$WORK/bench.err")" >&2
    exit 1
  fi
  # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  echo "$csv" | tr -d '"' | awk -F, '$1 == "SET" { print $2, $5, $7, $8 }'
}

java_version() { # java-home ("-": the java on PATH)
  local java=java
  if [[ $1 != - ]]; then java="$1/bin/java"; fi
  "$java" -version 2>&1 | head -1 | sed 's/.*"\(.*\)".*/\1/'
}

rss_mib() { awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/$1/status"; }

# gc_stats LOG -> "collector pauses total-ms longest-ms over-50 stalls longest-stall-ms longest-safepoint-ms"
gc_stats() {
  awk '
    collector == "" && /\[gc,init *\].*Using / { c = $0; sub(/.*Using /, "", c); gsub(/ /, "_", c); collector = c }
    collector == "" && /\[gc *\].*Using / { c = $0; sub(/.*Using /, "", c); gsub(/ /, "_", c); collector = c }
    /\[gc(,phases)? *\].* Pause .*[0-9]ms$/ {
      v = $NF; sub(/ms$/, "", v); v += 0
      n++; total += v; if (v > longest) longest = v; if (v > 50) over++
    }
    /Allocation Stall/ && /[0-9]ms$/ {
      v = $NF; sub(/ms$/, "", v); v += 0
      stalls++; if (v > stall) stall = v
    }
    /\[safepoint *\].*Total: [0-9]+ ns/ {
      s = $0; sub(/.*Total: /, "", s); sub(/ ns.*/, "", s); s = s / 1e6
      if (s > sp) sp = s
    }
    END {
      if (collector ~ /Z_Garbage/) collector = "ZGC"
      printf "%s %d %.0f %.1f %d %d %.1f %.1f\n", (collector == "" ? "?" : collector), n, total, longest, over,
        stalls, stall, sp
    }' "$1"
}

# run_kv VARIANT LOAD ROUND: one run on a fresh server, appended to $RUNS
run_kv() {
  local vname vhome vflags log result rss java
  IFS=';' read -r vname vhome vflags <<<"$1"
  log="$WORK/gc-$vname-$2-$3.log"
  start_kv "$vhome" "$vflags" "$log"
  java="$(readlink "/proc/$KV_PID/exe")"
  settle "$KV_PID"
  result="$(bench "$KV_PORT" "$2")"
  rss="$(rss_mib "$KV_PID")"
  stop_pid "$KV_PID"; KV_PID=""
  echo "$2 $3 $vname $result $rss $(gc_stats "$log")" >>"$RUNS"
  echo "  $2 round $3 $vname ($java): $(tail -1 "$RUNS" | cut -d' ' -f4-)" >&2
}

run_redis() { # LOAD ROUND
  local result rss
  start_redis
  settle "$REDIS_PID"
  result="$(bench "$REDIS_PORT" "$1")"
  rss="$(rss_mib "$REDIS_PID")"
  stop_pid "$REDIS_PID"; REDIS_PID=""
  echo "$1 $2 redis $result $rss - 0 0 0.0 0 0 0.0 0.0" >>"$RUNS"
  echo "  $1 round $2 redis: $(tail -1 "$RUNS" | cut -d' ' -f4-)" >&2
}

{
  echo "tails-compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(free -g | awk '/^Mem:/ { print $2 }') GiB,"
  echo "$(java -version 2>&1 | head -1)$([[ -x "$JDK25/bin/java" ]] && echo ", $("$JDK25/bin/java" -version 2>&1 | head -1)"), redis $(redis-server --version | cut -d' ' -f3), $(redis-benchmark --version 2>/dev/null | head -1 || true)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); kvstore --durability $KVD, redis appendonly yes appendfsync $RFS; $REPEATS round(s);"
  echo "SETs of 500 bytes, random keys of -r 100000000, 50 clients: pipelined -P 16 -n $N, unpipelined -P 1 -n $NU; every run on a fresh server"
  echo
  echo "Variants (KVSTORE_JAVA_OPTS; \"-\" is bin/kvstore-server's own defaults; all with -Xlog:gc*,safepoint through JDK_JAVA_OPTIONS):"
  echo
  for v in "${VARIANTS[@]}"; do
    IFS=';' read -r vname vhome vflags <<<"$v"
    echo "- $vname: JDK $(java_version "$vhome"), \`$vflags\`"
  done
} | tee "$OUT.tmp"

for ((r = 1; r <= REPEATS; r++)); do
  for load in "${LOADS[@]}"; do
    run_redis "$load" "$r"
    k=${#VARIANTS[@]}
    for ((i = 0; i < k; i++)); do
      run_kv "${VARIANTS[$(((i + r - 1) % k))]}" "$load" "$r"
    done
  done
done

# RUNS columns: 1 load, 2 round, 3 variant, 4 rps, 5 p50, 6 p99, 7 max, 8 rss MiB, 9 collector, 10 pauses,
# 11 total pause ms, 12 longest pause ms, 13 pauses > 50 ms, 14 stalls, 15 longest stall ms, 16 longest safepoint ms
for load in "${LOADS[@]}"; do
  {
    echo
    echo "### $load ($([[ $load == pipelined ]] && echo "-P 16 -n $N" || echo "-P 1 -n $NU"))"
    echo
    echo "| variant | collector | SET/s | x Redis | p50 ms | p99 ms (x Redis) | max ms (x Redis) | GC pauses (mean) | pause time ms (mean) | longest pause ms | pauses > 50 ms | alloc stalls (longest ms) | longest safepoint ms | RSS MiB | targets |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    awk -v load="$load" -v order="redis $(for v in "${VARIANTS[@]}"; do printf '%s ' "${v%%;*}"; done)" '
      $1 != load { next }
      {
        v = $3; runs[v]++; rps[v] += $4
        if ($5 > p50[v]) p50[v] = $5; if ($6 > p99[v]) p99[v] = $6; if ($7 > mx[v]) mx[v] = $7
        if ($8 > rss[v]) rss[v] = $8; gc[v] = $9; pauses[v] += $10; ptime[v] += $11
        if ($12 > longest[v]) longest[v] = $12; over[v] += $13; stalls[v] += $14
        if ($15 > stall[v]) stall[v] = $15; if ($16 > sp[v]) sp[v] = $16
      }
      END {
        n = split(order, names, " ")
        for (i = 1; i <= n; i++) {
          v = names[i]; if (!(v in runs)) continue
          r = rps[v] / runs[v]
          if (v == "redis") {
            printf "| redis | - | %.0f | 1.00 | %.3f | %.3f | %.3f | - | - | - | - | - | - | %d | - |\n", r, p50[v], p99[v], mx[v], rss[v]
            continue
          }
          fail = ""
          if (mx[v] > 2 * mx["redis"]) fail = fail " max"
          if (p99[v] > 1.5 * p99["redis"]) fail = fail " p99"
          if (longest[v] > 50) fail = fail " pause"
          if (stall[v] > 50) fail = fail " stall"
          printf "| %s | %s | %.0f | %.2f | %.3f | %.3f (%.2f) | %.3f (%.2f) | %.0f | %.0f | %.1f | %d | %d (%.1f) | %.1f | %d | %s |\n",
            v, gc[v], r, r / (rps["redis"] / runs["redis"]), p50[v], p99[v], p99[v] / p99["redis"], mx[v], mx[v] / mx["redis"],
            pauses[v] / runs[v], ptime[v] / runs[v], longest[v], over[v], stalls[v], stall[v], sp[v], rss[v],
            (fail == "" ? "held" : "missed:" fail)
        }
      }' "$RUNS"
  } | tee -a "$OUT.tmp"
done
{
  echo
  echo "Every run (p50, p99, max in ms; pauses: count, total ms, longest ms, over 50 ms; stalls: count, longest ms):"
  echo
  echo "| load | round | variant | SET/s | p50 | p99 | max | RSS MiB | pauses | total | longest | > 50 | stalls | longest stall | longest safepoint |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk '{
    gc = ($3 == "redis" ? "- | - | - | - | - | - | -" : sprintf("%s | %s | %s | %s | %s | %s | %s", $10, $11, $12, $13, $14, $15, $16))
    printf "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, gc
  }' "$RUNS"
  echo
  echo "x Redis: against Redis' mean throughput and its worst p99 and max over the same rounds. Targets (issue 25): max <= 2x Redis', p99 <= 1.5x, no collector pause (or ZGC allocation stall) over 50 ms."
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$OUT.tmp"
mkdir -p "$(dirname "$OUT")"
mv "$OUT.tmp" "$OUT"
echo "every redis-benchmark run exited 0 (no error replies); results in $OUT"
