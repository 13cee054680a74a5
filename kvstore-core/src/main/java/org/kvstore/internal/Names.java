package org.kvstore.internal;

import org.kvstore.InvalidArgumentException;

/**
 * Validates database and table names: 1 to 64 characters of {@code [A-Za-z0-9_.-]}, never {@code .}
 * or {@code ..}. Names never become paths (tables live in directories named by id), and this rule
 * keeps them safe to print, log and put in a URL.
 *
 * <p>Thread safety: stateless.
 */
public final class Names {
  public static final int MAX_LENGTH = 64;

  private Names() {}

  public static String checkDatabase(String name) {
    return check("database name", name);
  }

  public static String checkTable(String name) {
    return check("table name", name);
  }

  private static String check(String what, String name) {
    if (name == null) {
      throw new InvalidArgumentException(what, "must not be null");
    }
    if (name.isEmpty() || name.length() > MAX_LENGTH) {
      throw new InvalidArgumentException(
          what, "'" + printable(name) + "' must be 1 to " + MAX_LENGTH + " characters, was " + name.length());
    }
    if (name.equals(".") || name.equals("..")) {
      throw new InvalidArgumentException(what, "'" + name + "' is reserved");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == '.' || c == '-';
      if (!ok) {
        throw new InvalidArgumentException(
            what, "'" + printable(name) + "' has the character " + describe(c) + " at position " + i
                + "; allowed are letters, digits, '_', '.' and '-'");
      }
    }
    return name;
  }

  private static String describe(char c) {
    return c >= 0x20 && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
  }

  private static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(s.length(), 80); i++) {
      char c = s.charAt(i);
      sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return s.length() > 80 ? sb + "..." : sb.toString();
  }
}
