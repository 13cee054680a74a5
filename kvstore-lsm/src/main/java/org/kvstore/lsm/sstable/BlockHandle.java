package org.kvstore.lsm.sstable;

/**
 * Where a block's stored contents sit in an SSTable: their offset and size, without the 5-byte
 * trailer that follows them.
 *
 * <p>Thread safety: immutable.
 */
public record BlockHandle(long offset, int size) {}
