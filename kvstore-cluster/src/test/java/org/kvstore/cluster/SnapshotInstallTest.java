package org.kvstore.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.Table;
import org.kvstore.testkit.Seeds;

/**
 * A replica that needs entries its leader's log no longer has (it was down while the others took
 * snapshots and purged their logs, or its disk was wiped) installs the leader's newest snapshot and
 * ends up equal to a model of every write; and snapshots taken every N entries keep the logs and
 * the snapshot directories bounded.
 */
@Timeout(value = 120)
class SnapshotInstallTest {
  private static final String T = TestCluster.TABLE;
  /** Small log segments, so that a few hundred entries close several and a snapshot purges them. */
  private static final long SEGMENT = ClusterNodeOptions.MIN_LOG_SEGMENT_BYTES;
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code count} writes through the leader: puts of 1 KiB values, APPENDs, removes; also into {@code model}. */
  private static void write(ClusterNode leader, Random rnd, int count, Map<String, String> model) {
    for (int i = 0; i < count; i++) {
      String k = "k" + rnd.nextInt(60);
      int op = rnd.nextInt(10);
      if (op < 4) {
        String v = ("v" + rnd.nextInt(1000) + "-").repeat(400).substring(0, 1024);
        leader.shard(0).put(T, b(k), b(v));
        model.put(k, v);
      } else if (op < 9) {
        String token = rnd.nextInt(1000) + ",";
        leader.shard(0).append(T, b(k), b(token));
        model.merge(k, token, String::concat);
      } else {
        leader.shard(0).remove(T, b(k));
        model.remove(k);
      }
    }
  }

  private static Map<String, String> localContents(ClusterNode n) {
    Table t = n.shard(0).localTable(T);
    Map<String, String> out = new TreeMap<>();
    try (Cursor c = t.scan(null, null, 0)) {
      while (c.next()) {
        out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static void awaitApplied(ClusterNode n, long index) throws InterruptedException {
    long deadline = System.nanoTime() + TestCluster.WAIT.toNanos();
    while (n.shard(0).appliedIndex() < index) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(n.nodeId() + " applied only " + n.shard(0).appliedIndex() + " < " + index);
      }
      Thread.sleep(20);
    }
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  private static String follower(TestCluster c, ClusterNode leader) {
    return c.ids().stream().filter(id -> !id.equals(leader.nodeId())).findFirst().orElseThrow();
  }

  private Path groupDir(TestCluster c, String id) {
    return c.dataDirectory(id).resolve(ClusterNode.RAFT_DIR)
        .resolve(ClusterNode.groupIdOf(c.layout().shard(0)).getUuid().toString());
  }

  /** The first index of the Raft log segments on {@code id}'s disk (1: nothing purged). */
  private long firstLogIndex(TestCluster c, String id) throws Exception {
    try (Stream<Path> files = Files.list(groupDir(c, id).resolve("current"))) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("log_"))
          .map(n -> n.replace("inprogress_", "")) // log_<start>-<end>, or log_inprogress_<start> for the open one
          .mapToLong(n -> Long.parseLong(n.substring("log_".length()).split("-")[0])).min().orElse(-1);
    }
  }

  private long snapshotDirectories(TestCluster c, String id) throws Exception {
    try (Stream<Path> dirs = Files.list(groupDir(c, id).resolve("sm").resolve("snapshots"))) {
      return dirs.filter(p -> p.getFileName().toString().startsWith("snapshot-")).count();
    }
  }

  private void downWhileLogIsPurged_thenRestarted_installsAndEqualsModel(boolean wipeDisk) throws Exception {
    long seed = Seeds.seed("SnapshotInstallTest");
    Random rnd = new Random(seed);
    Map<String, String> model = new TreeMap<>();
    try (TestCluster c = new TestCluster(dir)) {
      c.raftLog(1_000_000, SEGMENT); // snapshots on request only
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      write(leader, rnd, 100, model);
      String f = follower(c, leader);
      awaitApplied(c.node(f), leader.shard(0).appliedIndex());
      c.stop(f);
      if (wipeDisk) {
        deleteTree(c.dataDirectory(f));
      }
      write(leader, rnd, 400, model);
      for (String id : c.ids()) {
        if (!id.equals(f)) {
          c.node(id).takeSnapshot(0);
        }
      }
      long purgedBelow = firstLogIndex(c, leader.nodeId());
      assertThat(purgedBelow).as("the leader's log was purged past what %s had (seed %d)", f, seed)
          .isGreaterThan(110);
      write(leader, rnd, 30, model); // entries above the snapshot, which the follower gets from the log
      long last = leader.shard(0).appliedIndex();

      ClusterNode back = c.start(f);
      awaitApplied(back, last);
      assertThat(back.stateMachine(0).tablesInstalled()).as("both tables of the shard replaced by the copies")
          .isEqualTo(TestCluster.TABLES.size());
      assertThat(localContents(back)).as("seed %d", seed).isEqualTo(model);
      assertThat(localContents(leader)).as("seed %d", seed).isEqualTo(model);

      // A restart after the install starts from the installed state: nothing is installed again.
      c.stop(f);
      write(leader, rnd, 10, model);
      last = leader.shard(0).appliedIndex();
      ClusterNode again = c.start(f);
      awaitApplied(again, last);
      assertThat(again.stateMachine(0).tablesInstalled()).isZero();
      assertThat(localContents(again)).as("seed %d", seed).isEqualTo(model);
    }
  }

  @Test
  void followerDown_whileTheOthersPurgeTheirLogs_installsTheLeadersSnapshot_andEqualsTheModel() throws Exception {
    downWhileLogIsPurged_thenRestarted_installsAndEqualsModel(false);
  }

  @Test
  void followerWithAWipedDisk_catchesUpBySnapshot_andEqualsTheModel() throws Exception {
    downWhileLogIsPurged_thenRestarted_installsAndEqualsModel(true);
  }

  @Test
  void snapshotsEveryNEntries_purgeTheLogs_andKeepAtMostTwoSnapshotsPerReplica() throws Exception {
    Random rnd = new Random(Seeds.seed("SnapshotInstallTest.auto"));
    Map<String, String> model = new TreeMap<>();
    try (TestCluster c = new TestCluster(dir)) {
      c.raftLog(60, SEGMENT);
      c.startAll();
      ClusterNode leader = c.awaitLeader();
      write(leader, rnd, 400, model);
      long last = leader.shard(0).appliedIndex();
      c.awaitApplied(last);
      for (String id : c.ids()) {
        long deadline = System.nanoTime() + TestCluster.WAIT.toNanos();
        while (firstLogIndex(c, id) <= 1 && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(firstLogIndex(c, id)).as("node %s purged its log", id).isGreaterThan(1);
        assertThat(snapshotDirectories(c, id)).as("node %s", id).isBetween(1L, 2L);
        assertThat(localContents(c.node(id))).as("node %s", id).isEqualTo(model);
      }
    }
  }
}
