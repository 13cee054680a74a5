package org.kvstore.bench.load.workload;

import java.util.SplittableRandom;

/**
 * YCSB's {@code ScrambledZipfianGenerator} (site.ycsb.generator, the default request distribution of
 * its core workloads): a zipfian draw over 10^10 items with skew 0.99 and the zeta constant YCSB
 * precomputes for them, hashed with 64-bit FNV-1a and taken modulo the record count, so the hot
 * records are spread over the key space instead of clustered at its start.
 *
 * <p>Thread safety: immutable; each thread passes its own random source.
 */
final class ScrambledZipfianKeyChooser implements KeyChooser {
  /** YCSB's {@code ScrambledZipfianGenerator.ITEM_COUNT}. */
  static final long ITEM_COUNT = 10_000_000_000L;
  /** YCSB's {@code ScrambledZipfianGenerator.ZETAN}: zeta(ITEM_COUNT, 0.99). */
  static final double ZETAN = 26.46902820178302;

  private static final ZipfianGenerator GENERATOR =
      new ZipfianGenerator(ITEM_COUNT, ZipfianGenerator.YCSB_CONSTANT, ZETAN);
  private final long records;

  ScrambledZipfianKeyChooser(long records) {
    this.records = records;
  }

  @Override
  public long next(SplittableRandom random) {
    return Math.floorMod(fnvHash64(GENERATOR.next(random)), records);
  }

  /** YCSB's {@code Utils.fnvhash64}: FNV-1a over the value's 8 bytes, low byte first, made non-negative. */
  static long fnvHash64(long value) {
    long hash = 0xCBF29CE484222325L;
    long v = value;
    for (int i = 0; i < 8; i++) {
      long octet = v & 0xff;
      v = v >> 8;
      hash = hash ^ octet;
      hash = hash * 1099511628211L;
    }
    return Math.abs(hash);
  }
}
