package org.kvstore.server.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.ServerConfig;
import org.kvstore.server.TestServers;
import org.kvstore.server.warmup.WarmupReport.EndedBy;

class ServerWarmupTest {
  @TempDir Path dir;

  private ServerConfig config(String seconds) {
    return TestServers.config(dir.resolve("data"))
        .set("http-port", "0")
        .set("thrift-port", "0")
        .set("warmup-duration", seconds)
        .build();
  }

  private Path scratchParent() throws IOException {
    return Files.createDirectories(dir.resolve("tmp"));
  }

  private static List<Path> list(Path parent) throws IOException {
    try (Stream<Path> s = Files.list(parent)) {
      return s.toList();
    }
  }

  @Test
  void run_durationOne_exercisesEveryProtocolAndDeletesTheScratchDirectory() throws IOException {
    Path parent = scratchParent();

    WarmupReport report = ServerWarmup.run(config("1"), parent, () -> false, false);

    assertThat(report).isNotNull();
    assertThat(report.requests()).containsOnlyKeys("RESP", "HTTP", "Thrift");
    assertThat(report.requests().values()).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(report.endedBy()).isEqualTo(EndedBy.DURATION);
    assertThat(list(parent)).isEmpty();
    // The user's data directory is not even created by the warm-up.
    assertThat(dir.resolve("data")).doesNotExist();
  }

  @Test
  void run_durationOne_endsWithinItsDuration() throws IOException {
    WarmupReport report = ServerWarmup.run(config("1"), scratchParent(), () -> false, false);

    assertThat(report).isNotNull();
    // From the first request to the last reply: the duration, one poll and one round of each client
    // (with room for a loaded machine; without the bound nothing but a stop would end it).
    assertThat(report.endedBy()).isEqualTo(EndedBy.DURATION);
    assertThat(report.exercised()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(4));
  }

  @Test
  void run_durationZero_makesNoScratchDirectoryAndSendsNothing() throws IOException {
    Path parent = scratchParent();

    WarmupReport report = ServerWarmup.run(config("0"), parent, () -> false, true);

    assertThat(report.endedBy()).isEqualTo(EndedBy.OFF);
    assertThat(report.totalRequests()).isZero();
    assertThat(list(parent)).isEmpty();
  }

  @Test
  void run_stopRequested_endsAtOnce() throws IOException {
    Path parent = scratchParent();

    WarmupReport report = ServerWarmup.run(config("60"), parent, () -> true, false);

    assertThat(report.endedBy()).isEqualTo(EndedBy.STOP);
    assertThat(report.exercised()).isLessThan(Duration.ofSeconds(5));
    assertThat(list(parent)).isEmpty();
  }

  @Test
  void run_scratchDirectoryCannotBeMade_logsAndReturnsNull() throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("file"), "x");

    WarmupReport report = ServerWarmup.run(config("1"), notADirectory, () -> false, false);

    assertThat(report).isNull();
  }

  @Test
  void run_staleScratchDirectories_deletesThoseOfEndedProcessesOnly() throws Exception {
    Path parent = scratchParent();
    Process ended = new ProcessBuilder("true").start();
    assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Path stale = Files.createDirectories(parent.resolve(ScratchDirectory.PREFIX + ended.pid() + "-123"));
    Files.writeString(stale.resolve("000001.log"), "left by a crash");
    Files.writeString(stale.resolve("LOCK"), ""); // a store was open in it
    Path live = Files.createDirectories(parent.resolve(ScratchDirectory.PREFIX + ProcessHandle.current().pid() + "-9"));
    Path other = Files.createDirectories(parent.resolve("something-else"));

    WarmupReport report = ServerWarmup.run(config("1"), parent, () -> false, false);

    assertThat(report).isNotNull();
    assertThat(list(parent)).containsExactlyInAnyOrder(live, other);
  }
}
