package org.kvstore.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A plain socket for byte-exact protocol tests. Not thread-safe. */
public final class RawClient implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  public RawClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(5000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  public RawClient send(String s) throws IOException {
    return send(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  public RawClient send(byte[] b) throws IOException {
    out.write(b);
    out.flush();
    return this;
  }

  /** Sends a command as a multibulk frame. */
  public RawClient command(String... args) throws IOException {
    StringBuilder sb = new StringBuilder("*" + args.length + "\r\n");
    for (String a : args) {
      sb.append('$').append(a.getBytes(StandardCharsets.ISO_8859_1).length).append("\r\n").append(a).append("\r\n");
    }
    return send(sb.toString());
  }

  /** Reads exactly {@code n} bytes. */
  public String read(int n) throws IOException {
    byte[] b = in.readNBytes(n);
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** Reads until {@code expected} bytes arrived (or fails with what came). */
  public String readExpected(String expected) throws IOException {
    byte[] b = in.readNBytes(expected.getBytes(StandardCharsets.ISO_8859_1).length);
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  /** Reads until what arrived ends with {@code marker}, and returns it all. */
  public String readUntil(String marker) throws IOException {
    StringBuilder sb = new StringBuilder();
    while (!sb.toString().endsWith(marker)) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("closed before " + marker + " after: " + sb);
      }
      sb.append((char) c);
    }
    return sb.toString();
  }

  /** Reads whatever arrives until the server closes the connection (or 5 s pass). */
  public String readUntilClosed() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    try {
      int n;
      while ((n = in.read(b)) >= 0) {
        buf.write(b, 0, n);
      }
    } catch (SocketTimeoutException e) {
      return buf.toString(StandardCharsets.ISO_8859_1) + "<timeout>";
    } catch (IOException e) {
      // reset after close: what arrived is the answer
    }
    return buf.toString(StandardCharsets.ISO_8859_1);
  }

  /** Whether the server closed the connection (EOF within the timeout). */
  public boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
