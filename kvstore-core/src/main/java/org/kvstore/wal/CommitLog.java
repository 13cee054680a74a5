package org.kvstore.wal;

import java.io.IOException;
import java.util.List;
import org.kvstore.spi.Mutation;

/**
 * The write-ahead log as the store's write pipeline sees it. Records are enqueued in LSN order under
 * the pipeline's order lock (cheap, in memory), then written and synced outside it, where concurrent
 * writers share one {@code write()} and one fsync (group commit).
 *
 * <p>Thread safety: thread-safe; {@link #enqueue} REQUIRES the pipeline's order lock.
 */
public interface CommitLog extends AutoCloseable {

  /** Adds the record of {@code mutations} for table {@code tableId} at {@code lsn} (strictly increasing). */
  void enqueue(long lsn, long tableId, List<Mutation> mutations) throws IOException;

  /** Returns once every record up to {@code lsn} has been handed to the OS ({@code write()}). */
  void writeUpTo(long lsn) throws IOException;

  /** Returns once every record up to {@code lsn} is written and on stable storage (fsync). */
  void syncUpTo(long lsn) throws IOException;

  /** Makes every record written so far durable (one fsync unless nothing new was written). */
  void syncWritten() throws IOException;

  @Override
  void close() throws IOException;

  /** The log of a store without durable tables or with logging off: records go nowhere. */
  CommitLog NONE =
      new CommitLog() {
        @Override
        public void enqueue(long lsn, long tableId, List<Mutation> mutations) {}

        @Override
        public void writeUpTo(long lsn) {}

        @Override
        public void syncUpTo(long lsn) {}

        @Override
        public void syncWritten() {}

        @Override
        public void close() {}
      };
}
