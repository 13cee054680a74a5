package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.NOT_QUEUED;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.command;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.kvstore.Table;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.command.TransactionView;
import org.kvstore.server.command.WatchedKeys;

/**
 * {@code MULTI}, {@code EXEC}, {@code DISCARD}, {@code WATCH} and {@code UNWATCH}: Redis
 * transactions, on the table the connection addresses.
 *
 * <p>Between MULTI and EXEC, commands are checked (existence, arity, {@link RespCommandSpec#NO_MULTI})
 * and queued, each answered {@code +QUEUED}; a refused one makes EXEC answer {@code -EXECABORT} and
 * run nothing. EXEC collects the keys the queued commands name (and the watched keys of the table),
 * locks them all through one {@link Table#updateEntries}, checks the watched keys' versions
 * ({@link WatchedKeys}) under those locks, runs the commands in order against a
 * {@link TransactionView} over those entries, and writes what they changed (values and expiries)
 * as one batch: the transaction is atomic (all or nothing, also across a crash, and one
 * fsync with sync durability) and isolated (no other writer touches its keys meanwhile; readers
 * see it whole or not at all). A command that fails at run time (INCR of a non-integer) gets its
 * error in EXEC's reply and the others still run, as in Redis; if the store refuses the batch
 * (a value over its size limit) EXEC fails as a whole and nothing is written.
 *
 * <p>Thread safety: thread-safe (stateless; the state is the connection's).
 */
final class RespTransactionCommands {
  static final RespMessage QUEUED = new RespMessage.SimpleString("QUEUED");

  private final Keyspace keyspace;
  private final ServerSettings settings;
  private final RespCommandExecutor executor;

  RespTransactionCommands(Keyspace keyspace, ServerSettings settings, RespCommandExecutor executor) {
    this.keyspace = keyspace;
    this.settings = settings;
    this.executor = executor;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("multi", 1).flags(FAST | NOT_QUEUED).doc("transactions", "Starts a transaction.")
            .handler(this::multi),
        command("exec", 1).flags(NOT_QUEUED).doc("transactions", "Executes all commands in a transaction.")
            .handler(this::exec),
        command("discard", 1).flags(FAST | NOT_QUEUED).doc("transactions", "Discards a transaction.")
            .handler(this::discard),
        command("watch", -2).flags(READONLY | FAST | NOT_QUEUED).keys(1, -1, 1)
            .doc("transactions", "Monitors changes to keys to determine the execution of a transaction.")
            .handler(this::watch),
        command("unwatch", 1).flags(FAST).doc("transactions", "Forgets about watched keys of a transaction.")
            .handler((s, r) -> {
              s.unwatch();
              return RespMessage.OK;
            }));
  }

  private RespMessage multi(RespSession s, RespRequest r) {
    if (s.transaction() != null) {
      throw new CommandException("ERR MULTI calls can not be nested");
    }
    s.beginTransaction(new QueuedTransaction(settings.maxMultibulk(), settings.maxBulkBytes()));
    return RespMessage.OK;
  }

  private RespMessage discard(RespSession s, RespRequest r) {
    if (s.endTransaction() == null) {
      throw new CommandException("ERR DISCARD without MULTI");
    }
    s.unwatch();
    return RespMessage.OK;
  }

  private RespMessage watch(RespSession s, RespRequest r) {
    if (s.transaction() != null) {
      throw new CommandException("ERR WATCH inside MULTI is not allowed");
    }
    Table t = s.table(keyspace);
    WatchedKeys watched = s.watched();
    if (watched.size() + r.size() - 1 > settings.maxMultibulk()) {
      throw new CommandException(
          "ERR too many watched keys: a connection watches at most " + settings.maxMultibulk());
    }
    for (int i = 1; i < r.size(); i++) {
      watched.watch(t, r.arg(i), t.getEntry(r.arg(i)));
    }
    return RespMessage.OK;
  }

  private RespMessage exec(RespSession s, RespRequest r) {
    QueuedTransaction tx = s.endTransaction();
    if (tx == null) {
      throw new CommandException("ERR EXEC without MULTI");
    }
    WatchedKeys watched = s.unwatch();
    if (tx.aborted()) {
      throw new CommandException("EXECABORT Transaction discarded because of previous errors.");
    }
    Table t = s.table(keyspace);
    if (watched != null && !watched.unchangedOutside(t)) {
      return RespMessage.NULL_ARRAY;
    }
    List<byte[]> keys = keysOf(tx, watched, t);
    List<RespMessage> replies = new ArrayList<>(tx.size());
    if (keys.isEmpty()) {
      for (QueuedTransaction.Queued q : tx.commands()) {
        replies.add(executor.invoke(s, q.spec(), q.request()));
      }
      return new RespMessage.ArrayReply(replies);
    }
    boolean[] conflict = new boolean[1];
    t.updateEntries(keys, current -> {
      if (watched != null && !watched.unchangedOn(t, keys, current)) {
        conflict[0] = true;
        return null;
      }
      TransactionView view = new TransactionView(t, keyspace.store().options().clock(), keys, current);
      s.transactionView(view);
      try {
        for (QueuedTransaction.Queued q : tx.commands()) {
          replies.add(executor.invoke(s, q.spec(), q.request()));
        }
      } finally {
        s.transactionView(null);
      }
      return view.changes();
    });
    return conflict[0] ? RespMessage.NULL_ARRAY : new RespMessage.ArrayReply(replies);
  }

  /** The distinct keys the queued commands name, and the watched keys of {@code t}, in that order. */
  private static List<byte[]> keysOf(QueuedTransaction tx, WatchedKeys watched, Table t) {
    Set<ByteBuffer> seen = new HashSet<>();
    List<byte[]> keys = new ArrayList<>();
    for (QueuedTransaction.Queued q : tx.commands()) {
      for (byte[] k : q.spec().keyArgs(q.request())) {
        if (seen.add(ByteBuffer.wrap(k))) {
          keys.add(k);
        }
      }
    }
    if (watched != null) {
      for (byte[] k : watched.keysOn(t)) {
        if (seen.add(ByteBuffer.wrap(k))) {
          keys.add(k);
        }
      }
    }
    return keys;
  }
}
