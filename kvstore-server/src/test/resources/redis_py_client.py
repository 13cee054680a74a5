"""Drives a KVStore server with the real redis-py client, as an application would.

Usage: python redis_py_client.py HOST PORT PROTOCOL

PROTOCOL is 2 (RESP2) or 3 (RESP3: the client opens with HELLO 3). Prints the redis-py version first and one line per group of checks; exits 0
when every check passed, else 1 with the first failure on stderr. Run by RedisPyTest; it uses
databases 0 and 1 of the server and flushes them.
"""

import os
import sys
import traceback

import redis

TIMEOUT = 10  # seconds; RESP3 nulls sent as $-1 would make redis-py block until this timeout


def redis_py_version():
    version = getattr(redis, "__version__", None)
    if version:
        return version
    from importlib.metadata import version as dist_version
    return dist_version("redis")


def text(value):
    """redis-py decodes some replies (CLIENT GETNAME) only over RESP2; RESP3 leaves them bytes."""
    return value.decode("utf-8") if isinstance(value, bytes) else value


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def equal(got, expected, what):
    check(got == expected, "%s: expected %r, got %r" % (what, expected, got))


def raises(exc_type, fn, *args, **kwargs):
    """Calls fn and returns the exception of type exc_type it raised; fails if it raised none."""
    try:
        result = fn(*args, **kwargs)
    except exc_type as e:
        return e
    raise AssertionError("%s%r: expected %s, got result %r" % (fn.__name__, args, exc_type.__name__, result))


def client(host, port, protocol, db=0, **kwargs):
    return redis.Redis(host=host, port=port, protocol=protocol, db=db,
                       socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, **kwargs)


def connection_checks(r):
    equal(r.ping(), True, "PING")
    equal(r.execute_command("ECHO", b"hi\x00"), b"hi\x00", "ECHO binary")


def string_checks(r):
    equal(r.set("str", "hello"), True, "SET str")
    equal(r.get("str"), b"hello", "GET str")
    binary = b"\x00\xff\r\n"
    equal(r.set(b"bin\r\n\x00key", binary), True, "SET binary")
    equal(r.get(b"bin\r\n\x00key"), binary, "GET binary")
    equal(r.set("unicode", "gr\u00fc\u00dfe"), True, "SET unicode")
    equal(r.get("unicode"), "gr\u00fc\u00dfe".encode("utf-8"), "GET unicode")
    equal(r.get("missing"), None, "GET missing")

    equal(r.set("nx", "1", nx=True), True, "SET NX on a missing key")
    equal(r.set("nx", "2", nx=True), None, "SET NX on an existing key")
    equal(r.get("nx"), b"1", "value after a refused SET NX")
    equal(r.set("xx", "1", xx=True), None, "SET XX on a missing key")
    equal(r.exists("xx"), 0, "EXISTS after a refused SET XX")
    equal(r.set("nx", "3", xx=True), True, "SET XX on an existing key")
    equal(r.set("nx", "4", get=True), b"3", "SET GET returns the old value")
    equal(r.set("fresh", "v", get=True), None, "SET GET on a missing key")
    equal(r.get("fresh"), b"v", "value after SET GET")

    equal(r.getdel("fresh"), b"v", "GETDEL")
    equal(r.getdel("fresh"), None, "GETDEL of a deleted key")
    equal(r.exists("fresh"), 0, "EXISTS after GETDEL")
    equal(r.getset("gs", "new"), None, "GETSET on a missing key")
    equal(r.getset("gs", "newer"), b"new", "GETSET")
    equal(r.get("gs"), b"newer", "value after GETSET")

    r.set("d1", "a")
    r.set("d2", "b")
    equal(r.delete("d1", "d2", "d-missing"), 2, "DEL of two present keys and a missing one")
    r.set("e1", "a")
    r.set("e2", "b")
    equal(r.exists("e1", "e1", "e2", "e-missing"), 3, "EXISTS counts duplicates")

    equal(r.mset({"m1": "v1", "m2": b"\x00v2"}), True, "MSET")
    equal(r.mget(["m1", "m-missing", "m2"]), [b"v1", None, b"\x00v2"], "MGET with a missing key")
    equal(r.mget("m2", "m1"), [b"\x00v2", b"v1"], "MGET with positional keys")
    equal(r.msetnx({"n1": "1", "n2": "2"}), True, "MSETNX of new keys")
    equal(r.msetnx({"n2": "x", "n3": "3"}), False, "MSETNX with an existing key")
    equal(r.mget("n1", "n2", "n3"), [b"1", b"2", None], "MSETNX is all or nothing")


