package org.kvstore.server.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kvstore.Entry;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;
import org.kvstore.server.http.HttpRouter.Execution;

/**
 * {@code POST .../keys:get} (positional multi-get) and {@code POST .../batch} (puts and deletes
 * with per-op preconditions). Keys and values travel as JSON text ({@code key}, {@code value}) or
 * base64 ({@code key_b64}, {@code value_b64}), so keys too long or too binary for a URL work here.
 * An atomic batch reads the entries of its keys and writes all its ops in one log record while no
 * other writer can change those keys; when one op's precondition fails nothing is written and the
 * 412 problem names that op's {@code index}. A multi-get's response is written while it is sent
 * ({@link HttpReply#streamed}): a thousand large values need not fit in memory at once.
 *
 * <p>Thread safety: thread-safe.
 */
final class BatchRoutes {
  /** Most keys of a multi-get and ops of a batch. */
  static final int MAX_OPS = 1000;
  private static final Set<String> OP_FIELDS =
      Set.of("op", "key", "key_b64", "value", "value_b64", "if_version", "if_absent", "if_present", "ttl");

  private final HttpTables tables;

  BatchRoutes(HttpTables tables) {
    this.tables = tables;
  }

  void register(HttpRouter r) {
    r.add(HttpMethod.POST, "/v1/dbs/{db}/tables/{table}/keys:get", "keys.multiget", Execution.WORKER, this::multiGet)
        .add(HttpMethod.POST, "/v1/dbs/{db}/tables/{table}/batch", "batch.post", Execution.WORKER, this::batch);
  }

