package org.kvstore.catalog;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.kvstore.CorruptionException;
import org.kvstore.codec.Crc32c;

/**
 * Encoding of the catalog file; the format (header line, checksum, JSON document, example) is
 * docs/format/catalog.md.
 *
 * <p>Thread safety: stateless, thread-safe.
 */
public final class CatalogFormat {
  /** Current format version. Versions are ordered; readers reject versions they do not know. */
  public static final int VERSION = 1;

  /** The first word of the header line. */
  static final String MAGIC = "KVSTORE-CATALOG";
  /** A header line longer than this is corruption (a real one is under 60 bytes). */
  private static final int MAX_HEADER_BYTES = 128;

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private CatalogFormat() {}

  /** The file bytes for {@code state}. */
  public static byte[] encode(CatalogState state) {
    List<DatabaseJson> dbs = new ArrayList<>();
    state.databases().forEach((name, tables) -> dbs.add(new DatabaseJson(name, new ArrayList<>(tables.values()))));
    byte[] body;
    try {
      body = MAPPER.writeValueAsBytes(new CatalogJson(state.nextTableId(), dbs));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("catalog cannot be serialized", e);
    }
    String header =
        MAGIC + " v" + VERSION + " length=" + body.length + " crc32c="
            + String.format("%08x", Crc32c.of(body, 0, body.length)) + "\n";
    byte[] h = header.getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[h.length + body.length];
    System.arraycopy(h, 0, out, 0, h.length);
    System.arraycopy(body, 0, out, h.length, body.length);
    return out;
  }

  /**
   * Decodes the bytes of the catalog file at {@code path}.
   *
   * @throws CorruptionException naming the file and offset when the header, checksum or document is bad
   */
  public static CatalogState decode(Path path, byte[] file) {
    int nl = -1;
    for (int i = 0; i < Math.min(file.length, MAX_HEADER_BYTES); i++) {
      if (file[i] == '\n') {
        nl = i;
        break;
      }
    }
    if (nl < 0) {
      throw new CorruptionException(path, 0, "no catalog header line");
    }
    String header = new String(file, 0, nl, StandardCharsets.US_ASCII);
    String[] parts = header.split(" ");
    if (parts.length != 4 || !parts[0].equals(MAGIC)) {
      throw new CorruptionException(path, 0, "bad catalog header '" + header + "'");
    }
    int version;
    long length;
    long expectedCrc;
    try {
      version = Integer.parseInt(field(parts[1], "v"));
      length = Long.parseLong(field(parts[2], "length="));
      expectedCrc = Long.parseLong(field(parts[3], "crc32c="), 16);
    } catch (NumberFormatException e) {
      throw new CorruptionException(path, 0, "bad catalog header '" + header + "'");
    }
    if (version < 1 || version > VERSION) {
      throw new CorruptionException(
          path, 0, "catalog format version " + version + " is not supported (this build reads 1 to "
              + VERSION + ")");
    }
    int bodyStart = nl + 1;
    if (length != file.length - bodyStart) {
      throw new CorruptionException(
          path, bodyStart, "catalog body is " + (file.length - bodyStart) + " bytes, header says " + length);
    }
    long actualCrc = Integer.toUnsignedLong(Crc32c.of(file, bodyStart, (int) length));
    if (actualCrc != expectedCrc) {
      throw new CorruptionException(
          path, bodyStart,
          String.format("catalog checksum mismatch (expected %08x, got %08x)", expectedCrc, actualCrc));
    }
    CatalogJson json;
    try {
      json = MAPPER.readValue(file, bodyStart, (int) length, CatalogJson.class);
    } catch (IOException e) {
      throw new CorruptionException(path, bodyStart, "catalog document is not valid: " + e.getMessage());
    }
    Map<String, SortedMap<String, TableDescriptor>> dbs = new LinkedHashMap<>();
    for (DatabaseJson db : json.databases()) {
      SortedMap<String, TableDescriptor> tables = new TreeMap<>();
      for (TableDescriptor t : db.tables()) {
        if (!t.database().equals(db.name()) || t.id() >= json.nextTableId()) {
          throw new CorruptionException(path, bodyStart, "catalog entry for table " + t + " is inconsistent");
        }
        tables.put(t.name(), t);
      }
      dbs.put(db.name(), tables);
    }
    return new CatalogState(json.nextTableId(), dbs);
  }

  private static String field(String part, String prefix) {
    if (!part.startsWith(prefix)) {
      throw new NumberFormatException(part);
    }
    return part.substring(prefix.length());
  }

  record CatalogJson(
      @JsonProperty("nextTableId") long nextTableId,
      @JsonProperty("databases") List<DatabaseJson> databases) {}

  record DatabaseJson(
      @JsonProperty("name") String name, @JsonProperty("tables") List<TableDescriptor> tables) {}
}
