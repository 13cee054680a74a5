"""Drives the HTTP API with Python's `requests`, as a client application would.

Run by HttpPythonClientTest: python http_requests_client.py BASE_URL. Exits non-zero (an assert)
on the first mismatch; prints OK at the end.
"""
import base64
import sys

import requests
from openapi_spec_validator import validate
from prometheus_client.parser import text_string_to_metric_families

base = sys.argv[1].rstrip("/")
s = requests.Session()
T = base + "/v1/dbs/py/tables/t"


def problem(r, status, code):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"].startswith("application/problem+json"), r.headers
    doc = r.json()
    assert doc["code"] == code and doc["status"] == status and doc["detail"], doc
    return doc


# probes and the document
assert s.get(base + "/health").json() == {"status": "UP"}
ready = s.get(base + "/ready").json()
assert ready["status"] == "UP" and ready["checks"]["storage"] == "UP", ready
validate(s.get(base + "/v1/openapi.json").json())

# databases and tables
r = s.put(base + "/v1/dbs/py")
assert r.status_code == 201 and r.headers["Location"] == "/v1/dbs/py", r.text
problem(s.put(base + "/v1/dbs/py"), 409, "db_exists")
r = s.put(T, json={"engine": "memory"})
assert r.status_code == 201 and r.json()["engine"] == "memory", r.text
problem(s.put(T, json={"engine": "memory"}), 409, "table_exists")
problem(s.put(base + "/v1/dbs/py/tables/u", json={"engine": "nope"}), 400, "unsupported_engine")

# keys: create, replace, conditional requests
r = s.put(T + "/keys/greeting", data=b"hello\r\nworld\x00\xff")
assert r.status_code == 201, r.text
etag1 = r.headers["ETag"]
r = s.get(T + "/keys/greeting")
assert r.status_code == 200 and r.content == b"hello\r\nworld\x00\xff" and r.headers["ETag"] == etag1
assert r.headers["X-Content-Type-Options"] == "nosniff"
assert s.get(T + "/keys/greeting", headers={"If-None-Match": etag1}).status_code == 304
r = s.put(T + "/keys/greeting", data=b"v2")
assert r.status_code == 204 and r.headers["ETag"] != etag1
problem(s.put(T + "/keys/greeting", data=b"v3", headers={"If-Match": etag1}), 412, "precondition_failed")
problem(s.put(T + "/keys/greeting", data=b"v3", headers={"If-None-Match": "*"}), 412, "precondition_failed")
assert s.get(T + "/keys/greeting").content == b"v2"
assert s.delete(T + "/keys/greeting").status_code == 204
problem(s.get(T + "/keys/greeting"), 404, "key_not_found")
problem(s.put(T + "/keys/big", data=b"x" * (64 * 1024 + 1)), 413, "value_too_large")

# binary keys: requests quotes the path with '/' kept, so encode it ourselves
keys = [b"a/b", b"50%", b"a+b", b"a b", b"..", b"\x00\xff", "caf\u00e9".encode()]
for k in keys:
    path = "".join("%%%02X" % c for c in k)
    assert s.put(T + "/keys/" + path, data=k).status_code == 201
    assert s.get(T + "/keys/" + path).content == k

# ranges: every key once, in unsigned byte order, paged
seen = []
url, params = T + "/keys", {"limit": 2, "values": "true"}
while True:
    r = s.get(url, params=params)
    assert r.status_code == 200, r.text
    doc = r.json()
    for item in doc["items"]:
        k = base64.b64decode(item["key_b64"])
        assert base64.b64decode(item["value_b64"]) == k
        seen.append(k)
    if doc["next_cursor"] is None:
        assert "Link" not in r.headers
        break
    assert 'rel="next"' in r.headers["Link"]
    params = dict(params, cursor=doc["next_cursor"])
assert seen == sorted(keys), seen
prefixed = s.get(T + "/keys", params={"prefix": "a"}).json()["items"]
assert [i["key"] for i in prefixed] == ["a b", "a+b", "a/b"], prefixed
problem(s.get(T + "/keys", params={"limit": 0}), 400, "invalid_argument")

# multi-get and batches
r = s.post(T + "/keys:get", json={"keys": ["a/b", "missing"], "keys_b64": [base64.b64encode(b"\x00\xff").decode()]})
items = r.json()["items"]
assert [i["found"] for i in items] == [True, False, True], items
r = s.post(T + "/batch", json={"atomic": True, "ops": [
    {"op": "put", "key": "n1", "value": "1"},
    {"op": "put", "key": "a/b", "value": "x", "if_version": 1}]})
assert problem(r, 412, "precondition_failed")["index"] == 1
assert s.get(T + "/keys/n1").status_code == 404
r = s.post(T + "/batch", json={"atomic": True, "ops": [
    {"op": "put", "key": "n1", "value": "1"}, {"op": "delete", "key": "a/b"}]})
assert [x["status"] for x in r.json()["results"]] == [201, 204], r.text
problem(s.post(T + "/batch", data="{oops", headers={"Content-Type": "application/json"}), 400, "invalid_argument")

# errors
problem(s.post(T + "/keys/x"), 405, "method_not_allowed")
problem(s.get(base + "/v9/nothing"), 404, "not_found")
problem(s.delete(base + "/v1/dbs/py"), 409, "db_not_empty")
assert s.delete(base + "/v1/dbs/py", params={"force": "true"}).status_code == 204
problem(s.delete(base + "/v1/dbs/py"), 404, "db_not_found")

# metrics parse as Prometheus text and count this script's requests
families = {f.name: f for f in text_string_to_metric_families(s.get(base + "/metrics").text)}
http_ok = sum(x.value for x in families["kv_requests"].samples
              if x.labels.get("protocol") == "http" and x.labels.get("command") == "key.put" and x.name == "kv_requests_total")
assert http_ok >= 10, http_ok
assert "kv_request_duration_seconds" in families and "jvm_memory_used_bytes" in families
for name in ("kv_wal_sync_duration_seconds", "kv_wal_batch_records", "kv_checkpoint_duration_seconds"):
    assert families[name].type == "histogram", (name, families.get(name))
syncs = [x.value for x in families["kv_wal_syncs"].samples if x.name == "kv_wal_syncs_total"]
assert syncs and syncs[0] >= 1, syncs
print("OK")
