package org.kvstore.server.command;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchTableException;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.resp.RespMessage;
import org.kvstore.server.resp.RespRequest;
import org.kvstore.server.resp.WriteTarget;

/**
 * The {@link WriteTarget} of plain {@code SET key value} requests to one table: a group of them (from
 * any number of connections) is written as one {@link WriteBatch} — one log record, one
 * {@code write()}, and with sync durability one fsync. The batch is atomic, which is stronger than
 * the separate writes the clients asked for; a later SET of the same key in the group wins, as it
 * would be written one by one in arrival order.
 *
 * <p>The requests' key and value arrays go into the store as they are ({@link WriteBatch#putOwned}):
 * the decoder made them for this request alone and nothing modifies them afterwards.
 *
 * <p>When the batch is refused as a whole because one request is invalid (an empty or too long key,
 * a too large value), the requests are written one by one, so only the invalid one gets the error.
 *
 * <p>Two writers are equal when they write to the same table (identity of the handle), so the
 * connections' own writers form one group per table.
 *
 * <p>Thread safety: thread-safe (the table is thread-safe; {@code dropped} is volatile).
 */
final class TableSetWriter implements WriteTarget {
  private final Table table;
  private final boolean blocking;
  /** The table was dropped: sessions stop using this writer and resolve their table again. */
  private volatile boolean dropped;

  TableSetWriter(Table table, boolean blocking) {
    this.table = table;
    this.blocking = blocking;
  }

  Table table() {
    return table;
  }

  boolean dropped() {
    return dropped;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableSetWriter w && w.table == table;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(table);
  }

  @Override
  public boolean blocking() {
    return blocking;
  }

  @Override
  public List<RespMessage> write(List<RespRequest> requests) {
    if (requests.size() == 1) {
      return oneByOne(requests);
    }
    WriteBatch batch = new WriteBatch();
    for (RespRequest r : requests) {
      batch.putOwned(r.arg(1), r.arg(2));
    }
    try {
      table.write(batch);
      return Collections.nCopies(requests.size(), RespMessage.OK);
    } catch (InvalidArgumentException e) {
      return oneByOne(requests);
    } catch (NoSuchTableException e) {
      dropped = true;
      return Collections.nCopies(requests.size(), new RespMessage.ErrorReply("ERR " + e.getMessage()));
    } catch (KVStoreException e) {
      return Collections.nCopies(requests.size(), new RespMessage.ErrorReply("ERR " + e.getMessage()));
    } catch (RuntimeException e) {
      return Collections.nCopies(requests.size(),
          new RespMessage.ErrorReply("ERR internal error in 'set': " + e.getClass().getSimpleName()));
    }
  }

  private List<RespMessage> oneByOne(List<RespRequest> requests) {
    List<RespMessage> replies = new ArrayList<>(requests.size());
    for (RespRequest r : requests) {
      try {
        table.write(new WriteBatch().putOwned(r.arg(1), r.arg(2)));
        replies.add(RespMessage.OK);
      } catch (NoSuchTableException e) {
        dropped = true;
        replies.add(new RespMessage.ErrorReply("ERR " + e.getMessage()));
      } catch (KVStoreException e) {
        replies.add(new RespMessage.ErrorReply("ERR " + e.getMessage()));
      } catch (RuntimeException e) {
        replies.add(new RespMessage.ErrorReply("ERR internal error in 'set': " + e.getClass().getSimpleName()));
      }
    }
    return replies;
  }
}
