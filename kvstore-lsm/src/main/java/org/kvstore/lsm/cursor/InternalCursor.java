package org.kvstore.lsm.cursor;

import java.io.IOException;
import org.kvstore.lsm.key.ValueKind;

/**
 * An ordered, positioned view over internal entries (user key, sequence number, kind, value) in
 * {@link org.kvstore.lsm.key.InternalKeyComparator} order. Starts invalid: call a seek method first.
 *
 * <p>Returned arrays belong to the cursor and stay valid until it moves; callers must not modify
 * them.
 *
 * <p>Thread safety: confined to one thread.
 */
public interface InternalCursor extends AutoCloseable {

  boolean isValid();

  /** Positions on the first entry. */
  void seekToFirst() throws IOException;

  /** Positions on the first entry at or after the internal key {@code (userKey, seqNum)}. */
  void seek(byte[] userKey, long seqNum) throws IOException;

  /** Moves to the next entry. REQUIRES: {@link #isValid()}. */
  void next() throws IOException;

  /** REQUIRES: {@link #isValid()}. */
  byte[] userKey();

  /** REQUIRES: {@link #isValid()}. */
  long seqNum();

  /** REQUIRES: {@link #isValid()}. */
  ValueKind kind();

  /** The value; empty for a {@link ValueKind#DELETE}. REQUIRES: {@link #isValid()}. */
  byte[] value() throws IOException;

  /** Releases what the cursor holds. Idempotent. */
  @Override
  void close();
}