  HttpReply multiGet(HttpExchange ex) {
    Table table = tables.table(ex);
    JsonNode body = object(ex.json());
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("keys") && !f.equals("keys_b64")) {
        throw HttpProblem.invalid("unknown member '" + f + "'; keys:get takes 'keys' and 'keys_b64'");
      }
    }
    List<byte[]> keys = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (String field : List.of("keys", "keys_b64")) {
      JsonNode list = body.path(field);
      if (list.isMissingNode()) {
        continue;
      }
      if (!list.isArray()) {
        throw HttpProblem.invalid(field + " must be an array of strings");
      }
      for (int i = 0; i < list.size(); i++) {
        JsonNode k = list.get(i);
        if (!k.isTextual()) {
          throw HttpProblem.invalid(field + "[" + i + "] must be a string");
        }
        byte[] key = field.equals("keys") ? k.asText().getBytes(StandardCharsets.UTF_8) : base64(k.asText(), field + "[" + i + "]");
        keys.add(tables.checkKey(key, ProblemCode.INVALID_ARGUMENT));
        texts.add(field.equals("keys") ? k.asText() : PercentCoding.utf8(key));
      }
    }
    if (keys.size() > MAX_OPS) {
      throw new HttpProblem(ProblemCode.BATCH_TOO_LARGE, keys.size() + " keys exceed the limit of " + MAX_OPS);
    }
    return HttpReply.streamed(HttpResponseStatus.OK, HttpReply.JSON_TYPE, out -> writeItems(table, keys, texts, out));
  }

  /**
   * The multi-get's document, written as the entries are read: each value is encoded in pieces as
   * it goes out, so a response of many large values costs the server one value and what the client
   * has not read yet ({@link HttpBodyStream}), not the whole document.
   */
  private static void writeItems(Table table, List<byte[]> keys, List<String> texts, OutputStream out)
      throws IOException {
    try (JsonGenerator g = HttpReply.JSON.getFactory().createGenerator(out)
        .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET).disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT)) {
      g.writeStartObject();
      g.writeArrayFieldStart("items");
      for (int i = 0; i < keys.size(); i++) {
        Entry e = table.getEntry(keys.get(i));
        g.writeStartObject();
        if (texts.get(i) != null) {
          g.writeStringField("key", texts.get(i));
        }
        g.writeBinaryField("key_b64", keys.get(i));
        g.writeBooleanField("found", e != null);
        if (e != null) {
          g.writeBinaryField("value_b64", e.value());
          g.writeNumberField("version", e.version());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    out.write('\n');
  }

  /** One op of a batch, parsed. {@code value} is null for a delete. */
  private record Op(byte[] key, byte[] value, Precondition condition, long ttlSeconds) {
    boolean isPut() {
      return value != null;
    }

    PutOptions putOptions() {
      PutOptions o = PutOptions.defaults().when(condition);
      return ttlSeconds > 0 ? o.ttlMillis(ttlSeconds * 1000) : o;
    }
  }

  HttpReply batch(HttpExchange ex) {
    Table table = tables.table(ex);
    JsonNode body = object(ex.json());
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!f.equals("ops") && !f.equals("atomic")) {
        throw HttpProblem.invalid("unknown member '" + f + "'; a batch takes 'atomic' and 'ops'");
      }
    }
    JsonNode atomicNode = body.path("atomic");
    if (!atomicNode.isMissingNode() && !atomicNode.isBoolean()) {
      throw HttpProblem.invalid("atomic must be true or false");
    }
    JsonNode opsNode = body.path("ops");
    if (!opsNode.isArray()) {
      throw HttpProblem.invalid("ops must be an array of operations");
    }
    if (opsNode.size() > MAX_OPS) {
      throw new HttpProblem(ProblemCode.BATCH_TOO_LARGE, opsNode.size() + " ops exceed the limit of " + MAX_OPS);
    }
    List<Op> ops = new ArrayList<>(opsNode.size());
    for (int i = 0; i < opsNode.size(); i++) {
      ops.add(parseOp(opsNode.get(i), i));
    }
    ObjectNode doc = HttpReply.object();
    ArrayNode results = doc.putArray("results");
    if (atomicNode.asBoolean(false)) {
      atomic(table, ops, results);
    } else {
      for (Op op : ops) {
        ObjectNode r = results.addObject();
        WriteResult w = op.isPut()
            ? table.put(op.key(), op.value(), op.putOptions().returnPrevious())
            : table.remove(op.key(), op.condition());
        if (w.applied()) {
          r.put("status", op.isPut() && w.previous() == null ? 201 : 204);
          if (op.isPut()) {
            r.put("version", w.version());
          }
        } else if (!op.isPut() && w.previous() == null && op.condition().isNone()) {
          r.put("status", 404).put("code", ProblemCode.KEY_NOT_FOUND.code());
        } else {
          r.put("status", 412).put("code", ProblemCode.PRECONDITION_FAILED.code());
        }
      }
    }
    return HttpReply.json(HttpResponseStatus.OK, doc);
  }

  /** Checks every precondition against the entries before the batch, then writes all or nothing. */
  private static void atomic(Table table, List<Op> ops, ArrayNode results) {
    List<byte[]> keys = new ArrayList<>(ops.size());
    ops.forEach(op -> keys.add(op.key()));
    int[] failed = {-1};
    Entry[][] before = new Entry[1][];
    table.updateEntries(keys, entries -> {
      before[0] = entries.clone();
      for (int i = 0; i < ops.size(); i++) {
        if (!ops.get(i).condition().holds(entries[i])) {
          failed[0] = i;
          return null;
        }
      }
      WriteBatch batch = new WriteBatch();
      for (Op op : ops) {
        if (op.isPut()) {
          batch.put(op.key(), op.value(), op.putOptions());
        } else {
          batch.remove(op.key());
        }
      }
      return batch;
    });
    if (failed[0] >= 0) {
      Op op = ops.get(failed[0]);
      Entry found = before[0][failed[0]];
      throw new HttpProblem(ProblemCode.PRECONDITION_FAILED, HttpResponseStatus.PRECONDITION_FAILED,
          "op " + failed[0] + " on key '" + HttpTables.shown(op.key()) + "': expected " + op.condition()
              + ", found " + (found == null ? "no key" : "version " + found.version()) + "; nothing was written",
          Map.of("index", failed[0]), Map.of());
    }
    // The versions of the written entries, read back: a later write may already have replaced one.
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      ObjectNode r = results.addObject();
      boolean existed = before[0][i] != null;
      if (op.isPut()) {
        r.put("status", existed ? 204 : 201);
        Entry now = table.getEntry(op.key());
        if (now != null) {
          r.put("version", now.version());
        }
      } else if (existed) {
        r.put("status", 204);
      } else {
        r.put("status", 404).put("code", ProblemCode.KEY_NOT_FOUND.code());
      }
    }
  }

  private Op parseOp(JsonNode node, int i) {
    String at = "ops[" + i + "]";
    if (!node.isObject()) {
      throw HttpProblem.invalid(at + " must be an object");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!OP_FIELDS.contains(f)) {
        throw HttpProblem.invalid(at + ": unknown member '" + f + "'");
      }
    }
    String kind = node.path("op").asText("");
    if (!kind.equals("put") && !kind.equals("delete")) {
      throw HttpProblem.invalid(at + ".op must be \"put\" or \"delete\"");
    }
    byte[] key = bytes(node, "key", at);
    if (key == null) {
      throw HttpProblem.invalid(at + " needs key or key_b64");
    }
    tables.checkKey(key, ProblemCode.INVALID_ARGUMENT);
    byte[] value = bytes(node, "value", at);
    if (kind.equals("put") && value == null) {
      throw HttpProblem.invalid(at + ": a put needs value or value_b64");
    }
    if (kind.equals("delete") && value != null) {
      throw HttpProblem.invalid(at + ": a delete takes no value");
    }
    Precondition condition = Precondition.none();
    int conditions = 0;
    if (node.has("if_version")) {
      JsonNode v = node.get("if_version");
      if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
        throw HttpProblem.invalid(at + ".if_version must be a non-negative integer");
      }
      condition = Precondition.version(v.asLong());
      conditions++;
    }
    if (flag(node, "if_absent", at)) {
      condition = Precondition.absent();
      conditions++;
    }
    if (flag(node, "if_present", at)) {
      condition = Precondition.present();
      conditions++;
    }
    if (conditions > 1) {
      throw HttpProblem.invalid(at + ": at most one of if_version, if_absent, if_present");
    }
    long ttl = 0;
    if (node.has("ttl")) {
      JsonNode t = node.get("ttl");
      if (!t.isIntegralNumber() || t.asLong() < 1 || t.asLong() > KeyRoutes.MAX_TTL_SECONDS) {
        throw HttpProblem.invalid(at + ".ttl must be whole seconds from 1 to " + KeyRoutes.MAX_TTL_SECONDS);
      }
      if (kind.equals("delete")) {
        throw HttpProblem.invalid(at + ": a delete takes no ttl");
      }
      ttl = t.asLong();
    }
    return new Op(key, kind.equals("put") ? value : null, condition, ttl);
  }

  private static boolean flag(JsonNode node, String field, String at) {
    JsonNode f = node.path(field);
    if (f.isMissingNode()) {
      return false;
    }
    if (!f.isBoolean()) {
      throw HttpProblem.invalid(at + "." + field + " must be true or false");
    }
    return f.asBoolean();
  }

  /** {@code name} (text, UTF-8) or {@code name_b64} of {@code node}, or null when neither is there. */
  private static byte[] bytes(JsonNode node, String name, String at) {
    JsonNode text = node.path(name);
    JsonNode b64 = node.path(name + "_b64");
    if (!text.isMissingNode() && !b64.isMissingNode()) {
      throw HttpProblem.invalid(at + ": give " + name + " or " + name + "_b64, not both");
    }
    if (!text.isMissingNode()) {
      if (!text.isTextual()) {
        throw HttpProblem.invalid(at + "." + name + " must be a string");
      }
      return text.asText().getBytes(StandardCharsets.UTF_8);
    }
    if (!b64.isMissingNode()) {
      if (!b64.isTextual()) {
        throw HttpProblem.invalid(at + "." + name + "_b64 must be a base64 string");
      }
      return base64(b64.asText(), at + "." + name + "_b64");
    }
    return null;
  }

  private static byte[] base64(String text, String what) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw HttpProblem.invalid(what + " is not base64: " + e.getMessage());
    }
  }

  private static JsonNode object(JsonNode body) {
    if (!body.isObject()) {
      throw HttpProblem.invalid("the body must be a JSON object");
    }
    return body;
  }

}
