package org.kvstore.cluster;

import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import org.kvstore.Cursor;

/**
 * The entries of several cursors over disjoint key sets (one per shard) as one cursor in unsigned
 * byte key order, up to a limit.
 *
 * <p>Thread safety: confined to one thread, as every cursor.
 */
final class MergingCursor implements Cursor {
  private final List<Cursor> sources;
  private final PriorityQueue<Head> heads =
      new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.key, b.key));
  private final int limit;
  private boolean started;
  private int returned;
  private Head current;

  /** A source positioned on an entry, with that entry's key. */
  private record Head(Cursor cursor, byte[] key) {}

  /** {@code limit <= 0}: no limit. Takes over the cursors: closing this closes them. */
  MergingCursor(List<Cursor> sources, int limit) {
    this.sources = List.copyOf(sources);
    this.limit = limit;
  }

  @Override
  public boolean next() {
    if (!started) {
      started = true;
      for (Cursor c : sources) {
        advance(c);
      }
    } else if (current != null) {
      advance(current.cursor());
    }
    if (limit > 0 && returned >= limit) {
      current = null;
      return false;
    }
    current = heads.poll();
    if (current == null) {
      return false;
    }
    returned++;
    return true;
  }

  private void advance(Cursor c) {
    if (c.next()) {
      heads.add(new Head(c, c.key()));
    }
  }

  @Override
  public byte[] key() {
    return current.key().clone();
  }

  @Override
  public byte[] value() {
    return current.cursor().value();
  }

  @Override
  public long version() {
    return current.cursor().version();
  }

  @Override
  public long expiresAt() {
    return current.cursor().expiresAt();
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (Cursor c : sources) {
      try {
        c.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
