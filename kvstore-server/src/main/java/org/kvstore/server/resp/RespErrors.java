package org.kvstore.server.resp;

import org.kvstore.KVStoreException;
import org.kvstore.NoSpaceException;
import org.kvstore.NoSuchTableException;
import org.kvstore.cluster.ClusterDownException;
import org.kvstore.cluster.CrossSlotException;
import org.kvstore.cluster.SlotMovedException;
import org.kvstore.server.command.CommandException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a failure becomes a RESP error reply, and where what the client does not see
 * is logged:
 *
 * <table>
 *   <tr><th>failure</th><th>reply</th><th>log</th></tr>
 *   <tr><td>{@link CommandException}</td><td>its text ({@code ERR syntax error}, {@code WRONGPASS ...})</td><td>none: the client sees it all</td></tr>
 *   <tr><td>{@link NoSpaceException}</td><td>{@code MISCONF <message>} (as Redis answers while it cannot persist): the disk is full, the directory, and that writes resume by themselves</td><td>debug</td></tr>
 *   <tr><td>{@link SlotMovedException}</td><td>{@code MOVED <slot> <host>:<port>} (Redis Cluster's redirect to the node that serves the slot)</td><td>none</td></tr>
 *   <tr><td>{@link CrossSlotException}</td><td>{@code CROSSSLOT Keys in request don't hash to the same slot}</td><td>none</td></tr>
 *   <tr><td>{@link ClusterDownException}</td><td>{@code CLUSTERDOWN The cluster is down} (the slot's shard has no leader)</td><td>debug</td></tr>
 *   <tr><td>{@link NoSuchTableException}</td><td>{@code ERR <message>}; the connection resolves its table again</td><td>debug</td></tr>
 *   <tr><td>other {@link KVStoreException}, {@link IllegalArgumentException}</td><td>{@code ERR <message>}</td><td>debug, with the stack trace</td></tr>
 *   <tr><td>any other exception or error (a bug)</td><td>{@code ERR internal error in '<command>': <class>}</td><td>warn, with the stack trace</td></tr>
 * </table>
 *
 * <p>The connection stays usable after any of them.
 *
 * <p>Thread safety: stateless, thread-safe.
 */
final class RespErrors {
  private static final Logger LOG = LoggerFactory.getLogger(RespErrors.class);

  static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
  static final String CLUSTERDOWN = "CLUSTERDOWN The cluster is down";

  private RespErrors() {}

  /** {@code MOVED <slot> <host>:<port>}, Redis' redirect text. */
  static String moved(SlotMovedException e) {
    return "MOVED " + e.slot() + " " + (e.endpoint() != null ? e.endpoint() : e.nodeId());
  }

  /**
   * The reply to {@code command} (its lower-case name; null when the failure is not one command's)
   * failing with {@code failure}, on the connection of {@code session}.
   */
  static RespMessage.ErrorReply reply(String command, Throwable failure, RespSession session) {
    if (failure instanceof CommandException e) {
      return new RespMessage.ErrorReply(e.reply());
    }
    if (failure instanceof SlotMovedException e) {
      return new RespMessage.ErrorReply(moved(e));
    }
    if (failure instanceof CrossSlotException) {
      return new RespMessage.ErrorReply(CROSSSLOT);
    }
    String what = command == null ? "a request" : "'" + command + "'";
    if (failure instanceof ClusterDownException e) {
      LOG.debug("{} of client {}: {}", what, session.id(), e.getMessage());
      return new RespMessage.ErrorReply(CLUSTERDOWN);
    }
    if (failure instanceof NoSpaceException e) {
      LOG.debug("{} of client {} refused: {}", what, session.id(), e.getMessage());
      return new RespMessage.ErrorReply("MISCONF " + e.getMessage());
    }
    if (failure instanceof NoSuchTableException e) {
      LOG.debug("{} of client {}: {}", what, session.id(), e.getMessage());
      session.invalidateTable();
      return new RespMessage.ErrorReply("ERR " + e.getMessage());
    }
    if (failure instanceof KVStoreException || failure instanceof IllegalArgumentException) {
      LOG.debug("{} of client {} refused", what, session.id(), failure);
      return new RespMessage.ErrorReply("ERR " + failure.getMessage());
    }
    LOG.warn("{} of client {} failed unexpectedly", what, session.id(), failure);
    String type = failure.getClass().getSimpleName();
    return new RespMessage.ErrorReply(command == null
        ? "ERR internal error: " + type
        : "ERR internal error in '" + command + "': " + type);
  }
}