def counter_checks(r):
    equal(r.incr("counter"), 1, "INCR of a missing key")
    equal(r.incr("counter"), 2, "INCR")
    equal(r.incrby("counter", 40), 42, "INCRBY")
    equal(r.decr("counter"), 41, "DECR")
    equal(r.decrby("counter", 50), -9, "DECRBY")
    equal(r.get("counter"), b"-9", "GET of a counter")
    equal(r.decr("counter-new"), -1, "DECR of a missing key")
    r.set("not-a-number", "abc")
    e = raises(redis.ResponseError, r.incr, "not-a-number")
    check("value is not an integer or out of range" in str(e), "INCR of 'abc' raised %r" % e)
    r.set("big", str(2 ** 63 - 1))
    e = raises(redis.ResponseError, r.incr, "big")
    check("increment or decrement would overflow" in str(e), "INCR past 2^63-1 raised %r" % e)


def range_checks(r):
    equal(r.append("ap", "Hello"), 5, "APPEND to a missing key")
    equal(r.append("ap", b" World\x00"), 12, "APPEND")
    equal(r.strlen("ap"), 12, "STRLEN")
    equal(r.strlen("ap-missing"), 0, "STRLEN of a missing key")
    equal(r.getrange("ap", 0, 4), b"Hello", "GETRANGE 0 4")
    equal(r.getrange("ap", -6, -2), b"World", "GETRANGE with negative indexes")
    equal(r.getrange("ap", 100, 200), b"", "GETRANGE past the end")
    equal(r.setrange("ap", 6, "Redis"), 12, "SETRANGE")
    equal(r.get("ap"), b"Hello Redis\x00", "value after SETRANGE")
    equal(r.setrange("sr", 3, "x"), 4, "SETRANGE of a missing key")
    equal(r.get("sr"), b"\x00\x00\x00x", "SETRANGE zero-pads")


def bitmap_and_lcs_checks(r):
    equal(r.setbit("bits", 7, 1), 0, "SETBIT of a missing key")
    equal(r.setbit("bits", 7, 1), 1, "SETBIT returns the old bit")
    equal(r.getbit("bits", 7), 1, "GETBIT")
    equal(r.getbit("bits", 1000), 0, "GETBIT past the end")
    equal(r.get("bits"), b"\x01", "value after SETBIT")
    r.set("foobar", "foobar")
    equal(r.bitcount("foobar"), 26, "BITCOUNT")
    equal(r.bitcount("foobar", 1, 1), 6, "BITCOUNT 1 1")
    equal(r.bitcount("foobar", 5, 30, "BIT"), 17, "BITCOUNT 5 30 BIT")
    r.set("pos", b"\xff\xf0\x00")
    equal(r.bitpos("pos", 0), 12, "BITPOS 0")
    equal(r.bitpos("pos", 1, 2), -1, "BITPOS 1 2")
    equal(r.bitpos("pos", 1, 7, 15, "BIT"), 7, "BITPOS 1 7 15 BIT")
    e = raises(redis.ResponseError, r.setbit, "bits", -1, 1)
    equal(str(e), "bit offset is not an integer or out of range", "SETBIT -1 error")
    e = raises(redis.ResponseError, r.execute_command, "SETBIT", "bits", 0, 2)
    equal(str(e), "bit is not an integer or out of range", "SETBIT bit 2 error")
    e = raises(redis.ResponseError, r.setrange, "bits", 2 ** 63 - 1, "x")
    equal(str(e), "string exceeds maximum allowed size (proto-max-bulk-len)", "SETRANGE far offset error")
    equal(r.setrange("sr-empty", 5, ""), 0, "SETRANGE with an empty value")
    equal(r.exists("sr-empty"), 0, "SETRANGE with an empty value creates nothing")
    equal(r.execute_command("SUBSTR", "foobar", 1, 3), b"oob", "SUBSTR")
    r.mset({"key1": "ohmytext", "key2": "mynewtext"})
    equal(r.lcs("key1", "key2"), b"mytext", "LCS")
    equal(r.lcs("key1", "key2", len=True), 6, "LCS LEN")
    idx = r.lcs("key1", "key2", idx=True, minmatchlen=4, withmatchlen=True)
    if isinstance(idx, list):  # RESP2: the map as a flat list
        idx = dict(zip(idx[::2], idx[1::2]))
    idx = {text(k): v for k, v in idx.items()}
    equal(idx, {"matches": [[[4, 7], [5, 8], 4]], "len": 6}, "LCS IDX MINMATCHLEN 4 WITHMATCHLEN")
    r.set("fl", "10.5")
    equal(r.incrbyfloat("fl", 0.1), 10.6, "INCRBYFLOAT")
    e = raises(redis.ResponseError, r.incrbyfloat, "fl", float("inf"))
    equal(str(e), "increment would produce NaN or Infinity", "INCRBYFLOAT inf error")
    stats = r.info("errorstats")
    check(stats.get("errorstat_ERR", {}).get("count", 0) >= 4, "INFO errorstats: %r" % (stats,))
    commands = r.info("commandstats")
    setbit = commands.get("cmdstat_setbit", {})
    check(setbit.get("calls", 0) >= 3 and setbit.get("failed_calls", 0) >= 2
          and "usec_per_call" in setbit, "INFO commandstats cmdstat_setbit: %r" % (setbit,))


