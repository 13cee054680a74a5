package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;

/** Databases and tables over HTTP: the life cycle of CLIENTS.md §10 item 16. */
class CatalogRoutesTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static HttpTestClient http;

  @BeforeAll
  static void start() {
    server = HttpServers.start(dir);
    http = new HttpTestClient(server.httpPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static String code(HttpResponse<byte[]> r) {
    return HttpTestClient.json(r).get("code").asText();
  }

  @Test
  void lifecycle_createDescribeListDrop() {
    HttpResponse<byte[]> created = http.put("/v1/dbs/app", null);
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.headers().firstValue("Location")).hasValue("/v1/dbs/app");
    assertThat(HttpTestClient.json(created).get("name").asText()).isEqualTo("app");
    HttpResponse<byte[]> dup = http.put("/v1/dbs/app", null);
    assertThat(dup.statusCode()).isEqualTo(409);
    assertThat(code(dup)).isEqualTo("db_exists");

    HttpResponse<byte[]> table = http.send("PUT", "/v1/dbs/app/tables/users",
        "{\"engine\":\"memory\"}".getBytes(), "Content-Type", "application/json");
    assertThat(table.statusCode()).isEqualTo(201);
    assertThat(table.headers().firstValue("Location")).hasValue("/v1/dbs/app/tables/users");
    assertThat(HttpTestClient.json(table).get("engine").asText()).isEqualTo("memory");
    assertThat(code(http.put("/v1/dbs/app/tables/users", null))).isEqualTo("table_exists");

    http.put("/v1/dbs/app/tables/users/keys/k1", "v");
    JsonNode described = HttpTestClient.json(http.get("/v1/dbs/app/tables/users"));
    assertThat(described.get("db").asText()).isEqualTo("app");
    assertThat(described.get("stats").get("keys").asLong()).isEqualTo(1);
    assertThat(described.has("engine_stats")).isTrue();
    assertThat(HttpTestClient.json(http.get("/v1/dbs/app")).get("tables").get(0).asText()).isEqualTo("users");
    assertThat(HttpTestClient.json(http.get("/v1/dbs/app/tables")).get("items").get(0).get("engine").asText())
        .isEqualTo("memory");
    assertThat(HttpTestClient.json(http.get("/v1/dbs")).findValuesAsText("name")).contains("app", "default");
    assertThat(http.send("HEAD", "/v1/dbs/app", null).statusCode()).isEqualTo(200);

    HttpResponse<byte[]> notEmpty = http.delete("/v1/dbs/app");
    assertThat(notEmpty.statusCode()).isEqualTo(409);
    assertThat(code(notEmpty)).isEqualTo("db_not_empty");
    assertThat(http.delete("/v1/dbs/app?force=true").statusCode()).isEqualTo(204);
    HttpResponse<byte[]> again = http.delete("/v1/dbs/app");
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(code(again)).isEqualTo("db_not_found");
  }

  @Test
  void dropTable_thenMissing() {
    http.put("/v1/dbs/t2", null);
    http.put("/v1/dbs/t2/tables/x", null);
    assertThat(http.delete("/v1/dbs/t2/tables/x").statusCode()).isEqualTo(204);
    assertThat(code(http.delete("/v1/dbs/t2/tables/x"))).isEqualTo("table_not_found");
    assertThat(http.delete("/v1/dbs/t2").statusCode()).isEqualTo(204);
  }

  @Test
  void createTable_unknownEngine_unsupportedEngine() {
    http.put("/v1/dbs/eng", null);
    HttpResponse<byte[]> r = http.send("PUT", "/v1/dbs/eng/tables/t", "{\"engine\":\"rocks\"}".getBytes(),
        "Content-Type", "application/json");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(code(r)).isEqualTo("unsupported_engine");
  }

  @Test
  void createTable_unknownProperty_invalidArgument() {
    http.put("/v1/dbs/props", null);
    HttpResponse<byte[]> r = http.send("PUT", "/v1/dbs/props/tables/t",
        "{\"engine\":\"memory\",\"properties\":{\"no.such\":\"1\"}}".getBytes(), "Content-Type", "application/json");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(code(r)).isEqualTo("invalid_argument");
  }

  @Test
  void createTable_missingDb_dbNotFound() {
    assertThat(code(http.put("/v1/dbs/nodb/tables/t", null))).isEqualTo("db_not_found");
  }

  @Test
  void createTable_notJson_unsupportedMediaType() {
    http.put("/v1/dbs/media", null);
    HttpResponse<byte[]> r = http.send("PUT", "/v1/dbs/media/tables/t", "engine=lsm".getBytes(),
        "Content-Type", "application/x-www-form-urlencoded");
    assertThat(r.statusCode()).isEqualTo(415);
  }

  @Test
  void createTable_malformedJson_invalidArgument() {
    http.put("/v1/dbs/mal", null);
    HttpResponse<byte[]> r = http.send("PUT", "/v1/dbs/mal/tables/t", "{\"engine\":".getBytes(),
        "Content-Type", "application/json");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(code(r)).isEqualTo("invalid_argument");
    assertThat(HttpTestClient.json(r).get("detail").asText()).contains("malformed JSON").doesNotContain("at org.");
    HttpResponse<byte[]> wrongType = http.send("PUT", "/v1/dbs/mal/tables/t", "{\"engine\":5}".getBytes(),
        "Content-Type", "application/json");
    assertThat(code(wrongType)).isEqualTo("invalid_argument");
  }

  @Test
  void badName_invalidArgument() {
    HttpResponse<byte[]> r = http.put("/v1/dbs/.hidden", null);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(HttpTestClient.json(r).get("detail").asText()).contains(".hidden");
  }

  @Test
  void respKeyspace_isDefaultDbWithIndexTables() {
    assertThat(http.put("/v1/dbs/default/tables/5/keys/k", "v").statusCode()).isEqualTo(201);
    assertThat(HttpTestClient.json(http.get("/v1/dbs/default/tables")).findValuesAsText("name")).contains("0", "5");
    assertThat(code(http.get("/v1/dbs/default/tables/16/keys/k"))).isEqualTo("table_not_found");
  }
}
