package org.kvstore.server.command;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.kvstore.Table;

/**
 * Cursors of {@code SCAN}: Redis clients need an unsigned 64-bit number, but an ordered table
 * resumes at a key. A cursor is a random positive number naming "resume at this key of this table";
 * the most recent {@value #MAX_CURSORS} cursors are kept, server-wide (so an iteration may move
 * between pooled connections). An evicted or unknown cursor gets {@code ERR invalid cursor}.
 *
 * <p>Thread safety: thread-safe (one monitor; each operation is a map access).
 */
final class ScanCursors {
  static final int MAX_CURSORS = 100_000;

  record Position(Table table, byte[] resumeKey) {}

  @GuardedBy("this")
  private final Map<Long, Position> cursors =
      new LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Position> eldest) {
          return size() > MAX_CURSORS;
        }
      };

  synchronized long register(Table table, byte[] resumeKey) {
    long id;
    do {
      id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    } while (cursors.containsKey(id));
    cursors.put(id, new Position(table, resumeKey));
    return id;
  }

  /** The position of cursor {@code id}, or null when unknown. */
  synchronized Position get(long id) {
    return cursors.get(id);
  }
}
