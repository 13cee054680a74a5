package org.kvstore.server.command;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.kvstore.Durability;

/**
 * The settings commands can see ({@code INFO}, {@code CONFIG GET}) and the few that
 * {@code CONFIG SET} may change at run time (password, maxclients, proto-max-bulk-len).
 *
 * <p>The password is kept only as its SHA-256 digest and compared with
 * {@link MessageDigest#isEqual}, which takes the same time wherever the inputs differ.
 *
 * <p>Thread safety: thread-safe; fixed fields are final, run-time ones volatile.
 */
public final class ServerSettings {
  private final String version;
  private final Path dataDir;
  private final String bind;
  private final Durability durability;
  private final int maxMultibulk;
  private final long startMillis = System.currentTimeMillis();
  private volatile int respPort;
  private volatile int httpPort;
  private volatile int thriftPort;
  private volatile byte[] passwordDigest;
  private volatile int maxClients;
  private volatile long maxBulkBytes;

  public ServerSettings(
      String version, Path dataDir, String bind, Durability durability, String password,
      int maxClients, long maxBulkBytes, int maxMultibulk) {
    this.version = version;
    this.dataDir = dataDir;
    this.bind = bind;
    this.durability = durability;
    this.maxClients = maxClients;
    this.maxBulkBytes = maxBulkBytes;
    this.maxMultibulk = maxMultibulk;
    setPassword(password);
  }

  public String version() {
    return version;
  }

  public Path dataDir() {
    return dataDir;
  }

  public String bind() {
    return bind;
  }

  public Durability durability() {
    return durability;
  }

  public long startMillis() {
    return startMillis;
  }

  public int maxMultibulk() {
    return maxMultibulk;
  }

  public int respPort() {
    return respPort;
  }

  public int httpPort() {
    return httpPort;
  }

  public int thriftPort() {
    return thriftPort;
  }

  /** Records the ports actually bound (-1: off). */
  public void ports(int resp, int http, int thrift) {
    this.respPort = resp;
    this.httpPort = http;
    this.thriftPort = thrift;
  }

  public int maxClients() {
    return maxClients;
  }

  public void maxClients(int n) {
    this.maxClients = n;
  }

  public long maxBulkBytes() {
    return maxBulkBytes;
  }

  public void maxBulkBytes(long n) {
    this.maxBulkBytes = n;
  }

  public boolean passwordRequired() {
    return passwordDigest != null;
  }

  /** Sets the password; null or empty removes it. */
  public void setPassword(String password) {
    this.passwordDigest = password == null || password.isEmpty() ? null : sha256(password.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code candidate} is the password, in constant time. False when none is set. */
  public boolean passwordMatches(byte[] candidate) {
    byte[] expected = passwordDigest;
    return expected != null && MessageDigest.isEqual(expected, sha256(candidate));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
