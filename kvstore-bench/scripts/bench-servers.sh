# bench-servers.sh: sourced by redis-compare.sh and cpu-per-request.sh (not run on its own).
# Starts kvstore-server (through bin/kvstore-server, so with its JVM flags) and Debian's
# redis-server side by side on loopback, each with a fresh data directory under a temporary work
# directory, and stops them (and removes that directory) when the sourcing script exits.
#
# The sourcing script sets ROOT (the repository) and NAME (its name, for messages) first; then:
#   bench_servers_init            checks the tools, builds the server jar if missing, makes $WORK
#   start_servers KVD FSYNC       kvstore --durability KVD, redis appendonly yes, appendfsync FSYNC;
#                                 sets KV_PID and REDIS_PID (bin/kvstore-server execs java, so
#                                 KV_PID is the JVM's)
#   stop_servers
#   settle PID                    waits until that server and its child processes are idle (see there)
#   cpu_ticks PID                 user + system clock ticks of that server, its threads and the child
#                                 processes it has reaped (Redis' AOF rewrite children)
# Environment: KV_PORT (16379), REDIS_PORT (16380), KV_FLAGS (more kvstore flags), KV_JAVA_OPTS
# (replaces bin/kvstore-server's JVM flags).

KV_PORT=${KV_PORT:-16379}
REDIS_PORT=${REDIS_PORT:-16380}
KV_PID=""
REDIS_PID=""
WORK=""

bench_servers_init() {
  local bin
  for bin in redis-server redis-benchmark redis-cli java; do
    command -v "$bin" >/dev/null || { echo "$NAME: $bin is not installed" >&2; exit 1; }
  done
  if [[ ! -f "$ROOT/kvstore-server/target/kvstore-server.jar" ]]; then
    (cd "$ROOT" && ./mvnw -q -B -DskipTests package -pl kvstore-server -am)
  fi
  WORK="$(mktemp -d "/tmp/$NAME.XXXXXX")"
  trap bench_servers_cleanup EXIT
}

bench_servers_cleanup() {
  [[ -n "$KV_PID" ]] && kill "$KV_PID" 2>/dev/null && wait "$KV_PID" 2>/dev/null || true
  [[ -n "$REDIS_PID" ]] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null || true
  [[ -n "$WORK" ]] && rm -rf "$WORK"
}

wait_ping() { # port
  for _ in $(seq 1 300); do
    if [[ "$(redis-cli -p "$1" ping 2>/dev/null)" == "PONG" ]]; then return 0; fi
    sleep 0.1
  done
  echo "$NAME: no PONG on port $1" >&2
  return 1
}

port_free() { # port
  if redis-cli -p "$1" ping >/dev/null 2>&1; then
    echo "$NAME: something already answers on port $1; stop it (or set KV_PORT/REDIS_PORT)" >&2
    exit 1
  fi
}

start_servers() { # kv-durability redis-appendfsync
  rm -rf "$WORK/kv" "$WORK/redis"; mkdir -p "$WORK/redis"
  port_free "$KV_PORT"
  port_free "$REDIS_PORT"
  # shellcheck disable=SC2086
  KVSTORE_JAVA_OPTS="${KV_JAVA_OPTS:-}" "$ROOT/bin/kvstore-server" --data-dir "$WORK/kv" --bind 127.0.0.1 \
    --resp-port "$KV_PORT" --http-port -1 --thrift-port -1 --durability "$1" --log-level warn ${KV_FLAGS:-} \
    >"$WORK/kv.log" 2>&1 &
  KV_PID=$!
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$WORK/redis" --save "" \
    --appendonly yes --appendfsync "$2" --maxclients 10000 --daemonize no --logfile "$WORK/redis.log" &
  REDIS_PID=$!
  wait_ping "$KV_PORT"
  wait_ping "$REDIS_PORT"
  # The servers answering must be the ones just started, with the settings asked for.
  kill -0 "$KV_PID" && kill -0 "$REDIS_PID" || { echo "$NAME: a server exited at start" >&2; exit 1; }
  local fs
  fs="$(redis-cli -p "$REDIS_PORT" config get appendfsync | tail -1)"
  [[ "$fs" == "$2" ]] || { echo "$NAME: redis on $REDIS_PORT has appendfsync $fs, not $2" >&2; exit 1; }
}

stop_servers() {
  kill "$KV_PID" "$REDIS_PID"
  wait "$KV_PID" "$REDIS_PID" 2>/dev/null || true
  KV_PID=""; REDIS_PID=""
}

# cpu_ticks PID -> user + system clock ticks of the process (all its threads) and of the children it
# has waited for (fields 14-17 of /proc/PID/stat): Redis' AOF rewrite child counts once reaped.
cpu_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }

# live_ticks PID -> cpu_ticks of PID plus the ticks of its running children
live_ticks() {
  local t c
  t=$(cpu_ticks "$1")
  for c in $(pgrep -P "$1" 2>/dev/null); do
    t=$((t + $(awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}

# settle PID: returns once the server PID (its threads and its child processes) used at most one
# clock tick in each of three consecutive 0.2 s windows and has no child process, or after 60 s.
# Background work that one server's run sets off (Redis forks an AOF rewrite child when its log has
# doubled; kvstore flushes a memtable and compacts) otherwise runs on into the next run, which is
# the other server's: on 2 cores that run then competes with it for the CPU.
settle() {
  local quiet=0 t0 t1 deadline=$((SECONDS + 60))
  t0=$(live_ticks "$1")
  while ((quiet < 3)); do
    if ((SECONDS >= deadline)); then
      echo "$NAME: pid $1 still busy after 60 s; going on" >&2
      return 0
    fi
    sleep 0.2
    t1=$(live_ticks "$1")
    if ((t1 - t0 <= 1)) && [[ -z "$(pgrep -P "$1" 2>/dev/null)" ]]; then
      quiet=$((quiet + 1))
    else
      quiet=0
    fi
    t0=$t1
  done
}

