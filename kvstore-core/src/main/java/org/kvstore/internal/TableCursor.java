package org.kvstore.internal;

import org.kvstore.Cursor;
import org.kvstore.StoreClosedException;

/**
 * The cursor handed to users: applies the limit, checks the table is still open on every move, and
 * closes the engine cursor once.
 *
 * <p>Thread safety: confined to one thread, except {@link #invalidate()}, which the closing table
 * calls after its operation gate has closed and drained (so no move runs concurrently).
 */
final class TableCursor implements Cursor {
  private final StoreTable table;
  private final Cursor inner;
  private final int limit;
  private int returned;
  private boolean positioned;
  private volatile boolean invalid;
  private boolean closed;

  TableCursor(StoreTable table, Cursor inner, int limit) {
    this.table = table;
    this.inner = inner;
    this.limit = limit <= 0 ? Integer.MAX_VALUE : limit;
  }

  @Override
  public boolean next() {
    if (closed) {
      throw new StoreClosedException("cursor");
    }
    table.enter();
    try {
      if (invalid) {
        throw new StoreClosedException("cursor of table " + table.qualifiedName());
      }
      if (returned >= limit) {
        positioned = false;
        return false;
      }
      positioned = inner.next();
      if (positioned) {
        returned++;
      }
      return positioned;
    } finally {
      table.exit();
    }
  }

  @Override
  public byte[] key() {
    checkPositioned();
    return inner.key();
  }

  @Override
  public byte[] value() {
    checkPositioned();
    return inner.value();
  }

  @Override
  public long version() {
    checkPositioned();
    return inner.version();
  }

  @Override
  public long expiresAt() {
    checkPositioned();
    return inner.expiresAt();
  }

  private void checkPositioned() {
    if (closed || invalid) {
      throw new StoreClosedException("cursor");
    }
    if (!positioned) {
      throw new IllegalStateException("cursor is not on an entry: call next() first and check it returned true");
    }
  }

  /** Called by the table when it closes. REQUIRES: the table's operation gate is closed and drained. */
  void invalidate() {
    invalid = true;
    inner.close();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    table.cursorClosed(this);
    if (!invalid) {
      inner.close();
    }
  }
}
