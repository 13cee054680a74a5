package org.kvstore.testkit;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.kvstore.codec.Crc32c;

/**
 * Self-validating values for crash tests: {@code key|version|} then filler derived from (key,
 * version), then a CRC32C of all before it. A torn, foreign or stale-mixed value fails
 * {@link #versionOf}.
 *
 * <p>Thread safety: stateless.
 */
public final class CrashValues {
  private CrashValues() {}

  public static byte[] encode(String key, int version, int fillerBytes) {
    byte[] head = (key + "|" + version + "|").getBytes(StandardCharsets.UTF_8);
    byte[] filler = new byte[fillerBytes];
    new Random(key.hashCode() * 31L + version).nextBytes(filler);
    ByteBuffer b = ByteBuffer.allocate(head.length + fillerBytes + 4);
    b.put(head).put(filler);
    b.putInt(Crc32c.of(b.array(), 0, b.position()));
    return b.array();
  }

  /** 2100-01-01T00:00:00Z: expiries the crash tests write lie after it, so none passes in a test. */
  private static final long FAR_FUTURE = 4_102_444_800_000L;

  /**
   * The expiry the crash tests write with {@code version} of {@code key}: none for even versions, a
   * time derived from key and version (far in the future) for odd ones, so a recovered entry's
   * expiry can be checked against its value's version.
   */
  public static long expiryOf(String key, int version) {
    return version % 2 == 0 ? 0 : FAR_FUTURE + version * 1_000L + (key.hashCode() & 0xffff);
  }

  /** The put options that write {@code version} of {@code key} with {@link #expiryOf}. */
  public static org.kvstore.PutOptions optionsOf(String key, int version) {
    long at = expiryOf(key, version);
    return at == 0 ? org.kvstore.PutOptions.defaults() : org.kvstore.PutOptions.defaults().expireAt(at);
  }

  /** The version a value of {@code key} carries; throws if the value is not an intact value of that key. */
  public static int versionOf(String key, byte[] value) {
    if (value.length < 4) {
      throw new AssertionError("value of " + key + " is only " + value.length + " bytes");
    }
    int stored = ByteBuffer.wrap(value, value.length - 4, 4).getInt();
    if (Crc32c.of(value, 0, value.length - 4) != stored) {
      throw new AssertionError("value of " + key + " fails its checksum (torn or foreign value)");
    }
    String text = new String(value, 0, Math.min(value.length, key.length() + 24), StandardCharsets.UTF_8);
    String prefix = key + "|";
    if (!text.startsWith(prefix)) {
      throw new AssertionError("value of " + key + " belongs to another key: " + text);
    }
    int end = text.indexOf('|', prefix.length());
    int version = Integer.parseInt(text.substring(prefix.length(), end));
    byte[] expected = encode(key, version, value.length - 4 - (end + 1));
    if (!java.util.Arrays.equals(expected, value)) {
      throw new AssertionError("value of " + key + " version " + version + " has wrong content");
    }
    return version;
  }
}
