package org.kvstore.lsm;

import java.io.IOException;
import java.time.Clock;
import java.util.Arrays;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.StorageIOException;
import org.kvstore.lsm.cursor.MergingCursor;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.version.Version;

/**
 * The user's cursor over {@code [from, to)} at one snapshot: walks the merge of all sources, takes
 * the newest entry of each user key and skips keys whose newest entry is a tombstone or a put
 * expired at {@code clock}'s time when the cursor reaches it (an expired newest entry hides the
 * key's older entries as a tombstone does; a null clock returns expired entries too). Pins the
 * version it reads and keeps its snapshot registered (see {@link OpenSnapshots}) until
 * {@link #close()}.
 *
 * <p>Thread safety: confined to one thread.
 */
final class LsmCursor implements Cursor {
  private final MergingCursor merged;
  private final Version version;
  private final Runnable releaseSnapshot;
  private final byte[] from;
  private final byte[] to;
  private final String table;
  private boolean started;
  private boolean done;
  private byte[] key;
  private byte[] value;
  private long entryVersion;
  private long expiresAt;
  private final Clock clock;
  private boolean closed;

  LsmCursor(
      MergingCursor merged, Version version, Runnable releaseSnapshot, byte[] from, byte[] to, String table,
      Clock clock) {
    this.clock = clock;
    this.merged = merged;
    this.version = version;
    this.releaseSnapshot = releaseSnapshot;
    this.from = from;
    this.to = to;
    this.table = table;
  }

  @Override
  public boolean next() {
    if (closed || done) {
      return false;
    }
    try {
      if (!started) {
        started = true;
        if (from == null) {
          merged.seekToFirst();
        } else {
          merged.seek(from, org.kvstore.lsm.key.InternalKey.MAX_SEQ_NUM);
        }
      } else {
        skipKey(key);
      }
      while (merged.isValid()) {
        byte[] k = merged.userKey();
        if (to != null && Arrays.compareUnsigned(k, to) >= 0) {
          break;
        }
        long expires = merged.expiresAt();
        if (merged.kind() == ValueKind.DELETE
            || (clock != null && expires != Entry.NO_EXPIRY && Entry.isExpired(expires, clock.millis()))) {
          skipKey(k);
          continue;
        }
        key = k;
        value = merged.value();
        entryVersion = merged.version();
        expiresAt = expires;
        return true;
      }
    } catch (IOException e) {
      throw new StorageIOException("table " + table + ": scan", e);
    }
    done = true;
    key = null;
    value = null;
    return false;
  }

  /** Moves past every remaining entry of {@code k}. */
  private void skipKey(byte[] k) throws IOException {
    byte[] skip = k;
    while (merged.isValid() && Arrays.equals(merged.userKey(), skip)) {
      merged.next();
    }
  }

  @Override
  public byte[] key() {
    if (key == null) {
      throw new IllegalStateException("cursor is not on an entry");
    }
    return key.clone();
  }

  @Override
  public long version() {
    if (key == null) {
      throw new IllegalStateException("cursor is not on an entry");
    }
    return entryVersion;
  }

  @Override
  public long expiresAt() {
    if (key == null) {
      throw new IllegalStateException("cursor is not on an entry");
    }
    return expiresAt;
  }

  @Override
  public byte[] value() {
    if (value == null) {
      throw new IllegalStateException("cursor is not on an entry");
    }
    return value.clone();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        merged.close();
      } finally {
        version.unref();
        releaseSnapshot.run();
      }
    }
  }
}
