package org.kvstore.testkit.history;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A Redis string key as a nullable-string register, with the semantics of GET, SET, SET NX, SET
 * XX, DEL, INCR and APPEND (result types in {@link Command}). INCR parses the value as Redis does
 * (optional minus, no leading zeros, no sign on zero, fits a signed 64-bit integer); a value that
 * does not parse, or an overflow, makes INCR reply {@link Operation.ErrorReply#NOT_AN_INTEGER}
 * and leave the value.
 *
 * <p>Thread safety: stateless.
 */
public final class RegisterModel implements Model<RegisterModel.Register> {

  /** The value of a key, {@code null} when it does not exist. */
  public record Register(String value) {
    @Override
    public String toString() {
      return value == null ? "(nil)" : "\"" + value + "\"";
    }
  }

  private static final Register MISSING = new Register(null);

  @Override
  public Register initialState() {
    return MISSING;
  }

  @Override
  public Register step(Register state, Operation op) {
    boolean checked = op.status() == Operation.Status.OK;
    Object result = op.result();
    String value = state.value();
    switch (op.command()) {
      case GET:
        return !checked || Objects.equals(result, value) ? state : null;
      case SET:
        return !checked || Boolean.TRUE.equals(result) ? new Register(op.argument()) : null;
      case SET_NX:
        return conditionalSet(state, op, value == null, checked, result);
      case SET_XX:
        return conditionalSet(state, op, value != null, checked, result);
      case DEL: {
        long removed = value == null ? 0 : 1;
        return !checked || Long.valueOf(removed).equals(result) ? MISSING : null;
      }
      case INCR: {
        Long current = value == null ? Long.valueOf(0) : parseRedisInteger(value);
        if (current == null || current == Long.MAX_VALUE) {
          return !checked || result == Operation.ErrorReply.NOT_AN_INTEGER ? state : null;
        }
        long next = current + 1;
        return !checked || Long.valueOf(next).equals(result) ? new Register(Long.toString(next)) : null;
      }
      case APPEND: {
        String next = (value == null ? "" : value) + op.argument();
        long length = next.getBytes(StandardCharsets.UTF_8).length;
        return !checked || Long.valueOf(length).equals(result) ? new Register(next) : null;
      }
      default:
        throw new IllegalArgumentException("no model for " + op.command());
    }
  }

  private static Register conditionalSet(Register state, Operation op, boolean applies, boolean checked,
      Object result) {
    if (checked && !Boolean.valueOf(applies).equals(result)) {
      return null;
    }
    return applies ? new Register(op.argument()) : state;
  }

  /** The integer Redis reads from {@code s} (its {@code string2ll}), or {@code null}. */
  static Long parseRedisInteger(String s) {
    int n = s.length();
    if (n == 0 || n > 20) {
      return null;
    }
    int i = s.charAt(0) == '-' ? 1 : 0;
    if (i == n || s.charAt(i) == '0' && (n - i > 1 || i == 1)) {
      return null; // "-", leading zeros, "-0"
    }
    for (int j = i; j < n; j++) {
      char c = s.charAt(j);
      if (c < '0' || c > '9') {
        return null;
      }
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return null; // out of range
    }
  }
}