def keyspace_checks(r):
    equal(r.flushdb(), True, "FLUSHDB")
    equal(r.dbsize(), 0, "DBSIZE after FLUSHDB")
    equal(r.randomkey(), None, "RANDOMKEY of an empty database")
    equal(r.keys("*"), [], "KEYS of an empty database")

    names = [("pat:%03d" % i).encode() for i in range(25)]
    r.mset({n: b"v" for n in names})
    r.set("other", "x")
    equal(sorted(r.keys("pat*")), names, "KEYS pat*")
    equal(sorted(r.keys("pat:00?")), names[:10], "KEYS pat:00?")
    scanned = list(r.scan_iter(match="pat*", count=7))
    equal(sorted(set(scanned)), names, "SCAN MATCH pat* COUNT 7 (every key at least once)")
    everything = set(r.scan_iter(count=3))
    equal(everything, set(names) | {b"other"}, "SCAN without MATCH")
    cursor, page = r.scan(0, match="pat*", count=1000)
    equal((cursor, sorted(page)), (0, names), "one SCAN with a large COUNT")

    equal(r.type("other"), b"string", "TYPE of a string")
    equal(r.type("type-missing"), b"none", "TYPE of a missing key")
    equal(r.rename("other", "renamed"), True, "RENAME")
    equal((r.get("other"), r.get("renamed")), (None, b"x"), "values after RENAME")
    e = raises(redis.ResponseError, r.rename, "rename-missing", "x")
    check("no such key" in str(e), "RENAME of a missing key raised %r" % e)
    random_key = r.randomkey()
    check(random_key in set(names) | {b"renamed"}, "RANDOMKEY returned %r" % (random_key,))
    equal(r.dbsize(), 26, "DBSIZE")
    equal(r.flushdb(), True, "FLUSHDB of a full database")
    equal(r.dbsize(), 0, "DBSIZE after the second FLUSHDB")


