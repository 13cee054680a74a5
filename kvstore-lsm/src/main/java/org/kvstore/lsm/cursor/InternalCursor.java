package org.kvstore.lsm.cursor;

import java.io.IOException;
import org.kvstore.lsm.key.ValueKind;

/**
 * An ordered, positioned view over internal entries (user key, sequence number, kind, value,
 * version, expiry) in
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

  /**
   * The entry's version: the LSN of the write that made it (0 for an entry of an SSTable of format
   * version 1). REQUIRES: {@link #isValid()}.
   */
  long version();

  /**
   * When the entry expires, milliseconds since the epoch ({@link org.kvstore.Entry#NO_EXPIRY}:
   * never; always that for a delete). REQUIRES: {@link #isValid()}.
   */
  long expiresAt();

  /** The value; empty for a {@link ValueKind#DELETE}. REQUIRES: {@link #isValid()}. */
  byte[] value() throws IOException;

  /** Releases what the cursor holds. Idempotent. */
  @Override
  void close();
}
