package org.kvstore.server.command;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.InvalidArgumentException;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * The one writer of plain puts ({@code SET key value}, also with an expiry: {@code SET key value EX
 * 60}, {@code SETEX}): a single put, or a group of puts that the
 * {@link WriteCoalescer} gathered from many connections, goes to the table as one
 * {@link WriteBatch}, which is one log record, one {@code write()} and with sync durability one
 * fsync. A group's batch is atomic, which is stronger than the separate writes the clients asked
 * for; a later put of the same key in the group wins, as it would if written one by one in arrival
 * order.
 *
 * <p>Expiry: a put carries {@link PutOptions} with an absolute expiry ({@link PutOptions#expireAt}),
 * or the defaults (no expiry); neither makes the store read the key before writing it.
 *
 * <p>Copies: none. Keys and values go into the store as they are ({@link WriteBatch#putOwned}):
 * the front end decoded them for this request alone and nothing modifies them afterwards.
 *
 * <p>Errors: a single put throws what the store throws. For a group, when the batch is refused as a
 * whole because one put is invalid (an empty or too long key, a too large value), the puts are
 * written one by one, so only the invalid one fails; any other failure fails every put of the group.
 * Failures are returned, not translated: each front end maps them to replies (and logs) in one place.
 *
 * <p>Counters ({@link #batches}, {@link #puts}): how many store writes carried how many puts, so
 * that INFO shows whether puts are grouped.
 *
 * <p>Thread safety: thread-safe.
 */
public final class PutWriter {
  /** A sequence of puts, by index. Implementations hand their arrays over (see above). */
  public interface Puts {
    int size();

    byte[] key(int i);

    byte[] value(int i);

    /** The options of put {@code i}: no expiry, or an absolute one; never a condition. */
    default PutOptions options(int i) {
      return PutOptions.defaults();
    }
  }

  private final LongAdder batches = new LongAdder();
  private final LongAdder puts = new LongAdder();

  /** Writes one put. Throws what the store throws. */
  public void put(Table t, byte[] key, byte[] value) {
    put(t, key, value, PutOptions.defaults());
  }

  /** Writes one put with {@code options} (an expiry, or none). Throws what the store throws. */
  public void put(Table t, byte[] key, byte[] value, PutOptions options) {
    t.write(new WriteBatch().putOwned(key, value, options));
    counted(t, 1, 1);
  }

  /**
   * Writes the puts of {@code groups}, in order, as one batch.
   *
   * @param count the number of puts in all the groups
   * @return null when every put was written; else one entry per put, in order: null where it was
   *     written, the exception where it failed
   */
  public RuntimeException[] write(Table t, List<? extends Puts> groups, int count) {
    if (count == 1) {
      return oneByOne(t, groups, count);
    }
    WriteBatch batch = new WriteBatch();
    for (Puts g : groups) {
      for (int i = 0, n = g.size(); i < n; i++) {
        batch.putOwned(g.key(i), g.value(i), g.options(i));
      }
    }
    try {
      t.write(batch);
    } catch (InvalidArgumentException e) {
      return oneByOne(t, groups, count);
    } catch (RuntimeException e) {
      RuntimeException[] failed = new RuntimeException[count];
      Arrays.fill(failed, e);
      return failed;
    }
    counted(t, 1, count);
    return null;
  }

  private RuntimeException[] oneByOne(Table t, List<? extends Puts> groups, int count) {
    RuntimeException[] failed = null;
    int at = 0;
    for (Puts g : groups) {
      for (int i = 0, n = g.size(); i < n; i++, at++) {
        try {
          put(t, g.key(i), g.value(i), g.options(i));
        } catch (RuntimeException e) {
          if (failed == null) {
            failed = new RuntimeException[count];
          }
          failed[at] = e;
        }
      }
    }
    return failed;
  }

  private void counted(Table t, int batchCount, int putCount) {
    if (!(t instanceof TransactionView)) { // EXEC writes its view's changes as one batch itself
      batches.add(batchCount);
      puts.add(putCount);
    }
  }

  /** Store writes made of plain puts so far. */
  public long batches() {
    return batches.sum();
  }

  /** Plain puts written so far. */
  public long puts() {
    return puts.sum();
  }
}
