package org.kvstore.lsm.key;

/**
 * What a point lookup found in one source: the newest entry of the key visible there.
 *
 * <p>Thread safety: immutable by convention (the value array is never modified).
 *
 * @param value the value of a {@link ValueKind#PUT}; empty for a delete
 */
public record Lookup(long seqNum, ValueKind kind, byte[] value) {}
