package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/**
 * Runs every {@code sh} example of docs/http.md with bash and curl, in order, against a live
 * server (those marked {@code sh secure} against one with a password and a CORS origin), and
 * checks the status lines and error codes of the {@code http} block that follows each: the docs'
 * examples work as written.
 */
class HttpDocsExamplesTest {
  private static final Pattern BLOCK = Pattern.compile("```sh( secure)?\\n(.*?)```\\n```http\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 [0-9]{3} [^\r\n]*");
  private static final Pattern CODE = Pattern.compile("\"code\":\"([a-z_]+)\"");

  @TempDir Path dir;

  record Example(boolean secure, String script, List<String> statusLines, List<String> codes) {}

  static List<Example> examples() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "http.md"));
    List<Example> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(doc);
    while (m.find()) {
      List<String> status = new ArrayList<>();
      List<String> codes = new ArrayList<>();
      for (String line : m.group(3).split("\n")) {
        if (line.startsWith("HTTP/1.1 ")) {
          status.add(line.trim());
        }
        Matcher c = CODE.matcher(line);
        if (c.find()) {
          codes.add(c.group(1));
        }
      }
      out.add(new Example(m.group(1) != null, m.group(2), status, codes));
    }
    return out;
  }

  @Test
  void readmeCurlExample_roundTrips() throws Exception {
    Assumptions.assumeTrue(ExternalTools.run(dir, 30, "sh", "-c", "command -v curl").exit() == 0, "curl is needed");
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("..", "README.md"))) {
      if (line.startsWith("curl ") && line.contains("localhost:8080")) {
        lines.add(line);
      }
    }
    assertThat(lines).hasSize(2);
    try (KVStoreServer s = HttpServers.start(dir.resolve("readme"))) {
      String script = String.join("\n", lines).replace("localhost:8080", "127.0.0.1:" + s.httpPort());
      ExternalTools.Result r = ExternalTools.run(dir, 60, "bash", "-e", "-c", script);
      assertThat(r.exit()).as(r.toString()).isZero();
      assertThat(r.out()).isEqualTo("Krishna");
      assertThat(s.store().get("default", "0", "user")).isEqualTo("Krishna".getBytes());
    }
  }

  @Test
  void everyExample_answersAsDocumented() throws Exception {
    Assumptions.assumeTrue(ExternalTools.run(dir, 30, "sh", "-c", "command -v curl && command -v redis-cli").exit() == 0,
        "curl and redis-cli are needed (Debian packages curl, redis-tools)");
    List<Example> examples = examples();
    assertThat(examples).hasSizeGreaterThan(15);
    try (KVStoreServer plain = HttpServers.start(dir.resolve("plain"));
        KVStoreServer secure = KVStoreServer.start(HttpServers.config(dir.resolve("secure"))
            .set("password", "s3cret").set("http-cors-origin", "https://app.example.com").build())) {
      for (Example e : examples) {
        KVStoreServer s = e.secure() ? secure : plain;
        String script = e.script().replace("localhost:8080", "127.0.0.1:" + s.httpPort())
            .replace("-p 6379", "-p " + s.respPort()).replace("redis-cli ", "redis-cli -a s3cret --no-auth-warning ");
        ExternalTools.Result r = ExternalTools.run(dir, 60, "bash", "-e", "-o", "pipefail", "-c", script);
        assertThat(r.exit()).as("%s\n%s", e.script(), r).isZero();
        List<String> got = new ArrayList<>();
        for (Matcher status = STATUS.matcher(r.out()); status.find(); ) {
          got.add(status.group().trim());
        }
        assertThat(got).as("status lines of\n%s\n%s", e.script(), r.out()).containsExactlyElementsOf(e.statusLines());
        for (String code : e.codes()) {
          assertThat(r.out()).as("%s\n%s", e.script(), r.out()).contains("\"code\":\"" + code + "\"");
        }
      }
    }
  }
}
