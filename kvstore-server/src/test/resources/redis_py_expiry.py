"""Drives a KVStore server's expiry commands with the real redis-py client, through its own API.

Usage: python redis_py_expiry.py HOST PORT PROTOCOL

Exits 0 when every check passed, else 1 with the first failure on stderr. Run by ExpiryClientsTest
against a server whose keys really expire: the short-lived keys are waited for, at most a few
seconds each.
"""

import sys
import time
import traceback

import redis


def equal(got, expected, what):
    if got != expected:
        raise AssertionError("%s: expected %r, got %r" % (what, expected, got))


def within(got, low, high, what):
    if not (low <= got <= high):
        raise AssertionError("%s: expected %r..%r, got %r" % (what, low, high, got))


def gone_within(r, key, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if r.get(key) is None:
            return
        time.sleep(0.02)
    raise AssertionError("%s still present after %s s" % (key, seconds))


def checks(r):
    r.flushdb()
    equal(r.setex("py:setex", 100, "v"), True, "setex")
    within(r.ttl("py:setex"), 99, 100, "ttl after setex")
    equal(r.psetex("py:psetex", 100000, "v"), True, "psetex")
    within(r.pttl("py:psetex"), 99000, 100000, "pttl after psetex")
    equal(r.ttl("py:missing"), -2, "ttl of a missing key")

    equal(r.set("py:k", "v"), True, "set")
    equal(r.ttl("py:k"), -1, "ttl without expiry")
    equal(r.expire("py:k", 100), True, "expire")
    within(r.ttl("py:k"), 99, 100, "ttl after expire")
    equal(r.expire("py:k", 50, gt=True), False, "expire gt with a smaller time")
    equal(r.expire("py:k", 200, gt=True), True, "expire gt with a larger time")
    equal(r.expire("py:k", 10, nx=True), False, "expire nx with an expiry")
    equal(r.expire("py:k", 150, xx=True, lt=True), True, "expire xx lt")
    within(r.expiretime("py:k"), int(time.time()) + 148, int(time.time()) + 151, "expiretime")
    equal(r.persist("py:k"), True, "persist")
    equal(r.ttl("py:k"), -1, "ttl after persist")
    try:
        r.expire("py:k", 10, nx=True, xx=True)
        raise AssertionError("expire nx xx: expected an error")
    except redis.ResponseError as e:
        equal(str(e), "NX and XX, GT or LT options at the same time are not compatible", "expire nx xx")

    equal(r.getex("py:k", ex=100), b"v", "getex ex")
    within(r.ttl("py:k"), 99, 100, "ttl after getex ex")
    equal(r.getex("py:k", persist=True), b"v", "getex persist")
    equal(r.ttl("py:k"), -1, "ttl after getex persist")
    equal(r.getex("py:k", px=50000), b"v", "getex px")
    within(r.pttl("py:k"), 49000, 50000, "pttl after getex px")
    equal(r.getex("py:missing"), None, "getex of a missing key")

    equal(r.set("py:s", "1", ex=100), True, "set ex")
    equal(r.incr("py:s"), 2, "incr keeps the expiry")
    within(r.ttl("py:s"), 99, 100, "ttl after incr")
    equal(r.set("py:s", "3", keepttl=True), True, "set keepttl")
    within(r.ttl("py:s"), 99, 100, "ttl after set keepttl")
    equal(r.set("py:s", "4"), True, "plain set")
    equal(r.ttl("py:s"), -1, "plain set drops the expiry")
    try:
        r.set("py:s", "5", ex=0)
        raise AssertionError("set ex=0: expected an error")
    except redis.ResponseError as e:
        equal(str(e), "invalid expire time in 'set' command", "set ex=0")

    equal(r.set("py:short", "v", px=200), True, "set px")
    gone_within(r, "py:short", 5)
    equal(r.exists("py:short"), 0, "exists after expiry")
    equal(r.ttl("py:short"), -2, "ttl after expiry")


def main(argv):
    host, port, protocol = argv[1], int(argv[2]), int(argv[3])
    r = redis.Redis(host=host, port=port, protocol=protocol, socket_timeout=10)
    try:
        checks(r)
    except Exception:
        traceback.print_exc()
        return 1
    print("expiry checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
