"""PyPI thrift against the KVStore Thrift port, in one of the four transport/protocol formats.

Usage: thrift_py_client.py PORT {buffered,framed} {binary,compact} GEN_PY_DIR
Prints "OK <format>" and exits 0 when every check passed; raises otherwise.
"""
import sys
import time

port, transport_name, protocol_name, gen = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
sys.path.insert(0, gen)

from thrift.protocol import TBinaryProtocol, TCompactProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402
from kvstore import KvService  # noqa: E402
from kvstore.ttypes import (  # noqa: E402
    ErrorCode, InvalidArgument, Mutation, MutationType, NotFound, PreconditionFailed, PutOptions,
    ScanRequest, TableSpec, AlreadyExists)

sock = TSocket.TSocket("127.0.0.1", port)
sock.setTimeout(10000)
transport = TTransport.TFramedTransport(sock) if transport_name == "framed" else TTransport.TBufferedTransport(sock)
protocol = (TBinaryProtocol.TBinaryProtocol(transport) if protocol_name == "binary"
            else TCompactProtocol.TCompactProtocol(transport))
client = KvService.Client(protocol)
transport.open()


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("expected %s from %s%r" % (exc.__name__, fn.__name__, args))


db = "py_%s_%s" % (transport_name, protocol_name)
assert client.ping() == "pong"
client.createDb(db, {})
raises(AlreadyExists, client.createDb, db, {})
client.createTable(TableSpec(db=db, table="t", engine="memory"))
assert db in client.listDbs()
assert client.listTables(db) == ["t"]
assert client.describeTable(db, "t").engine == "memory"

key = b"\x00\xffk\r\n"
value = b"a\r\nb\x00c\xff"
v1 = client.put(db, "t", key, value, None)
assert v1 > 0
assert client.get(db, "t", key) == value
assert raises(NotFound, client.get, db, "t", b"missing").code == ErrorCode.KEY_NOT_FOUND
assert raises(NotFound, client.get, db, "nope", key).code == ErrorCode.TABLE_NOT_FOUND
assert raises(NotFound, client.get, "nodb", "t", key).code == ErrorCode.DB_NOT_FOUND
got = client.multiGet(db, "t", [b"missing", key])
assert [r.found for r in got] == [False, True] and got[1].value == value

v2 = client.put(db, "t", key, b"v2", PutOptions(ifVersion=v1))
assert v2 > v1
pf = raises(PreconditionFailed, client.put, db, "t", key, b"lost", PutOptions(ifVersion=v1))
assert pf.currentVersion == v2
raises(PreconditionFailed, client.put, db, "t", key, b"lost", PutOptions(ifAbsent=True))
meta = client.getWithMeta(db, "t", key)
assert meta.version == v2 and meta.ttlMillis is None

client.put(db, "t", b"ttl", b"x", PutOptions(ttlMillis=60000))
assert 0 < client.getWithMeta(db, "t", b"ttl").ttlMillis <= 60000
assert client.persist(db, "t", b"ttl")
assert client.getWithMeta(db, "t", b"ttl").ttlMillis is None
assert client.expire(db, "t", b"ttl", 50)
time.sleep(0.2)
raises(NotFound, client.get, db, "t", b"ttl")

assert client.remove(db, "t", b"missing", None) is False
assert client.remove(db, "t", key, PutOptions(ifVersion=v2)) is True

raises(PreconditionFailed, client.batch, db, "t", [
    Mutation(type=MutationType.PUT, key=b"b1", value=b"1"),
    Mutation(type=MutationType.DELETE, key=b"b2", options=PutOptions(ifVersion=12345)),
    Mutation(type=MutationType.PUT, key=b"b3", value=b"3", options=PutOptions(ifVersion=1))], True)
assert not client.multiGet(db, "t", [b"b1"])[0].found
results = client.batch(db, "t", [Mutation(type=MutationType.PUT, key=b"k%05d" % i, value=b"v")
                                 for i in range(3000)], True)
assert len(results) == 3000 and all(r.applied for r in results)

seen = []
request = ScanRequest(prefix=b"k", limit=1000)
while True:
    page = client.scan(db, "t", request)
    seen.extend(kv.key for kv in page.entries)
    if not page.more:
        break
    request.startKey = page.nextStartKey
assert seen == [b"k%05d" % i for i in range(3000)], len(seen)

raises(InvalidArgument, client.scan, db, "t", ScanRequest(limit=0))
client.dropTable(db, "t")
raises(NotFound, client.describeTable, db, "t")
client.dropDb(db, False)
raises(NotFound, client.listTables, db)
assert client.ping() == "pong"
transport.close()
print("OK", transport_name, protocol_name)
