package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/**
 * Real Python clients against the live server: the {@code requests} script
 * {@code http_requests_client.py} (life cycle of databases, tables and keys, conditional requests,
 * binary keys, paged ranges, batches, errors, /metrics parsed by {@code prometheus_client}, the
 * OpenAPI document checked by {@code openapi-spec-validator}), and schemathesis, a property-based
 * fuzzer that derives requests from /v1/openapi.json and fails on any 5xx or any response the
 * document does not describe (status, content type, schema, headers). The fuzzing run is kept short
 * by default ({@code -n 10}); {@code -Dkvstore.test.scale=soak} runs it longer.
 *
 * <p>Skipped, with the reason, only when the interpreter lacks the modules; .ci/run installs them.
 */
class HttpPythonClientTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static String base;

  @BeforeAll
  static void start() {
    server = HttpServers.start(dir.resolve("data"));
    base = "http://127.0.0.1:" + server.httpPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void requestsScript_passes() throws Exception {
    ExternalTools.assumePythonModules(dir, "requests", "prometheus_client", "openapi_spec_validator");
    Path script = ExternalTools.resource(dir, "http_requests_client.py");
    ExternalTools.Result r = ExternalTools.run(dir, 120, ExternalTools.python(), script.toString(), base);
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("OK");
  }

  @Test
  void schemathesis_findsNoServerErrorAndNoUndocumentedResponse() throws Exception {
    ExternalTools.assumePythonModules(dir, "schemathesis");
    Path st = Path.of(ExternalTools.python()).resolveSibling("schemathesis");
    String exe = Files.isExecutable(st) ? st.toString() : "schemathesis";
    boolean soak = "soak".equals(System.getProperty("kvstore.test.scale"));
    ExternalTools.Result r = ExternalTools.run(dir, 300, List.of(exe, "run", base + "/v1/openapi.json",
        "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
            + "response_schema_conformance,response_headers_conformance",
        "--max-examples", soak ? "200" : "10", "--seed", Long.toString(Math.abs(org.kvstore.testkit.Seeds.seed("schemathesis") % 1_000_000_000L)),
        "--no-shrink", "--workers", "1"));
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("passed").doesNotContain("failed");
  }
}
