package org.kvstore.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.kvstore.Entry;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteResult;
import org.kvstore.server.http.HttpRouter.Execution;

/**
 * {@code GET}, {@code HEAD}, {@code PUT} and {@code DELETE /v1/dbs/{db}/tables/{table}/keys/{key}}:
 * values as raw bytes, the key's version as a strong {@code ETag}, conditional requests as RFC 9110
 * §13 says ({@code If-Match}, {@code If-None-Match}, 304 and 412), and {@code ?ttl=SECONDS}.
 * Conditions are checked by the store atomically with the write: a request whose precondition needs
 * more than one version compared reads the entry and then writes on the condition that its version
 * is still the one read.
 *
 * <p>Thread safety: thread-safe.
 */
final class KeyRoutes {
  static final String TEMPLATE = "/v1/dbs/{db}/tables/{table}/keys/{key}";
  /** A time to live above ten years is surely a mistake (a date instead of seconds). */
  static final long MAX_TTL_SECONDS = 10L * 366 * 86_400;
  static final String TTL_HEADER = "X-TTL-Ms";

  private final HttpTables tables;

  KeyRoutes(HttpTables tables) {
    this.tables = tables;
  }

  void register(HttpRouter router) {
    router.add(HttpMethod.GET, TEMPLATE, "key.get", Execution.EVENT_LOOP, this::get)
        .add(HttpMethod.PUT, TEMPLATE, "key.put", Execution.TABLE_WRITE, this::put)
        .add(HttpMethod.DELETE, TEMPLATE, "key.delete", Execution.TABLE_WRITE, this::delete);
  }

  HttpReply get(HttpExchange ex) {
    Table table = tables.table(ex);
    byte[] key = tables.pathKey(ex);
    EntityTags ifMatch = EntityTags.parse(ex.header(HttpHeaderNames.IF_MATCH), true);
    EntityTags ifNoneMatch = EntityTags.parse(ex.header(HttpHeaderNames.IF_NONE_MATCH), false);
    Entry e = table.getEntry(key);
    if (e == null) {
      throw notFound(table, key);
    }
    if (ifMatch != null && !ifMatch.matches(e.version())) {
      throw failed(key, "If-Match " + ex.header(HttpHeaderNames.IF_MATCH) + " does not match version " + e.version());
    }
    if (ifNoneMatch != null && ifNoneMatch.matches(e.version())) {
      return withEntryHeaders(HttpReply.empty(HttpResponseStatus.NOT_MODIFIED), e);
    }
    return withEntryHeaders(HttpReply.bytes(HttpResponseStatus.OK, e.value(), HttpReply.OCTETS), e);
  }

  HttpReply put(HttpExchange ex) {
    Table table = tables.table(ex);
    byte[] key = tables.pathKey(ex);
    long ttl = ex.queryLong("ttl", 0, 1, MAX_TTL_SECONDS);
    byte[] value = ex.body();
    PutOptions options = PutOptions.defaults().returnPrevious();
    if (ttl > 0) {
      options = options.ttlMillis(ttl * 1000);
    }
    Precondition condition = condition(ex, table, key);
    WriteResult r = table.put(key, value, options.when(condition));
    if (!r.applied()) {
      throw failed(key, "expected " + condition + ", found "
          + (r.previous() == null ? "no key" : "version " + r.previous().version()));
    }
    HttpReply reply;
    if (r.previous() == null) {
      reply = HttpReply.empty(HttpResponseStatus.CREATED).header(HttpHeaderNames.LOCATION, ex.rawPath());
    } else {
      reply = HttpReply.empty(HttpResponseStatus.NO_CONTENT);
    }
    return reply.header(HttpHeaderNames.ETAG, EntityTags.of(r.version()));
  }

  HttpReply delete(HttpExchange ex) {
    Table table = tables.table(ex);
    byte[] key = tables.pathKey(ex);
    Precondition condition = condition(ex, table, key);
    WriteResult r = table.remove(key, condition);
    if (r.applied()) {
      return HttpReply.empty(HttpResponseStatus.NO_CONTENT);
    }
    if (r.previous() == null && condition.isNone()) {
      throw notFound(table, key);
    }
    throw failed(key, "expected " + condition + ", found "
        + (r.previous() == null ? "no key" : "version " + r.previous().version()));
  }

  /**
   * The store condition equivalent to the request's If-Match and If-None-Match: one tag or
   * {@code *} maps onto a condition directly; anything else is evaluated against the entry read
   * now, and the write is then conditional on that entry's version (or absence).
   */
  private static Precondition condition(HttpExchange ex, Table table, byte[] key) {
    EntityTags ifMatch = EntityTags.parse(ex.header(HttpHeaderNames.IF_MATCH), true);
    EntityTags ifNoneMatch = EntityTags.parse(ex.header(HttpHeaderNames.IF_NONE_MATCH), false);
    if (ifMatch == null && ifNoneMatch == null) {
      return Precondition.none();
    }
    if (ifMatch == null && ifNoneMatch.any()) {
      return Precondition.absent();
    }
    if (ifNoneMatch == null && ifMatch.any()) {
      return Precondition.present();
    }
    if (ifNoneMatch == null && ifMatch.versions().size() == 1) {
      return Precondition.version(ifMatch.versions().get(0));
    }
    Entry current = table.getEntry(key);
    Long version = current == null ? null : current.version();
    boolean holds = (ifMatch == null || ifMatch.matches(version))
        && (ifNoneMatch == null || !ifNoneMatch.matches(version));
    if (!holds) {
      throw failed(key, "If-Match/If-None-Match do not hold for "
          + (version == null ? "no key" : "version " + version));
    }
    return version == null ? Precondition.absent() : Precondition.version(version);
  }

  private static HttpReply withEntryHeaders(HttpReply reply, Entry e) {
    reply.header(HttpHeaderNames.ETAG, EntityTags.of(e.version()));
    if (e.hasExpiry()) {
      long left = e.remainingMillis(System.currentTimeMillis());
      reply.header(HttpHeaderNames.EXPIRES,
          DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.ofEpochMilli(e.expiresAt()).atZone(ZoneOffset.UTC)));
      reply.header(TTL_HEADER, left);
    }
    return reply;
  }

  static HttpProblem notFound(Table table, byte[] key) {
    return new HttpProblem(ProblemCode.KEY_NOT_FOUND, "key '" + HttpTables.shown(key) + "' not found in table '"
        + table.database() + "/" + table.name() + "'");
  }

  static HttpProblem failed(byte[] key, String why) {
    return new HttpProblem(ProblemCode.PRECONDITION_FAILED,
        "precondition failed for key '" + HttpTables.shown(key) + "': " + why);
  }
}