def copy_object_touch_checks(host, port, protocol, r):
    r.set("cp:src", "sheep")
    r.delete("cp:dst", "cp:missing")
    equal(bool(r.copy("cp:src", "cp:dst")), True, "COPY to a new key")
    equal(bool(r.copy("cp:src", "cp:dst")), False, "COPY onto an existing key")
    r.set("cp:src", "dolly")
    equal(bool(r.copy("cp:src", "cp:dst", replace=True)), True, "COPY REPLACE")
    equal(r.get("cp:dst"), b"dolly", "value after COPY REPLACE")
    equal(bool(r.copy("cp:missing", "cp:dst", replace=True)), False, "COPY of a missing key")
    with client(host, port, protocol, db=1) as r1:
        r1.delete("cp:there")
        equal(bool(r.copy("cp:src", "cp:there", destination_db=1)), True, "COPY DB 1")
        equal(r1.get("cp:there"), b"dolly", "COPY DB 1 value")
        r1.delete("cp:there")
    e = raises(redis.ResponseError, r.copy, "cp:src", "cp:src")
    equal(str(e), "source and destination objects are the same", "COPY onto itself")

    r.set("enc:int", "12345")
    r.set("enc:raw", "x" * 45)
    equal(text(r.object("encoding", "cp:src")), "embstr", "OBJECT ENCODING of a short string")
    equal(text(r.object("encoding", "enc:int")), "int", "OBJECT ENCODING of an integer")
    equal(text(r.object("encoding", "enc:raw")), "raw", "OBJECT ENCODING of 45 bytes")
    equal(r.object("encoding", "enc:missing"), None, "OBJECT ENCODING of a missing key")
    equal(r.object("refcount", "enc:int"), 1, "OBJECT REFCOUNT")
    equal(r.touch("cp:src", "cp:dst", "enc:missing", "cp:src"), 3, "TOUCH")
    r.delete("cp:src", "cp:dst", "enc:int", "enc:raw")


def database_checks(host, port, protocol, r):
    with client(host, port, protocol, db=1) as r1:
        r1.flushdb()
        r.set("where", "db0")
        equal(r1.get("where"), None, "db 1 does not see db 0's key")
        r1.set("where", "db1")
        r1.set("only-in-1", "y")
        equal(r.get("where"), b"db0", "db 0 keeps its value")
        equal(r1.get("where"), b"db1", "db 1 has its own value")
        equal(r.exists("only-in-1"), 0, "db 0 does not see db 1's key")
        equal(r1.dbsize(), 2, "DBSIZE of db 1")
        equal(r.dbsize(), 1, "DBSIZE of db 0")
        keyspace = r.info("keyspace")
        check(isinstance(keyspace, dict), "INFO keyspace parsed to %r" % (keyspace,))
        check("db0" in keyspace and "db1" in keyspace, "INFO keyspace lists db0 and db1: %r" % keyspace)
        equal(keyspace["db1"].get("keys"), 2, "INFO keyspace db1 keys")
        equal(r1.flushdb(), True, "FLUSHDB of db 1")
        equal(r.get("where"), b"db0", "FLUSHDB of db 1 leaves db 0 alone")
    with client(host, port, protocol, db=1, client_name="rp-db1") as named:
        equal(text(named.client_getname()), "rp-db1", "client_name= at connect (CLIENT SETNAME)")
        equal(named.get("where"), None, "a named db=1 client is in db 1")


def server_checks(r):
    name = "redis-py-test-%d" % os.getpid()  # unique, should an earlier run's connection linger
    equal(r.client_setname(name), True, "CLIENT SETNAME")
    equal(text(r.client_getname()), name, "CLIENT GETNAME")
    clients = r.client_list()
    check(isinstance(clients, list) and clients and all(isinstance(c, dict) for c in clients),
          "CLIENT LIST parsed to %r" % (clients,))
    mine = [c for c in clients if c.get("name") == name]
    check(len(mine) == 1, "CLIENT LIST has one client named %s: %r" % (name, clients))
    check(mine[0].get("lib-name") == "redis-py", "CLIENT SETINFO LIB-NAME shows in CLIENT LIST: %r" % mine[0])
    check(mine[0].get("lib-ver") == redis_py_version(),
          "CLIENT SETINFO LIB-VER shows in CLIENT LIST: %r" % mine[0])

    info = r.info()
    check(isinstance(info, dict) and "redis_version" in info, "INFO has redis_version: %r" % (info,))
    server = r.info("server")
    check("redis_version" in server and "redis_mode" in server, "INFO server: %r" % (server,))
    config = r.config_get("maxmemory")
    check(isinstance(config, dict) and "maxmemory" in config, "CONFIG GET maxmemory: %r" % (config,))
    everything = r.config_get("*")
    check(isinstance(everything, dict) and len(everything) >= 2, "CONFIG GET *: %r" % (everything,))
    equal(r.config_get("no-such-parameter"), {}, "CONFIG GET of an unknown parameter")
    check(isinstance(r.time(), tuple), "TIME")

    e = raises(redis.ResponseError, r.execute_command, "NOSUCHCMD", "a")
    check(str(e).startswith("unknown command 'NOSUCHCMD'"), "unknown command raised %r" % str(e))
    e = raises(redis.ResponseError, r.execute_command, "GET")
    check("wrong number of arguments" in str(e), "GET without a key raised %r" % str(e))
    tables = r.execute_command("KV.TABLES", "default")  # SELECT n uses table "n" of database "default"
    check(isinstance(tables, list) and {b"0", b"1"} <= set(tables), "KV.TABLES default: %r" % (tables,))


