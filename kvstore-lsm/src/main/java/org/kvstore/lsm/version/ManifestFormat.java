package org.kvstore.lsm.version;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.kvstore.codec.Crc32c;
import org.kvstore.codec.FixedLE;
import org.kvstore.codec.Varints;
import org.kvstore.lsm.sstable.FileStats;

/**
 * Encoding of the manifest and the CURRENT pointer; the format (layout, field tags, recovery
 * rules, example) is docs/format/manifest.md. A change updates that doc, a golden file {@code
 * golden/manifest-vN.bin} and {@link #VERSION} together.
 *
 * <p>Thread safety: stateless.
 */
public final class ManifestFormat {
  /** "KVSMANI1" as a little-endian u64. */
  public static final long MAGIC = 0x31494E414D53564BL;
  /**
   * Version ratchet: 2 = added files carry their {@link org.kvstore.lsm.sstable.FileStats} (field
   * tag 6). Readers read {@link #VERSION_1} too and reject other values.
   */
  public static final int VERSION = 2;
  /** The first layout: added files without stats (tag 5 only). */
  public static final int VERSION_1 = 1;
  /** The file header: magic u64, version u32, header CRC u32. */
  public static final int HEADER_BYTES = 16;
  /** Before each record's payload: length u32, payload CRC u32. */
  public static final int RECORD_HEADER_BYTES = 8;
  /** The largest payload a reader accepts; longer lengths are corruption. */
  public static final int MAX_RECORD_BYTES = 64 << 20;
  public static final String CURRENT = "CURRENT";
  public static final String CURRENT_TEMP = "CURRENT.tmp";
  public static final String MANIFEST_PREFIX = "MANIFEST-";
  /** CURRENT's text up to the manifest name; {@code 1} is the CURRENT format version. */
  static final String CURRENT_TAG = "KVSCURRENT 1 ";

  /** Field tags of a record payload. DO NOT RENUMBER. */
  static final int TAG_PERSISTED_LSN = 1;
  static final int TAG_LAST_SEQ = 2;
  static final int TAG_NEXT_FILE = 3;
  static final int TAG_DELETED_FILE = 4;
  static final int TAG_ADDED_FILE = 5;
  static final int TAG_ADDED_FILE_WITH_STATS = 6;

  private ManifestFormat() {}

  public static String manifestName(long fileNum) {
    return String.format("%s%06d", MANIFEST_PREFIX, fileNum);
  }

  public static byte[] header() {
    byte[] h = new byte[HEADER_BYTES];
    FixedLE.putLong(h, 0, MAGIC);
    FixedLE.putInt(h, 8, VERSION);
    FixedLE.putInt(h, 12, crc(h, 0, 12));
    return h;
  }

  /** The CRC32C (not masked) that the header, records and CURRENT carry. */
  static int crc(byte[] b, int off, int len) {
    return Crc32c.of(b, off, len);
  }

  /** The framed record (length, CRC, payload) of {@code edit}. */
  public static byte[] encodeRecord(VersionEdit edit) {
    byte[] payload = encodePayload(edit);
    byte[] out = new byte[RECORD_HEADER_BYTES + payload.length];
    FixedLE.putInt(out, 0, payload.length);
    FixedLE.putInt(out, 4, crc(payload, 0, payload.length));
    System.arraycopy(payload, 0, out, RECORD_HEADER_BYTES, payload.length);
    return out;
  }

  static byte[] encodePayload(VersionEdit e) {
    Out o = new Out();
    if (e.persistedLsn >= 0) {
      o.v(TAG_PERSISTED_LSN).v(e.persistedLsn);
    }
    if (e.lastSeqNum >= 0) {
      o.v(TAG_LAST_SEQ).v(e.lastSeqNum);
    }
    if (e.nextFileNum >= 0) {
      o.v(TAG_NEXT_FILE).v(e.nextFileNum);
    }
    for (VersionEdit.Deletion d : e.deleted) {
      o.v(TAG_DELETED_FILE).v(d.level()).v(d.fileNum());
    }
    for (VersionEdit.LevelFile lf : e.added) {
      FileMetadata f = lf.file();
      FileStats s = f.stats();
      o.v(TAG_ADDED_FILE_WITH_STATS).v(lf.level()).v(f.fileNum()).v(f.fileSize()).v(f.entries())
          .v(f.smallestSeq()).v(f.largestSeq()).bytes(f.smallest()).bytes(f.largest())
          .v(s.tombstones()).v(s.expiring()).v(s.minExpiresAt()).v(s.maxExpiresAt());
    }
    return o.toByteArray();
  }

