package org.kvstore.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;

/**
 * The stable {@code code} of every HTTP error (RFC 9457 problem details), with its status and
 * title. Clients match on the code; the codes of ../shared/CLIENTS.md §8.2 plus the few the router
 * and the connection itself need (unknown path, wrong method, timeouts, too many connections).
 * DO NOT RENAME: clients depend on the text.
 *
 * <p>Thread safety: immutable.
 */
enum ProblemCode {
  DB_NOT_FOUND(HttpResponseStatus.NOT_FOUND, "Database not found"),
  TABLE_NOT_FOUND(HttpResponseStatus.NOT_FOUND, "Table not found"),
  KEY_NOT_FOUND(HttpResponseStatus.NOT_FOUND, "Key not found"),
  NOT_FOUND(HttpResponseStatus.NOT_FOUND, "No such resource"),
  DB_EXISTS(HttpResponseStatus.CONFLICT, "Database exists"),
  TABLE_EXISTS(HttpResponseStatus.CONFLICT, "Table exists"),
  DB_NOT_EMPTY(HttpResponseStatus.CONFLICT, "Database not empty"),
  PRECONDITION_FAILED(HttpResponseStatus.PRECONDITION_FAILED, "Precondition failed"),
  VALUE_TOO_LARGE(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Value too large"),
  BATCH_TOO_LARGE(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "Batch too large"),
  KEY_TOO_LARGE(HttpResponseStatus.REQUEST_URI_TOO_LONG, "Key too large"),
  INVALID_ARGUMENT(HttpResponseStatus.BAD_REQUEST, "Invalid argument"),
  UNSUPPORTED_ENGINE(HttpResponseStatus.BAD_REQUEST, "Unsupported engine"),
  UNSUPPORTED_MEDIA_TYPE(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
  METHOD_NOT_ALLOWED(HttpResponseStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
  UNAUTHORIZED(HttpResponseStatus.UNAUTHORIZED, "Unauthorized"),
  NOT_READY(HttpResponseStatus.SERVICE_UNAVAILABLE, "Not ready"),
  TOO_MANY_CONNECTIONS(HttpResponseStatus.SERVICE_UNAVAILABLE, "Too many connections"),
  /** A cluster node was asked to write a hash slot whose shard another node leads (Redis' -MOVED). */
  MOVED(HttpResponseStatus.MISDIRECTED_REQUEST, "Moved"),
  /** A cluster node's shard for the key's slot has no leader it can reach (Redis' -CLUSTERDOWN). */
  CLUSTER_DOWN(HttpResponseStatus.SERVICE_UNAVAILABLE, "Cluster down"),
  /** A cluster node was asked for keys of several hash slots in one atomic request (Redis' -CROSSSLOT). */
  CROSS_SLOT(HttpResponseStatus.BAD_REQUEST, "Cross slot"),
  /** The disk is full: writes are refused until space is freed (the store resumes by itself). */
  INSUFFICIENT_STORAGE(HttpResponseStatus.INSUFFICIENT_STORAGE, "Insufficient storage"),
  REQUEST_TIMEOUT(HttpResponseStatus.REQUEST_TIMEOUT, "Request timeout"),
  HEADERS_TOO_LARGE(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Request headers too large"),
  INTERNAL(HttpResponseStatus.INTERNAL_SERVER_ERROR, "Internal error");

  private final HttpResponseStatus status;
  private final String title;

  ProblemCode(HttpResponseStatus status, String title) {
    this.status = status;
    this.title = title;
  }

  HttpResponseStatus status() {
    return status;
  }

  String title() {
    return title;
  }

  /** The {@code code} member: the constant's name in lower case. */
  String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The {@code type} member: a URI naming the problem. */
  String type() {
    return "https://kvstore.org/errors/" + code().replace('_', '-');
  }
}