def pipeline_checks(r):
    r.delete("p:a", "p:n")
    pipe = r.pipeline(transaction=False)
    pipe.set("p:a", "1").incr("p:n").incrby("p:n", 5).get("p:a").get("p:missing").mget("p:a", "p:missing")
    pipe.execute_command("NOSUCHCMD")
    pipe.delete("p:a")
    results = pipe.execute(raise_on_error=False)
    equal(results[:6], [True, 1, 6, b"1", None, [b"1", None]], "pipeline(transaction=False) results in order")
    check(isinstance(results[6], redis.ResponseError), "unknown command in a pipeline gave %r" % (results[6],))
    equal(results[7], 1, "DEL after the failed command in the pipeline")

    pipe = r.pipeline(transaction=False)
    for i in range(100):
        pipe.set("p:k%d" % i, i)
    for i in range(100):
        pipe.get("p:k%d" % i)
    results = pipe.execute()
    equal(results, [True] * 100 + [str(i).encode() for i in range(100)], "pipeline of 200 commands")
    equal(r.delete(*["p:k%d" % i for i in range(100)]), 100, "DEL of 100 keys")


def transaction_checks(host, port, protocol, r):
    r.delete("tx:a", "tx:n", "tx:w", "tx:bad")
    r.set("tx:n", "10")
    pipe = r.pipeline()  # transaction=True: MULTI ... EXEC
    pipe.set("tx:a", "v").incr("tx:n").get("tx:a")
    equal(pipe.execute(), [True, 11, b"v"], "pipeline() in MULTI/EXEC")

    with r.pipeline() as pipe:
        pipe.get("tx:missing").mget("tx:a", "tx:missing").exists("tx:a", "tx:a")
        equal(pipe.execute(), [None, [b"v", None], 2], "nulls and arrays inside EXEC")

    r.delete("tx:k1")
    pipe = r.pipeline()
    pipe.set("tx:k1", "1").keys("tx:k*").dbsize()
    results = pipe.execute()
    equal(results[:2], [True, [b"tx:k1"]], "KEYS inside EXEC sees the transaction's SET")
    equal(results[2], r.dbsize(), "DBSIZE inside EXEC counts the transaction's key")
    r.delete("tx:k1")

    pipe = r.pipeline()
    pipe.set("tx:k1", "1").flushdb()
    e = raises(redis.ResponseError, pipe.execute)
    check("not allowed inside a transaction" in str(e), "FLUSHDB in a transaction raised %r" % str(e))
    equal(r.exists("tx:k1"), 0, "a transaction with a refused command writes nothing")

    def add_one(p):
        current = int(p.get("tx:w") or 0)  # immediate mode after WATCH
        p.multi()
        p.set("tx:w", current + 1)
        p.get("tx:w")

    equal(r.transaction(add_one, "tx:w"), [True, b"1"], "r.transaction(func, key)")
    equal(r.transaction(add_one, "tx:w"), [True, b"2"], "second r.transaction")

    with client(host, port, protocol) as other, r.pipeline() as pipe:
        pipe.watch("tx:w")
        equal(pipe.get("tx:w"), b"2", "GET in immediate mode after WATCH")
        other.set("tx:w", "changed")
        pipe.multi()
        pipe.set("tx:w", "mine")
        raises(redis.WatchError, pipe.execute)
        equal(r.get("tx:w"), b"changed", "a transaction on a modified WATCHed key is not applied")

    with r.pipeline() as pipe:
        pipe.watch("tx:w")
        pipe.unwatch()
        equal(r.set("tx:w", "again"), True, "SET of an UNWATCHed key by another connection")
        pipe.multi()
        pipe.set("tx:w", "after-unwatch")
        equal(pipe.execute(), [True], "EXEC after UNWATCH")

    tries = []

    def retried(p):
        tries.append(1)
        p.get("tx:w")
        if len(tries) == 1:
            r.set("tx:w", "interfering")
        p.multi()
        p.set("tx:w", "retried")

    equal(r.transaction(retried, "tx:w"), [True], "r.transaction retries after a WatchError")
    equal((len(tries), r.get("tx:w")), (2, b"retried"), "tries and value after the retry")

    # redis-py reads EXEC's -EXECABORT and raises the queued command's own error, as with Redis
    pipe = r.pipeline()
    pipe.set("tx:bad", "1").incr("tx:n").execute_command("GET").set("tx:a", "changed")
    e = raises(redis.ResponseError, pipe.execute)
    check("wrong number of arguments" in str(e) or "EXECABORT" in str(e),
          "a bad queued command raised %r" % str(e))
    equal(r.mget("tx:bad", "tx:n", "tx:a"), [None, b"11", b"v"], "nothing of an aborted transaction applied")

    pipe = r.pipeline()
    pipe.set("tx:a", "x").incr("tx:a").set("tx:after", "y")
    results = pipe.execute(raise_on_error=False)
    equal(results[0], True, "SET in EXEC")
    check(isinstance(results[1], redis.ResponseError), "INCR of 'x' in EXEC gave %r" % (results[1],))
    equal(results[2], True, "commands after a runtime error still run")
    equal(r.mget("tx:a", "tx:after"), [b"x", b"y"], "EXEC with a runtime error applies the others")
    r.delete("tx:after")

    # MULTI/DISCARD by hand on one connection (a pooled client may switch connections between calls)
    with client(host, port, protocol, single_connection_client=True) as one:
        equal(one.execute_command("MULTI"), b"OK", "MULTI")
        equal(one.execute_command("APPEND", "tx:d", "1"), b"QUEUED", "queued reply")  # no redis-py reply callback
        equal(one.execute_command("DISCARD"), b"OK", "DISCARD")
        equal(one.get("tx:d"), None, "DISCARD drops the queue")
        e = raises(redis.ResponseError, one.execute_command, "EXEC")
        check("EXEC without MULTI" in str(e), "EXEC without MULTI raised %r" % str(e))
        e = raises(redis.ResponseError, one.execute_command, "DISCARD")
        check("DISCARD without MULTI" in str(e), "DISCARD without MULTI raised %r" % str(e))


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: %s HOST PORT PROTOCOL\n" % argv[0])
        return 2
    host, port, protocol = argv[1], int(argv[2]), int(argv[3])
    print("redis-py %s (python %s), protocol %d"
          % (redis_py_version(), sys.version.split()[0], protocol))
    sys.stdout.flush()
    step = "connect"
    try:
        with client(host, port, protocol) as r:
            r.flushdb()
            steps = [
                ("connection", lambda: connection_checks(r)),
                ("strings", lambda: string_checks(r)),
                ("counters", lambda: counter_checks(r)),
                ("ranges", lambda: range_checks(r)),
                ("bitmaps and lcs", lambda: bitmap_and_lcs_checks(r)),
                ("keyspace", lambda: keyspace_checks(r)),
                ("copy, object, touch", lambda: copy_object_touch_checks(host, port, protocol, r)),
                ("databases", lambda: database_checks(host, port, protocol, r)),
                ("server", lambda: server_checks(r)),
                ("pipelines", lambda: pipeline_checks(r)),
                ("transactions", lambda: transaction_checks(host, port, protocol, r)),
            ]
            for step, run in steps:
                run()
                print("ok %s" % step)
                sys.stdout.flush()
    except Exception as e:  # noqa: BLE001 - every failure ends the run with its step and traceback
        traceback.print_exc()
        sys.stderr.write("FAILED in %s: %s: %s\n" % (step, type(e).__name__, e))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
