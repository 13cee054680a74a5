package org.kvstore.lsm.version;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.kvstore.CorruptionException;
import org.kvstore.codec.FixedLE;

/**
 * Decodes a whole manifest file into its edits (docs/format/manifest.md, "Recovery"): a record cut
 * short by the end of the file, or a bad last record that reaches exactly to the end, is a torn
 * tail from a crash during an append, never acknowledged, and is dropped; any other damage is a
 * {@link CorruptionException} naming the file and the record's offset.
 *
 * <p>Thread safety: stateless.
 */
public final class ManifestReader {
  private ManifestReader() {}

  public static List<VersionEdit> read(Path path, byte[] m) {
    if (m.length < ManifestFormat.HEADER_BYTES) {
      throw new CorruptionException(path, 0, "manifest shorter than its header");
    }
    if (FixedLE.getLong(m, 0) != ManifestFormat.MAGIC) {
      throw new CorruptionException(path, 0, "bad manifest magic");
    }
    if (FixedLE.getInt(m, 12) != ManifestFormat.crc(m, 0, 12)) {
      throw new CorruptionException(path, 12, "manifest header checksum mismatch");
    }
    int version = FixedLE.getInt(m, 8);
    if (version != ManifestFormat.VERSION && version != ManifestFormat.VERSION_1) {
      throw new CorruptionException(path, 8, "unknown manifest version " + version);
    }
    List<VersionEdit> edits = new ArrayList<>();
    int pos = ManifestFormat.HEADER_BYTES;
    while (pos < m.length) {
      if (m.length - pos < ManifestFormat.RECORD_HEADER_BYTES) {
        break; // torn record header
      }
      int len = FixedLE.getInt(m, pos);
      if (len < 0 || len > ManifestFormat.MAX_RECORD_BYTES) {
        if (pos + ManifestFormat.RECORD_HEADER_BYTES == m.length) {
          break;
        }
        throw new CorruptionException(path, pos, "bad manifest record length " + len);
      }
      long end = (long) pos + ManifestFormat.RECORD_HEADER_BYTES + len;
      if (end > m.length) {
        break; // torn payload
      }
      int crc = FixedLE.getInt(m, pos + 4);
      if (crc != ManifestFormat.crc(m, pos + ManifestFormat.RECORD_HEADER_BYTES, len)) {
        if (end == m.length) {
          break; // torn last record
        }
        throw new CorruptionException(path, pos, "manifest record checksum mismatch");
      }
      byte[] payload = java.util.Arrays.copyOfRange(m, pos + ManifestFormat.RECORD_HEADER_BYTES, (int) end);
      try {
        edits.add(ManifestFormat.decodePayload(payload));
      } catch (IllegalArgumentException e) {
        throw new CorruptionException(path, pos, "bad manifest record: " + e.getMessage());
      }
      pos = (int) end;
    }
    return edits;
  }
}
