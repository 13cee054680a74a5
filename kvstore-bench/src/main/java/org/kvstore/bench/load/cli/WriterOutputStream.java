package org.kvstore.bench.load.cli;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * Bytes to a {@link PrintWriter} (picocli's output), decoded as UTF-8 line by line, so the runs'
 * log goes where the command's output goes (a test's writer, or stdout).
 *
 * <p>Thread safety: thread-safe (synchronized).
 */
final class WriterOutputStream extends OutputStream {
  private final PrintWriter writer;
  private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

  WriterOutputStream(PrintWriter writer) {
    this.writer = writer;
  }

  @Override
  public synchronized void write(int b) {
    line.write(b);
    if (b == '\n') {
      flush();
    }
  }

  @Override
  public synchronized void flush() {
    writer.print(line.toString(StandardCharsets.UTF_8));
    writer.flush();
    line.reset();
  }
}
