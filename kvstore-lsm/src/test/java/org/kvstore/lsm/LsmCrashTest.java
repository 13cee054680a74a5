package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.io.FaultInjectingFileSystem;
import org.kvstore.io.FileSystem;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.TableProperties;

/**
 * Simulated crashes at every mutating file operation of a flush and of the compaction it triggers:
 * the fault-injecting file system stops all I/O after the n-th operation (as if the process died),
 * then the table is reopened on the real file system and must hold exactly the state at its
 * persisted LSN; replaying the mutations above that LSN (as the core does from its log) must give
 * the final state. Nothing is lost, nothing comes back.
 */
class LsmCrashTest {
  @TempDir Path root;

  /** One logged mutation: value null means remove. */
  private record Op(long lsn, byte[] key, byte[] value) {}

  private static Properties props() {
    Properties p = new Properties();
    p.put("memtable.size", "1MiB");
    p.put("block.size", "512");
    p.put("level0.compaction.trigger", "2");
    p.put("target.file.size", "8KiB");
    return p;
  }

  private static EngineTable open(Path dir, FileSystem fs, AtomicLong applied) throws IOException {
    LsmEngine engine = new LsmEngine();
    TableProperties tp = TableProperties.parse("lsm", engine.properties(), props());
    return engine.open(new EngineContext(dir, fs, tp, "crash.t", applied::get));
  }

  private static byte[] key(int i) {
    return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static void apply(EngineTable t, Op op, AtomicLong applied) throws IOException {
    if (op.value == null) {
      t.remove(op.key, op.lsn);
    } else {
      t.put(op.key, op.value, 0, op.lsn);
    }
    applied.set(op.lsn);
  }

  private static TreeMap<byte[], byte[]> model(List<Op> log, long upTo) {
    TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
    for (Op op : log) {
      if (op.lsn <= upTo) {
        if (op.value == null) {
          m.remove(op.key);
        } else {
          m.put(op.key, op.value);
        }
      }
    }
    return m;
  }

  private static List<String> contents(EngineTable t) throws IOException {
    List<String> out = new ArrayList<>();
    try (Cursor c = t.newCursor(null, null)) {
      while (c.next()) {
        out.add(new String(c.key(), StandardCharsets.UTF_8) + "=" + new String(c.value(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static List<String> render(Map<byte[], byte[]> m) {
    List<String> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(new String(k, StandardCharsets.UTF_8) + "=" + new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void crashAtEveryStepOfFlushAndCompaction_losesNothingAndResurrectsNothing() throws Exception {
    List<Op> log = new ArrayList<>();
    long lsn = 0;
    for (int i = 0; i < 600; i++) {
      log.add(new Op(++lsn, key(i), ("one-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    long firstFlushLsn = lsn;
    for (int i = 0; i < 600; i += 2) {
      log.add(new Op(++lsn, key(i), i % 3 == 0 ? null : ("two-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    for (int i = 600; i < 700; i++) {
      log.add(new Op(++lsn, key(i), ("new-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    long lastLsn = lsn;

    boolean completedWithoutCrash = false;
    int crashes = 0;
    for (int crashAt = 0; !completedWithoutCrash; crashAt++) {
      assertThat(crashAt).as("the run should complete without a crash eventually").isLessThan(500);
      Path dir = root.resolve("run" + crashAt);
      Files.createDirectories(dir);
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      AtomicLong applied = new AtomicLong();
      EngineTable t = open(dir, fs, applied);
      for (Op op : log) {
        if (op.lsn <= firstFlushLsn) {
          apply(t, op, applied);
        }
      }
      t.flush();
      // The step under test: the second flush and the L0 -> L1 compaction it triggers.
      fs.crashAfter(crashAt);
      try {
        for (Op op : log) {
          if (op.lsn > firstFlushLsn) {
            apply(t, op, applied);
          }
        }
        t.flush();
        waitForCompaction(t, fs);
      } catch (IOException e) {
        // the injected crash
      }
      completedWithoutCrash = !fs.crashed();
      if (!completedWithoutCrash) {
        crashes++;
      }
      try {
        t.close();
      } catch (IOException e) {
        // a crashed process does not close cleanly
      }
      fs.heal();

      AtomicLong applied2 = new AtomicLong();
      EngineTable re = open(dir, fs, applied2);
      long persisted = re.persistedLsn();
      assertThat(persisted).as("crash at op %d", crashAt).isIn(firstFlushLsn, lastLsn);
      assertThat(contents(re)).as("state at persisted LSN %d, crash at op %d", persisted, crashAt)
          .containsExactlyElementsOf(render(model(log, persisted)));
      for (Op op : log) {
        if (op.lsn > persisted) {
          apply(re, op, applied2);
        }
      }
      assertThat(contents(re)).as("after replay, crash at op %d", crashAt)
          .containsExactlyElementsOf(render(model(log, lastLsn)));
      re.flush();
      re.close();
      EngineTable again = open(dir, fs, new AtomicLong(lastLsn));
      assertThat(contents(again)).containsExactlyElementsOf(render(model(log, lastLsn)));
      again.close();
    }
    assertThat(crashes).as("crash points covered").isGreaterThan(10);
  }

  /**
   * Waits until the compaction emptied level 0, or the injected crash hit. Neither within 10 s
   * fails: without it a run whose compaction never happened would count as completed.
   */
  private static void waitForCompaction(EngineTable t, FaultInjectingFileSystem fs) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!fs.crashed()) {
      if (t.stats().details().get("level.0.files") == 0) {
        return; // compacted: the step under test ran to its end
      }
      assertThat(System.nanoTime()).as("the L0 -> L1 compaction within 10 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
