package org.kvstore.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.kvstore.PutOptions;

/**
 * One decoded command: its arguments as raw bytes, the command name first. Produced by
 * {@link RespDecoder} from a multibulk frame ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) or an inline
 * line ({@code GET k\r\n}); its command is looked up once, when {@link RespCommandHandler} receives
 * it ({@link RespCommandTable#resolve}), and every later step reads {@link #spec()}.
 *
 * <p>The argument arrays are owned by the request (handed over by the decoder, never copied) and
 * go into the store as they are.
 *
 * <p>Thread safety: the arguments are immutable once built; the resolved spec (and a coalesced
 * SET's put options) are set on the event loop before the request is handed to any other thread.
 */
public final class RespRequest {
  private final List<byte[]> args;
  private final String name;
  private RespCommandSpec spec;
  private boolean resolved;
  private PutOptions putOptions = PutOptions.defaults();

  /** A request of {@code args} (at least one); its lower-case name is computed once, here. */
  public RespRequest(List<byte[]> args) {
    if (args.isEmpty()) {
      throw new IllegalArgumentException("a request has at least one argument");
    }
    this.args = args;
    this.name = CommandNames.lowerCase(args.get(0));
  }

  public static RespRequest of(String... args) {
    return new RespRequest(
        Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList());
  }

  /** The arguments, the command name first. */
  public List<byte[]> args() {
    return args;
  }

  /** The command name in lower case (command names are ASCII and case-insensitive). */
  public String name() {
    return name;
  }

  public int size() {
    return args.size();
  }

  public byte[] arg(int i) {
    return args.get(i);
  }

  /** Whether {@link #spec()} was set. */
  boolean resolved() {
    return resolved;
  }

  /** The command, or null when no command has this name. REQUIRES: {@link #resolved()}. */
  RespCommandSpec spec() {
    assert resolved : "request not resolved";
    return spec;
  }

  void resolve(RespCommandSpec s) {
    spec = s;
    resolved = true;
  }

  /**
   * The store options of a SET the executor hands to the write coalescer (its absolute expiry, from
   * its arguments parsed once, when it was coalesced); the defaults for any other request.
   */
  PutOptions putOptions() {
    return putOptions;
  }

  void putOptions(PutOptions options) {
    putOptions = options;
  }
}
