package org.kvstore.server.thrift;

/**
 * The size bounds of the Thrift front end, all derived from one setting, {@code thrift-max-frame-size}
 * (CLIENTS.md 7.2): requests and replies must fit a frame of that size, which by default is
 * libthrift's own client limit (16,384,000 bytes), so every reply reaches a default client.
 *
 * @param maxMessageBytes largest request (frame payload or unframed message)
 * @param maxValueBytes largest value a write accepts: half a message, so its reply and a read of it
 *     fit in one with room to spare; never more than the store's own limit
 * @param pageBytes bytes of keys and values a scan page or multiGet reply holds (past its first
 *     entry): a quarter of a message
 *
 * <p>Thread safety: immutable.
 */
public record ThriftLimits(int maxMessageBytes, int maxValueBytes, long pageBytes) {

  /** The limits for frames of {@code maxFrameBytes} and a store taking values up to {@code storeMaxValueBytes}. */
  public static ThriftLimits of(int maxFrameBytes, int storeMaxValueBytes) {
    return new ThriftLimits(maxFrameBytes, Math.min(storeMaxValueBytes, maxFrameBytes / 2), maxFrameBytes / 4);
  }
}
