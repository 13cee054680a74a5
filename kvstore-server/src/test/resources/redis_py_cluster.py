"""redis-py's RedisCluster against a KVStore cluster: slot map from CLUSTER SLOTS, key positions
from COMMAND, hash tags, client-side CROSSSLOT refusal, pipelines split by slot.

Usage: redis_py_cluster.py HOST PORT. Prints OK and exits 0, or fails with the assertion."""
import sys

from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

host, port = sys.argv[1], int(sys.argv[2])
rc = RedisCluster(host=host, port=port, decode_responses=True)

nodes = rc.get_nodes()
assert len(nodes) == 3, nodes

for i in range(300):
    assert rc.set(f"py:{i}", str(i))
for i in range(300):
    assert rc.get(f"py:{i}") == str(i), i

# Hash tags: one slot, so multi-key commands run on one node.
assert rc.mset({"{py}.a": "1", "{py}.b": "2"})
assert rc.mget("{py}.a", "{py}.b") == ["1", "2"]
assert rc.incr("{py}.n") == 1
assert rc.incrby("{py}.n", 4) == 5
assert rc.append("{py}.a", "x") == 2
assert rc.keyslot("{py}.a") == rc.keyslot("{py}.b")

# Keys of several slots: redis-py refuses MSET itself (it routes by the COMMAND reply's key
# positions), and splits mget_nonatomic per slot.
try:
    rc.mset({"py:1": "a", "py:2": "b"})
    raise AssertionError("MSET over two slots was sent")
except RedisClusterException as e:
    assert "same key slot" in str(e), e
assert rc.mget_nonatomic("py:1", "py:2", "py:3") == ["1", "2", "3"]

# A raw MSET over two slots sent to one node: the server's CROSSSLOT.
node = rc.get_node_from_key("py:1")
try:
    rc.get_redis_connection(node).execute_command("MSET", "py:1", "a", "py:2", "b")
    raise AssertionError("MSET over two slots was accepted")
except ResponseError as e:
    assert str(e).startswith("Keys in request don't hash to the same slot"), e

# A pipeline whose commands go to every node.
pipe = rc.pipeline()
for i in range(50):
    pipe.set(f"pipe:{i}", i)
for i in range(50):
    pipe.get(f"pipe:{i}")
replies = pipe.execute()
assert replies[50:] == [str(i) for i in range(50)], replies[50:]

assert rc.delete("py:0") == 1
assert rc.get("py:0") is None
info = rc.cluster_info()
assert info["cluster_state"] == "ok", info
print("OK")
