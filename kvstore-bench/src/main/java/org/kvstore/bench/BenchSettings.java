package org.kvstore.bench;

/**
 * Settings shared by every store of one benchmark run, so the comparison is like for like.
 *
 * @param cacheBytes the read cache: the B+tree's page buffer, the LSM and RocksDB block caches
 * @param memtableBytes the LSM and RocksDB write buffer
 *
 * <p>Thread safety: immutable.
 */
public record BenchSettings(long cacheBytes, long memtableBytes) {}
