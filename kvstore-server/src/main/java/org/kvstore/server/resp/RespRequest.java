package org.kvstore.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One decoded command: its arguments as raw bytes, the command name first. Produced by
 * {@link RespDecoder} from a multibulk frame ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) or an inline
 * line ({@code GET k\r\n}).
 *
 * @param args the arguments, at least one; the arrays are owned by the request
 * @param name the command name in lower case (command names are ASCII and case-insensitive)
 *
 * <p>Thread safety: immutable once built (the arrays are handed over, not copied).
 */
public record RespRequest(List<byte[]> args, String name) {

  /** A request of {@code args}; its lower-case name is computed once, here. */
  public RespRequest(List<byte[]> args) {
    this(args, lowerName(args));
  }

  public RespRequest {
    if (args.isEmpty()) {
      throw new IllegalArgumentException("a request has at least one argument");
    }
  }

  private static String lowerName(List<byte[]> args) {
    if (args.isEmpty()) {
      throw new IllegalArgumentException("a request has at least one argument");
    }
    return CommandNames.lowerCase(args.get(0));
  }

  public static RespRequest of(String... args) {
    return new RespRequest(
        java.util.Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
  }

  public int size() {
    return args.size();
  }

  public byte[] arg(int i) {
    return args.get(i);
  }

}
