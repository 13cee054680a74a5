package org.kvstore.server.resp;

import java.util.List;

/**
 * The command side of one RESP connection, as seen by {@link RespCommandHandler}: it executes
 * requests and holds the connection's state (protocol version, authentication, selected table).
 *
 * <p>Thread safety: the handler calls {@link #execute} for one request at a time, in order, either
 * on the event loop or on a worker thread (never two at once), with a happens-before edge between
 * consecutive calls; {@link #authenticated()} and {@link #protocolVersion()} may be read from the
 * event loop while a worker executes, so implementations keep them in volatile fields.
 */
public interface RespSession {

  /**
   * Whether {@code request} may wait on I/O (an fsync, a scan of a whole table, a catalog change),
   * so it must run on a worker thread rather than on the event loop.
   */
  boolean mayBlock(RespRequest request);

  /**
   * Whether {@code request} is a quick read (it reads the store and changes no connection or store
   * state) that may run on a {@link ReadOffload} helper thread. The default never offloads.
   */
  default boolean offloadable(RespRequest request) {
    return false;
  }

  /** Executes {@code request}; never throws: failures become error replies. */
  RespMessage execute(RespRequest request);

  /**
   * Executes consecutive requests that {@link #batchable} accepted as one unit (for example a
   * pipeline of plain {@code SET}s written as one batch). Returns one reply per request.
   */
  default List<RespMessage> executeBatch(List<RespRequest> requests) {
    return requests.stream().map(this::execute).toList();
  }

  /**
   * Executes a run of consecutive quick reads ({@link #offloadable}), in order, with the same
   * replies as {@link #execute} of each; the session may read their keys together (a pipeline of
   * {@code GET}s as one multi-get). Never throws.
   */
  default List<RespMessage> executeReads(List<RespRequest> requests) {
    return requests.stream().map(this::execute).toList();
  }

  /**
   * Whether {@code next} may join a batch that starts with {@code first} (same command kind and
   * target). The default never batches.
   */
  default boolean batchable(RespRequest first, RespRequest next) {
    return false;
  }

  /**
   * Where {@code request} may be written together with other connections' writes in one batch (a
   * plain {@code SET k v} to an already resolved table), or null when it must run on its own. The
   * default never groups.
   */
  default WriteTarget writeTarget(RespRequest request) {
    return null;
  }

  /** 2 or 3: the protocol replies are encoded in. */
  int protocolVersion();

  /** Whether the connection may use the full request limits (true when no password is set). */
  boolean authenticated();

  /** Whether the last request asked to close the connection after its reply ({@code QUIT}). */
  boolean closeRequested();

  /** The connection closed. Idempotent. */
  void closed();
}
