package org.kvstore.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.kvstore.AlreadyExistsException;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStore;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.TableInfo;
import org.kvstore.server.command.Catalog;
import org.kvstore.server.http.HttpRouter.Execution;

/**
 * Databases and tables: list, create ({@code PUT}, 201 with {@code Location}), describe, drop
 * (a database with tables only with {@code ?force=true}).
 *
 * <p>Thread safety: thread-safe.
 */
final class CatalogRoutes {
  private final Catalog catalog;
  private final HttpTables tables;

  CatalogRoutes(Catalog catalog, HttpTables tables) {
    this.catalog = catalog;
    this.tables = tables;
  }

  void register(HttpRouter r) {
    r.add(HttpMethod.GET, "/v1/dbs", "dbs.get", Execution.WORKER, this::listDbs)
        .add(HttpMethod.GET, "/v1/dbs/{db}", "db.get", Execution.WORKER, this::getDb)
        .add(HttpMethod.PUT, "/v1/dbs/{db}", "db.put", Execution.WORKER, this::putDb)
        .add(HttpMethod.DELETE, "/v1/dbs/{db}", "db.delete", Execution.WORKER, this::deleteDb)
        .add(HttpMethod.GET, "/v1/dbs/{db}/tables", "tables.get", Execution.WORKER, this::listTables)
        .add(HttpMethod.GET, "/v1/dbs/{db}/tables/{table}", "table.get", Execution.WORKER, this::getTable)
        .add(HttpMethod.PUT, "/v1/dbs/{db}/tables/{table}", "table.put", Execution.WORKER, this::putTable)
        .add(HttpMethod.DELETE, "/v1/dbs/{db}/tables/{table}", "table.delete", Execution.WORKER, this::deleteTable);
  }

  private KVStore store() {
    return catalog.store();
  }

  HttpReply listDbs(HttpExchange ex) {
    ObjectNode doc = HttpReply.object();
    ArrayNode items = doc.putArray("items");
    for (String db : store().listDBs()) {
      items.addObject().put("name", db);
    }
    return HttpReply.json(HttpResponseStatus.OK, doc);
  }

  HttpReply getDb(HttpExchange ex) {
    String db = ex.name("db");
    return HttpReply.json(HttpResponseStatus.OK, dbDescriptor(db, tableNames(db)));
  }

