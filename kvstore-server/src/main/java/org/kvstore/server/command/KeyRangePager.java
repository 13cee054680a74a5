package org.kvstore.server.command;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.kvstore.Cursor;
import org.kvstore.Table;

/**
 * Pages through a key range in unsigned byte order, forward or reverse, for front ends that list
 * keys by page (HTTP {@code GET .../keys}, Thrift scans). A page holds at most {@code limit} entries
 * and, past its first entry, at most {@code maxBytes} of keys and values; {@link Page#resumeKey()}
 * tells where the next page starts, so a listing never repeats a key when no writes run between
 * pages.
 *
 * <p>Tables have forward cursors only, so a reverse page scans the whole range below its end and
 * keeps the last entries: its cost grows with the range, not with the page.
 *
 * <p>Thread safety: stateless.
 */
public final class KeyRangePager {
  /** One entry of a page; {@code value} is null when values were not asked for. */
  public record Item(byte[] key, byte[] value, int valueSize, long version, long expiresAt) {}

  /**
   * One page.
   *
   * @param items the entries, in the direction of the listing
   * @param resumeKey null when the range is exhausted; else forward: the next page starts after
   *     this key, reverse: the next page ends before it
   */
  public record Page(List<Item> items, byte[] resumeKey) {}

  private KeyRangePager() {}

  /** The first key after every key starting with {@code prefix}, or null (no bound) when none. */
  public static byte[] prefixEnd(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return end;
      }
    }
    return null;
  }

  /** The smallest key greater than {@code key}. */
  public static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** The larger of two lower bounds (null: none). */
  public static byte[] maxStart(byte[] a, byte[] b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
  }

  /** The smaller of two exclusive upper bounds (null: none). */
  public static byte[] minEnd(byte[] a, byte[] b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return Arrays.compareUnsigned(a, b) <= 0 ? a : b;
  }

  /** The first page of {@code [start, end)} (null bounds are open), ascending. */
  public static Page forward(Table table, byte[] start, byte[] end, int limit, long maxBytes, boolean values) {
    if (empty(start, end)) {
      return new Page(List.of(), null);
    }
    List<Item> items = new ArrayList<>();
    long bytes = 0;
    try (Cursor c = table.scan(start, end, limit + 1)) {
      while (c.next()) {
        byte[] key = c.key();
        byte[] value = c.value();
        long size = key.length + (values ? value.length : 0);
        if (items.size() == limit || (!items.isEmpty() && bytes + size > maxBytes)) {
          return new Page(items, items.get(items.size() - 1).key());
        }
        items.add(new Item(key, values ? value : null, value.length, c.version(), c.expiresAt()));
        bytes += size;
      }
    }
    return new Page(items, null);
  }

  /** The last page of {@code [start, end)}, descending. */
  public static Page reverse(Table table, byte[] start, byte[] end, int limit, long maxBytes, boolean values) {
    if (empty(start, end)) {
      return new Page(List.of(), null);
    }
    ArrayDeque<Item> kept = new ArrayDeque<>();
    long bytes = 0;
    boolean dropped = false;
    try (Cursor c = table.scan(start, end, 0)) {
      while (c.next()) {
        byte[] key = c.key();
        byte[] value = c.value();
        Item item = new Item(key, values ? value : null, value.length, c.version(), c.expiresAt());
        kept.addLast(item);
        bytes += size(item);
        while (kept.size() > limit || (kept.size() > 1 && bytes > maxBytes)) {
          bytes -= size(kept.removeFirst());
          dropped = true;
        }
      }
    }
    List<Item> items = new ArrayList<>(kept.size());
    kept.descendingIterator().forEachRemaining(items::add);
    return new Page(items, dropped ? items.get(items.size() - 1).key() : null);
  }

  private static long size(Item item) {
    return item.key().length + (item.value() == null ? 0 : item.value().length);
  }

  private static boolean empty(byte[] start, byte[] end) {
    return start != null && end != null && Arrays.compareUnsigned(start, end) >= 0;
  }
}
