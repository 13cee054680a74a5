package org.kvstore.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Group commit: throughput of {@code sync} writes (each acknowledged only after its log record is
 * fsynced) with 1 and 32 writer threads, beside the disk's own fsync rate (a 128-byte append and
 * an fdatasync per operation, what one writer without group commit could reach at best).
 *
 * <pre>
 * java -jar kvstore-bench/target/benchmarks.jar GroupCommitBenchmark.syncPut -t 1
 * java -jar kvstore-bench/target/benchmarks.jar GroupCommitBenchmark.syncPut -t 32
 * java -jar kvstore-bench/target/benchmarks.jar GroupCommitBenchmark.rawFsync -t 1
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class GroupCommitBenchmark {

  /** One store per trial, shared by all benchmark threads. */
  @State(Scope.Benchmark)
  public static class Store {
    @Param({"lsm"})
    public String engine;

    @Param({"100"})
    public int valueBytes;

    Path dir;
    KVStore store;
    Table table;
    final AtomicLong keys = new AtomicLong();

    @Setup(Level.Trial)
    public void open() throws IOException {
      dir = Files.createTempDirectory("kvstore-groupcommit");
      store = KVStore.open(dir, StoreOptions.builder().durability(Durability.SYNC).build());
      store.createDB("bench");
      store.createTable("bench", "t", engine, new Properties());
      table = store.table("bench", "t");
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      store.close();
      BenchFiles.deleteTree(dir);
    }
  }

  /** A file appended to with one fdatasync per append. */
  @State(Scope.Thread)
  public static class RawFile {
    Path file;
    FileChannel channel;
    final ByteBuffer record = ByteBuffer.allocateDirect(128);

    @Setup(Level.Trial)
    public void open() throws IOException {
      file = Files.createTempFile("kvstore-fsync", ".bin");
      channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      channel.close();
      Files.deleteIfExists(file);
    }
  }

  @Benchmark
  public void syncPut(Store s) {
    byte[] key = Long.toString(s.keys.incrementAndGet()).getBytes();
    byte[] value = new byte[s.valueBytes];
    ThreadLocalRandom.current().nextBytes(value);
    s.table.put(key, value);
  }

  @Benchmark
  public void rawFsync(RawFile f) throws IOException {
    f.record.clear();
    f.channel.write(f.record);
    f.channel.force(false);
  }
}
