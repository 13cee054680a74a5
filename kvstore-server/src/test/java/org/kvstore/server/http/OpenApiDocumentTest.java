package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.HttpMethod;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/**
 * The OpenAPI document (src/main/resources/openapi.json, served at /v1/openapi.json) and the routes
 * agree: every method of every route the router has is an operation of the document, and every
 * operation of the document is answered by the live server (not 404 {@code not_found}, not 405).
 * HEAD, answered wherever GET is, and OPTIONS are left out of the first direction. The document's
 * validity against the OpenAPI 3.0 schema is checked by HttpPythonClientTest
 * (openapi-spec-validator).
 */
class OpenApiDocumentTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;
  static JsonNode doc;

  @BeforeAll
  static void start() throws Exception {
    server = HttpServers.start(dir);
    http = new HttpTestClient(server.httpPort());
    doc = new ObjectMapper().readTree(OpsRoutes.openApiDocument());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static TreeSet<String> documented(boolean withHead) {
    TreeSet<String> ops = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.get("paths").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> path = it.next();
      for (Iterator<String> m = path.getValue().fieldNames(); m.hasNext(); ) {
        String method = m.next();
        if (method.equals("parameters") || (!withHead && method.equals("head"))) {
          continue;
        }
        ops.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }
    return ops;
  }

  @Test
  void everyRoute_isDocumented_andNothingElse() {
    TreeSet<String> routed = new TreeSet<>();
    for (HttpRouter.Route r : HttpProtocolServerAccess.router(server).routes()) {
      for (HttpMethod m : r.methods().keySet()) {
        routed.add(m.name() + " " + r.template());
      }
    }
    assertThat(routed).containsExactlyElementsOf(documented(false));
  }

  @Test
  void everyDocumentedOperation_isAnswered() {
    server.store().createDB("oa");
    for (String op : documented(true)) {
      String method = op.substring(0, op.indexOf(' '));
      String path = op.substring(op.indexOf(' ') + 1)
          .replace("{db}", "oa").replace("{table}", "t").replace("{key}", "k");
      byte[] body = method.equals("POST") ? "{}".getBytes() : null;
      HttpResponse<byte[]> r = http.send(method, path, body, "Content-Type", "application/json");
      assertThat(r.statusCode()).as(op).isNotEqualTo(405);
      if (r.statusCode() == 404 && r.body().length > 0) {
        assertThat(HttpTestClient.json(r).get("code").asText()).as(op).isNotEqualTo("not_found");
      }
    }
  }

  @Test
  void problemCodes_areTheDocumentsEnum() {
    TreeSet<String> codes = new TreeSet<>();
    for (ProblemCode c : ProblemCode.values()) {
      codes.add(c.code());
    }
    TreeSet<String> documentedCodes = new TreeSet<>();
    doc.at("/components/schemas/Problem/properties/code/enum").forEach(n -> documentedCodes.add(n.asText()));
    assertThat(codes).isEqualTo(documentedCodes);
  }
}