  /**
   * Decodes a record payload.
   *
   * @throws IllegalArgumentException describing the first bad field (the caller adds file and
   *     offset)
   */
  public static VersionEdit decodePayload(byte[] p) {
    VersionEdit e = new VersionEdit();
    int[] pos = {0};
    int n = p.length;
    while (pos[0] < n) {
      int tag = Varints.getInt(p, pos, n);
      switch (tag) {
        case TAG_PERSISTED_LSN -> e.persistedLsn = Varints.get(p, pos, n);
        case TAG_LAST_SEQ -> e.lastSeqNum = Varints.get(p, pos, n);
        case TAG_NEXT_FILE -> e.nextFileNum = Varints.get(p, pos, n);
        case TAG_DELETED_FILE -> e.deleteFile(Varints.getInt(p, pos, n), Varints.get(p, pos, n));
        case TAG_ADDED_FILE, TAG_ADDED_FILE_WITH_STATS -> {
          int level = Varints.getInt(p, pos, n);
          long num = Varints.get(p, pos, n);
          long size = Varints.get(p, pos, n);
          long entries = Varints.get(p, pos, n);
          long sseq = Varints.get(p, pos, n);
          long lseq = Varints.get(p, pos, n);
          byte[] smallest = bytes(p, pos, n);
          byte[] largest = bytes(p, pos, n);
          FileStats stats = FileStats.none();
          if (tag == TAG_ADDED_FILE_WITH_STATS) {
            stats = new FileStats(
                Varints.get(p, pos, n), Varints.get(p, pos, n), Varints.get(p, pos, n), Varints.get(p, pos, n));
          }
          e.addFile(level, new FileMetadata(num, size, entries, smallest, largest, sseq, lseq, stats));
        }
        default -> throw new IllegalArgumentException("unknown manifest field tag " + tag + " at " + (pos[0] - 1));
      }
    }
    return e;
  }

  private static byte[] bytes(byte[] p, int[] pos, int n) {
    int len = Varints.getInt(p, pos, n);
    if (pos[0] + len > n) {
      throw new IllegalArgumentException("key of " + len + " bytes runs past the record");
    }
    byte[] b = java.util.Arrays.copyOfRange(p, pos[0], pos[0] + len);
    pos[0] += len;
    return b;
  }

  /** The contents of CURRENT naming {@code manifestName}. */
  public static byte[] encodeCurrent(String manifestName) {
    String body = CURRENT_TAG + manifestName;
    byte[] b = body.getBytes(StandardCharsets.US_ASCII);
    return (body + String.format(" %08x\n", crc(b, 0, b.length))).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The manifest name in CURRENT's contents.
   *
   * @throws IllegalArgumentException when the text is not a valid CURRENT
   */
  public static String decodeCurrent(byte[] contents) {
    String s = new String(contents, StandardCharsets.US_ASCII);
    if (!s.startsWith(CURRENT_TAG) || !s.endsWith("\n") || s.length() < CURRENT_TAG.length() + 11) {
      throw new IllegalArgumentException("CURRENT is not 'KVSCURRENT 1 <manifest> <crc>\\n'");
    }
    String body = s.substring(0, s.length() - 10);
    String crcHex = s.substring(s.length() - 9, s.length() - 1);
    byte[] b = body.getBytes(StandardCharsets.US_ASCII);
    int expected;
    try {
      expected = (int) Long.parseLong(crcHex, 16);
    } catch (NumberFormatException ex) {
      throw new IllegalArgumentException("CURRENT checksum '" + crcHex + "' is not hex");
    }
    if (expected != crc(b, 0, b.length) || s.charAt(s.length() - 10) != ' ') {
      throw new IllegalArgumentException("CURRENT checksum mismatch");
    }
    String name = body.substring(CURRENT_TAG.length());
    if (!name.startsWith(MANIFEST_PREFIX)) {
      throw new IllegalArgumentException("CURRENT names '" + name + "', not a manifest");
    }
    return name;
  }

  /** A growable byte sink of varints. Thread safety: confined. */
  private static final class Out extends ByteArrayOutputStream {
    private final byte[] tmp = new byte[10];

    Out v(long x) {
      int n = Varints.put(tmp, 0, x);
      write(tmp, 0, n);
      return this;
    }

    Out bytes(byte[] b) {
      v(b.length);
      write(b, 0, b.length);
      return this;
    }
  }
}
