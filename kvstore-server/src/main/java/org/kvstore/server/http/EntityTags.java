package org.kvstore.server.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Entity tags as KVStore uses them: a key's version, strong and quoted ({@code "42"}), and the
 * {@code If-Match} / {@code If-None-Match} lists of RFC 9110 §13.1.
 *
 * <p>Thread safety: immutable.
 *
 * @param any the header was {@code *}
 * @param versions the versions the list names; tags that are not versions of ours match nothing
 */
record EntityTags(boolean any, List<Long> versions) {

  static String of(long version) {
    return "\"" + version + "\"";
  }

  /**
   * The tags of a header value, or null when the header is absent. {@code strong}: If-Match's
   * strong comparison, where a weak tag matches nothing; else If-None-Match's weak comparison.
   */
  static EntityTags parse(String header, boolean strong) {
    if (header == null) {
      return null;
    }
    String h = header.trim();
    if (h.equals("*")) {
      return new EntityTags(true, List.of());
    }
    List<Long> versions = new ArrayList<>();
    for (String part : h.split(",")) {
      String t = part.trim();
      if (t.startsWith("W/")) {
        if (strong) {
          continue;
        }
        t = t.substring(2);
      }
      if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
        t = t.substring(1, t.length() - 1);
      }
      try {
        versions.add(Long.parseLong(t));
      } catch (NumberFormatException e) {
        // not one of our tags: it matches no entry
      }
    }
    return new EntityTags(false, List.copyOf(versions));
  }

  /** Whether these tags match an entry at {@code version} (null entry: absent). */
  boolean matches(Long version) {
    if (version == null) {
      return false;
    }
    return any || versions.contains(version);
  }
}
