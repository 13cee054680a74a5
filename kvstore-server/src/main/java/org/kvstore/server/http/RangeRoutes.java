package org.kvstore.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.kvstore.Table;
import org.kvstore.server.command.KeyRangePager;
import org.kvstore.server.http.HttpRouter.Execution;

/**
 * {@code GET /v1/dbs/{db}/tables/{table}/keys?prefix=&start=&end=&limit=&cursor=&values=&reverse=}:
 * one page of a range in unsigned byte order, start inclusive, end exclusive. The cursor is opaque
 * to clients: base64url of a direction byte ({@code f} or {@code r}) and the key the next page
 * starts after (forward) or ends before (reverse); {@code next_cursor} is null on the last page,
 * and {@code Link: <...>; rel="next"} names the next page's URL.
 *
 * <p>Thread safety: thread-safe.
 */
final class RangeRoutes {
  static final String TEMPLATE = "/v1/dbs/{db}/tables/{table}/keys";
  static final int MAX_LIMIT = 1000;
  /** A page stops growing past this many bytes of keys and values (it has at least one entry). */
  static final long PAGE_BYTES = 1 << 20;

  private final HttpTables tables;

  RangeRoutes(HttpTables tables) {
    this.tables = tables;
  }

  void register(HttpRouter r) {
    r.add(HttpMethod.GET, TEMPLATE, "keys.get", Execution.WORKER, this::list);
  }

  HttpReply list(HttpExchange ex) {
    Table table = tables.table(ex);
    byte[] prefix = ex.queryBytes("prefix");
    byte[] start = ex.queryBytes("start");
    byte[] end = ex.queryBytes("end");
    int limit = (int) ex.queryLong("limit", 100, 1, MAX_LIMIT);
    boolean values = ex.queryBool("values");
    boolean reverse = ex.queryBool("reverse");
    if (start != null && start.length == 0) {
      start = null;
    }
    if (end != null && end.length == 0) {
      end = null;
    }
    if (start != null && end != null && Arrays.compareUnsigned(start, end) > 0) {
      throw HttpProblem.invalid("start must not be after end");
    }
    if (prefix != null && prefix.length > 0) {
      start = KeyRangePager.maxStart(start, prefix);
      end = KeyRangePager.minEnd(end, KeyRangePager.prefixEnd(prefix));
    }
    String cursorText = ex.queryText("cursor");
    if (cursorText != null && !cursorText.isEmpty()) {
      byte[] resume = decodeCursor(cursorText, reverse);
      if (reverse) {
        end = KeyRangePager.minEnd(end, resume);
      } else {
        start = KeyRangePager.maxStart(start, KeyRangePager.successor(resume));
      }
    }
    KeyRangePager.Page page = reverse
        ? KeyRangePager.reverse(table, start, end, limit, PAGE_BYTES, values)
        : KeyRangePager.forward(table, start, end, limit, PAGE_BYTES, values);
    ObjectNode doc = HttpReply.object();
    ArrayNode items = doc.putArray("items");
    Base64.Encoder b64 = Base64.getEncoder();
    long now = System.currentTimeMillis();
    for (KeyRangePager.Item item : page.items()) {
      ObjectNode o = items.addObject();
      String text = PercentCoding.utf8(item.key());
      if (text != null) {
        o.put("key", text);
      }
      o.put("key_b64", b64.encodeToString(item.key()));
      if (item.value() != null) {
        o.put("value_b64", b64.encodeToString(item.value()));
      }
      o.put("version", item.version());
      o.put("size", item.valueSize());
      if (item.expiresAt() != 0) {
        o.put("ttl_ms", Math.max(0, item.expiresAt() - now));
      }
    }
    HttpReply reply;
    if (page.resumeKey() == null) {
      doc.putNull("next_cursor");
      reply = HttpReply.json(HttpResponseStatus.OK, doc);
    } else {
      String cursor = encodeCursor(page.resumeKey(), reverse);
      doc.put("next_cursor", cursor);
      reply = HttpReply.json(HttpResponseStatus.OK, doc);
      reply.header("Link", "<" + nextLink(ex, cursor) + ">; rel=\"next\"");
    }
    return reply;
  }

  static String encodeCursor(byte[] key, boolean reverse) {
    byte[] raw = new byte[key.length + 1];
    raw[0] = (byte) (reverse ? 'r' : 'f');
    System.arraycopy(key, 0, raw, 1, key.length);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  private static byte[] decodeCursor(String cursor, boolean reverse) {
    byte[] raw;
    try {
      raw = Base64.getUrlDecoder().decode(cursor);
    } catch (IllegalArgumentException e) {
      throw HttpProblem.invalid("cursor '" + cursor + "' is not a cursor this server returned");
    }
    if (raw.length < 2 || (raw[0] != 'f' && raw[0] != 'r')) {
      throw HttpProblem.invalid("cursor '" + cursor + "' is not a cursor this server returned");
    }
    if ((raw[0] == 'r') != reverse) {
      throw HttpProblem.invalid("cursor was returned by a " + (raw[0] == 'r' ? "reverse" : "forward")
          + " listing; pass the same reverse= as that listing");
    }
    return Arrays.copyOfRange(raw, 1, raw.length);
  }

  /** The request's URL with {@code cursor} replaced, the other parameters kept as they were sent. */
  private static String nextLink(HttpExchange ex, String cursor) {
    StringBuilder sb = new StringBuilder(ex.rawPath()).append('?');
    Map<String, String> sorted = new TreeMap<>(ex.rawQueryParams());
    sorted.remove("cursor");
    for (Map.Entry<String, String> e : sorted.entrySet()) {
      sb.append(PercentCoding.encode(e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .append('=').append(e.getValue()).append('&');
    }
    return sb.append("cursor=").append(cursor).toString();
  }
}