  HttpReply putDb(HttpExchange ex) {
    String db = ex.name("db");
    if (ex.hasBody()) {
      JsonNode body = ex.json();
      if (!body.isObject()) {
        throw HttpProblem.invalid("the body must be a JSON object, like {\"properties\":{}}");
      }
      for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (!f.equals("properties")) {
          throw HttpProblem.invalid("unknown member '" + f + "'; a database takes only 'properties'");
        }
      }
      JsonNode props = body.path("properties");
      if (!props.isMissingNode() && !(props.isObject() && props.isEmpty())) {
        throw HttpProblem.invalid("databases have no properties (tables do); 'properties' must be {}");
      }
    }
    try {
      store().createDB(db);
    } catch (AlreadyExistsException e) {
      throw new HttpProblem(ProblemCode.DB_EXISTS, "database '" + db + "' already exists");
    }
    return HttpReply.json(HttpResponseStatus.CREATED, dbDescriptor(db, List.of()))
        .header(HttpHeaderNames.LOCATION, "/v1/dbs/" + db);
  }

  HttpReply deleteDb(HttpExchange ex) {
    String db = ex.name("db");
    boolean force = ex.queryBool("force");
    try {
      if (!catalog.dropDatabase(db, force)) {
        throw new HttpProblem(ProblemCode.DB_NOT_EMPTY,
            "database '" + db + "' has tables; drop them first or add ?force=true");
      }
    } catch (NoSuchDatabaseException e) {
      throw dbNotFound(db);
    }
    return HttpReply.empty(HttpResponseStatus.NO_CONTENT);
  }

  HttpReply listTables(HttpExchange ex) {
    String db = ex.name("db");
    ObjectNode doc = HttpReply.object();
    ArrayNode items = doc.putArray("items");
    for (String t : tableNames(db)) {
      try {
        items.addObject().put("name", t).put("engine", store().tableInfo(db, t).engine());
      } catch (NoSuchTableException dropped) {
        // dropped while listing
      }
    }
    return HttpReply.json(HttpResponseStatus.OK, doc);
  }

  HttpReply getTable(HttpExchange ex) {
    String db = ex.name("db");
    String table = ex.name("table");
    tables.table(db, table);
    TableInfo info;
    try {
      info = store().tableInfo(db, table);
    } catch (NoSuchTableException | NoSuchDatabaseException e) {
      throw new HttpProblem(ProblemCode.TABLE_NOT_FOUND, "table '" + table + "' does not exist in database '" + db + "'");
    }
    ObjectNode doc = tableDescriptor(info);
    ObjectNode stats = doc.putObject("stats");
    stats.put("keys", info.entryEstimate());
    stats.put("bytes", info.bytesOnDisk());
    ObjectNode engineStats = doc.putObject("engine_stats");
    new TreeMap<>(info.engineStats()).forEach(engineStats::put);
    return HttpReply.json(HttpResponseStatus.OK, doc);
  }

  HttpReply putTable(HttpExchange ex) {
    String db = ex.name("db");
    String table = ex.name("table");
    String engine = catalog.defaultEngine();
    Properties properties = new Properties();
    if (ex.hasBody()) {
      JsonNode body = ex.json();
      if (!body.isObject()) {
        throw HttpProblem.invalid("the body must be a JSON object, like {\"engine\":\"lsm\",\"properties\":{}}");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        switch (f.getKey()) {
          case "engine" -> {
            if (!f.getValue().isTextual()) {
              throw HttpProblem.invalid("engine must be a string");
            }
            engine = f.getValue().asText().toLowerCase(Locale.ROOT);
          }
          case "properties" -> {
            if (!f.getValue().isObject()) {
              throw HttpProblem.invalid("properties must be an object of names to values");
            }
            for (Iterator<Map.Entry<String, JsonNode>> p = f.getValue().fields(); p.hasNext(); ) {
              Map.Entry<String, JsonNode> e = p.next();
              if (e.getValue().isContainerNode() || e.getValue().isNull()) {
                throw HttpProblem.invalid("property '" + e.getKey() + "' must be a string, number or boolean");
              }
              properties.setProperty(e.getKey(), e.getValue().asText());
            }
          }
          default -> throw HttpProblem.invalid("unknown member '" + f.getKey() + "'; a table takes 'engine' and 'properties'");
        }
      }
    }
    if (!store().engines().contains(engine)) {
      throw new HttpProblem(ProblemCode.UNSUPPORTED_ENGINE,
          "engine '" + engine + "' is not available; available: " + String.join(", ", store().engines()));
    }
    try {
      catalog.createTable(db, table, engine, properties);
    } catch (NoSuchDatabaseException e) {
      throw dbNotFound(db);
    } catch (AlreadyExistsException e) {
      throw new HttpProblem(ProblemCode.TABLE_EXISTS, "table '" + table + "' already exists in database '" + db + "'");
    } catch (InvalidArgumentException e) {
      throw HttpProblem.invalid(e.getMessage());
    }
    TableInfo info = store().tableInfo(db, table);
    return HttpReply.json(HttpResponseStatus.CREATED, tableDescriptor(info))
        .header(HttpHeaderNames.LOCATION, "/v1/dbs/" + db + "/tables/" + table);
  }

  HttpReply deleteTable(HttpExchange ex) {
    String db = ex.name("db");
    String table = ex.name("table");
    try {
      catalog.dropTable(db, table);
    } catch (NoSuchDatabaseException e) {
      throw dbNotFound(db);
    } catch (NoSuchTableException e) {
      throw new HttpProblem(ProblemCode.TABLE_NOT_FOUND, "table '" + table + "' does not exist in database '" + db + "'");
    }
    return HttpReply.empty(HttpResponseStatus.NO_CONTENT);
  }

  private List<String> tableNames(String db) {
    try {
      return store().listTables(db);
    } catch (NoSuchDatabaseException e) {
      throw dbNotFound(db);
    }
  }

  private static ObjectNode dbDescriptor(String db, List<String> tableNames) {
    ObjectNode doc = HttpReply.object();
    doc.put("name", db);
    doc.putObject("properties");
    ArrayNode t = doc.putArray("tables");
    tableNames.forEach(t::add);
    return doc;
  }

  private static ObjectNode tableDescriptor(TableInfo info) {
    ObjectNode doc = HttpReply.object();
    doc.put("db", info.database());
    doc.put("table", info.table());
    doc.put("engine", info.engine());
    ObjectNode props = doc.putObject("properties");
    new TreeMap<>(info.properties()).forEach(props::put);
    if (info.durability() != null) {
      doc.put("durability", info.durability().name().toLowerCase(Locale.ROOT));
    }
    return doc;
  }

  private static HttpProblem dbNotFound(String db) {
    return new HttpProblem(ProblemCode.DB_NOT_FOUND, "database '" + db + "' does not exist");
  }
}
