package org.kvstore.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import org.kvstore.server.command.ServerSettings;

/**
 * The password check of HTTP requests: with a password set (the same one RESP's {@code AUTH}
 * checks, also after {@code CONFIG SET requirepass}), every route but the probes needs
 * {@code Authorization: Bearer <password>} (or Basic with any user and the password, for browsers
 * and {@code curl -u}). The comparison is {@link ServerSettings#passwordMatches} (SHA-256 digests,
 * constant time); the header is never logged.
 *
 * <p>Thread safety: thread-safe.
 */
final class BearerAuth {
  /** Paths a load balancer or orchestrator probes without credentials. */
  private static final Set<String> OPEN_PATHS = Set.of("/health", "/livez", "/ready", "/readyz");

  private final ServerSettings settings;

  BearerAuth(ServerSettings settings) {
    this.settings = settings;
  }

  /** Throws 401 {@code unauthorized} unless the request may proceed. */
  void check(HttpExchange ex) {
    if (!settings.passwordRequired() || OPEN_PATHS.contains(ex.rawPath())) {
      return;
    }
    String header = ex.header(HttpHeaderNames.AUTHORIZATION);
    byte[] given = header == null ? null : credential(header.trim());
    if (given == null || !settings.passwordMatches(given)) {
      throw new HttpProblem(ProblemCode.UNAUTHORIZED, ProblemCode.UNAUTHORIZED.status(),
          header == null ? "this server requires Authorization: Bearer <password>" : "wrong credentials",
          java.util.Map.of(), java.util.Map.of("WWW-Authenticate", "Bearer realm=\"kvstore\""));
    }
  }

  private static byte[] credential(String header) {
    int space = header.indexOf(' ');
    if (space < 0) {
      return null;
    }
    String scheme = header.substring(0, space);
    String value = header.substring(space + 1).trim();
    if (scheme.equalsIgnoreCase("Bearer")) {
      return value.getBytes(StandardCharsets.UTF_8);
    }
    if (scheme.equalsIgnoreCase("Basic")) {
      try {
        String pair = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        return colon < 0 ? null : pair.substring(colon + 1).getBytes(StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }
}
