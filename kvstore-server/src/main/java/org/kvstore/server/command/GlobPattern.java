package org.kvstore.server.command;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Redis glob pattern over binary keys (KEYS, SCAN MATCH, CONFIG GET): {@code *} any run of bytes,
 * {@code ?} one byte, {@code [abc]}, {@code [^a]}, {@code [a-z]} classes, and {@code \x} for a
 * literal {@code x}. Matching is the greedy algorithm with one back-tracking point per star, so it is
 * O(pattern x key) in the worst case and never recurses (Redis had to add a nesting limit to its
 * recursive matcher).
 *
 * <p>Thread safety: immutable.
 */
public final class GlobPattern {
  private static final int LITERAL = 0;
  private static final int ANY = 1;
  private static final int STAR = 2;
  private static final int CLASS = 3;

  private final int[] kinds;
  private final int[] literals;
  private final boolean[][] classes;
  private final byte[] literalPrefix;

  private GlobPattern(int[] kinds, int[] literals, boolean[][] classes, byte[] literalPrefix) {
    this.kinds = kinds;
    this.literals = literals;
    this.classes = classes;
    this.literalPrefix = literalPrefix;
  }

  public static GlobPattern compile(byte[] p) {
    List<Integer> kinds = new ArrayList<>();
    List<Integer> literals = new ArrayList<>();
    List<boolean[]> classes = new ArrayList<>();
    int i = 0;
    while (i < p.length) {
      int c = p[i] & 0xff;
      if (c == '*') {
        if (kinds.isEmpty() || kinds.get(kinds.size() - 1) != STAR) {
          add(kinds, literals, classes, STAR, 0, null);
        }
        i++;
      } else if (c == '?') {
        add(kinds, literals, classes, ANY, 0, null);
        i++;
      } else if (c == '\\' && i + 1 < p.length) {
        add(kinds, literals, classes, LITERAL, p[i + 1] & 0xff, null);
        i += 2;
      } else if (c == '[') {
        boolean[] set = new boolean[256];
        i++;
        boolean negate = i < p.length && p[i] == '^';
        if (negate) {
          i++;
        }
        while (i < p.length && p[i] != ']') {
          if (p[i] == '\\' && i + 1 < p.length) {
            set[p[i + 1] & 0xff] = true;
            i += 2;
          } else if (i + 2 < p.length && p[i + 1] == '-' && p[i + 2] != ']') {
            int a = p[i] & 0xff;
            int b = p[i + 2] & 0xff;
            for (int x = Math.min(a, b); x <= Math.max(a, b); x++) {
              set[x] = true;
            }
            i += 3;
          } else {
            set[p[i] & 0xff] = true;
            i++;
          }
        }
        i++; // the ']' (or the end of an unterminated class, as Redis allows)
        if (negate) {
          for (int x = 0; x < 256; x++) {
            set[x] = !set[x];
          }
        }
        add(kinds, literals, classes, CLASS, 0, set);
      } else {
        add(kinds, literals, classes, LITERAL, c, null);
        i++;
      }
    }
    int prefix = 0;
    while (prefix < kinds.size() && kinds.get(prefix) == LITERAL) {
      prefix++;
    }
    byte[] literalPrefix = new byte[prefix];
    for (int k = 0; k < prefix; k++) {
      literalPrefix[k] = (byte) (int) literals.get(k);
    }
    return new GlobPattern(
        kinds.stream().mapToInt(Integer::intValue).toArray(),
        literals.stream().mapToInt(Integer::intValue).toArray(),
        classes.toArray(new boolean[0][]),
        literalPrefix);
  }

  private static void add(
      List<Integer> kinds, List<Integer> literals, List<boolean[]> classes, int kind, int lit, boolean[] set) {
    kinds.add(kind);
    literals.add(lit);
    classes.add(set);
  }

  /** Whether the pattern is {@code *} (matches everything). */
  public boolean matchesAll() {
    return kinds.length == 1 && kinds[0] == STAR;
  }

  /** The bytes every match starts with (the pattern's leading literals). */
  public byte[] literalPrefix() {
    return literalPrefix.clone();
  }

  public boolean matches(byte[] s) {
    int pi = 0;
    int si = 0;
    int starP = -1;
    int starS = -1;
    while (si < s.length) {
      if (pi < kinds.length && kinds[pi] != STAR && matchOne(pi, s[si] & 0xff)) {
        pi++;
        si++;
      } else if (pi < kinds.length && kinds[pi] == STAR) {
        starP = pi++;
        starS = si;
      } else if (starP >= 0) {
        pi = starP + 1;
        si = ++starS;
      } else {
        return false;
      }
    }
    while (pi < kinds.length && kinds[pi] == STAR) {
      pi++;
    }
    return pi == kinds.length;
  }

  private boolean matchOne(int pi, int c) {
    switch (kinds[pi]) {
      case LITERAL:
        return literals[pi] == c;
      case ANY:
        return true;
      case CLASS:
        return classes[pi][c];
      default:
        return false;
    }
  }

  /** The smallest key greater than every key starting with {@code prefix}, or null if none. */
  public static byte[] prefixEnd(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if ((prefix[i] & 0xff) != 0xff) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return end;
      }
    }
    return null;
  }
}
