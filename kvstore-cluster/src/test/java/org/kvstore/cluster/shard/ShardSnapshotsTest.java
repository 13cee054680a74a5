package org.kvstore.cluster.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.FaultInjectingFileSystem;

/**
 * A snapshot directory is written through the store's file layer: synced, renamed into place and
 * its parent synced, so a crash before the rename leaves no snapshot (docs/format/shard-snapshot.md).
 */
class ShardSnapshotsTest {
  @TempDir Path dir;

  @Test
  void commit_renamesTheSyncedTemporaryDirectory_thenSyncsTheParent() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ShardSnapshots snapshots = new ShardSnapshots(fs, dir.resolve(ShardSnapshots.DIR));
    ShardSnapshotFile.Stamp stamp = new ShardSnapshotFile.Stamp(2, 7);
    Path tmp = snapshots.begin(stamp);
    fs.createDirectories(tmp.resolve(ShardSnapshots.TABLES).resolve("t"));
    fs.clearTrace();

    ShardSnapshots.Taken taken = snapshots.commit(tmp, stamp);

    List<String> trace = fs.trace();
    assertThat(trace).containsSubsequence(
        "sync shard-snapshot.tmp",
        "syncdir t",
        "syncdir " + ShardSnapshots.TABLES,
        "syncdir " + tmp.getFileName(),
        "rename " + tmp.getFileName() + " snapshot-2-7",
        "syncdir " + ShardSnapshots.DIR);
    assertThat(trace.get(trace.size() - 1)).isEqualTo("syncdir " + ShardSnapshots.DIR);
    assertThat(taken.dir()).isEqualTo(snapshots.root().resolve("snapshot-2-7"));
    assertThat(snapshots.latest()).isEqualTo(taken);
    assertThat(ShardSnapshots.files(taken)).hasSize(1);
  }

  @Test
  void crashBeforeTheRename_leavesNoSnapshot_andTheTemporaryDirectoryIsRemovedLater() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    ShardSnapshots snapshots = new ShardSnapshots(fs, dir.resolve(ShardSnapshots.DIR));
    ShardSnapshots.Taken first = snapshots.commit(snapshots.begin(new ShardSnapshotFile.Stamp(1, 5)),
        new ShardSnapshotFile.Stamp(1, 5));
    ShardSnapshotFile.Stamp second = new ShardSnapshotFile.Stamp(1, 9);
    Path tmp = snapshots.begin(second);
    fs.crashAfter(7); // the stamp (open, truncate, write, sync, rename, syncdir) and the tables' syncdir pass
    assertThatThrownBy(() -> snapshots.commit(tmp, second)).hasMessageContaining("injected");
    fs.heal();

    assertThat(snapshots.latest()).isEqualTo(first);
    snapshots.removeAllBut(ShardStateMachine.SNAPSHOTS_KEPT);
    assertThat(Files.exists(tmp)).isFalse();
    assertThat(snapshots.latest()).isEqualTo(first);
  }
}
