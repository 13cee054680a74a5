package org.kvstore.server.command;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.kvstore.Cursor;
import org.kvstore.Table;

/**
 * Stateless paged scans, the same for every protocol that pages by key (Thrift, HTTP): a page
 * holds at most {@code limit} entries and, past its first entry, at most {@code maxBytes} of keys
 * and values, so one page always fits in a reply. The next page is asked for with the key this
 * page returns as {@link Page#nextKey}: as the new inclusive start of a forward scan, as the new
 * exclusive end of a reverse one.
 *
 * <p>Reverse pages are served from a forward cursor (the store's cursors go forward only): the
 * page keeps the last entries of the range, so it reads the range from its start. Bound a reverse
 * scan's range to keep it cheap.
 *
 * <p>Thread safety: stateless; thread-safe.
 */
public final class ScanPages {
  /** One entry of a page; {@code value} is null for a keys-only scan. The arrays belong to the caller. */
  public record Item(byte[] key, byte[] value, long version) {}

  /**
   * A page of a scan.
   *
   * @param items the entries, ascending (forward) or descending (reverse)
   * @param nextKey where the next page starts (forward: inclusive start; reverse: exclusive end),
   *     or null when {@code more} is false
   * @param more whether the range holds entries after this page
   */
  public record Page(List<Item> items, byte[] nextKey, boolean more) {}

  private ScanPages() {}

  /**
   * Reads one page of {@code [start, end)} narrowed to the keys starting with {@code prefix} (each
   * may be null: open end, no prefix). REQUIRES: limit >= 1, maxBytes >= 1.
   */
  public static Page read(Table table, byte[] start, byte[] end, byte[] prefix, int limit, boolean reverse,
      boolean keysOnly, long maxBytes) {
    if (prefix != null && prefix.length > 0) {
      if (start == null || Arrays.compareUnsigned(start, prefix) < 0) {
        start = prefix;
      }
      byte[] prefixEnd = prefixEnd(prefix);
      if (prefixEnd != null && (end == null || Arrays.compareUnsigned(prefixEnd, end) < 0)) {
        end = prefixEnd;
      }
    }
    if (start != null && end != null && Arrays.compareUnsigned(start, end) >= 0) {
      return new Page(List.of(), null, false);
    }
    return reverse
        ? reverse(table, start, end, limit, keysOnly, maxBytes)
        : forward(table, start, end, limit, keysOnly, maxBytes);
  }

  private static Page forward(Table table, byte[] start, byte[] end, int limit, boolean keysOnly, long maxBytes) {
    List<Item> items = new ArrayList<>();
    long bytes = 0;
    try (Cursor c = table.scan(start, end, 0)) {
      while (c.next()) {
        byte[] key = c.key();
        byte[] value = keysOnly ? null : c.value();
        long size = key.length + (value == null ? 0 : value.length);
        if (items.size() == limit || (!items.isEmpty() && bytes + size > maxBytes)) {
          return new Page(items, key, true);
        }
        items.add(new Item(key, value, c.version()));
        bytes += size;
      }
    }
    return new Page(items, null, false);
  }

  private static Page reverse(Table table, byte[] start, byte[] end, int limit, boolean keysOnly, long maxBytes) {
    ArrayDeque<Item> last = new ArrayDeque<>();
    long bytes = 0;
    boolean dropped = false;
    try (Cursor c = table.scan(start, end, 0)) {
      while (c.next()) {
        Item item = new Item(c.key(), keysOnly ? null : c.value(), c.version());
        last.addLast(item);
        bytes += size(item);
        while (last.size() > limit || (last.size() > 1 && bytes > maxBytes)) {
          bytes -= size(last.removeFirst());
          dropped = true;
        }
      }
    }
    List<Item> items = new ArrayList<>(last.size());
    last.descendingIterator().forEachRemaining(items::add);
    return dropped ? new Page(items, items.get(items.size() - 1).key(), true) : new Page(items, null, false);
  }

  private static long size(Item item) {
    return item.key().length + (item.value() == null ? 0 : item.value().length);
  }

  /** The smallest key greater than every key starting with {@code prefix}, or null (all 0xFF). */
  static byte[] prefixEnd(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if ((prefix[i] & 0xFF) != 0xFF) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return end;
      }
    }
    return null;
  }
}
