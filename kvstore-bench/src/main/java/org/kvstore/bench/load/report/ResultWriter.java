package org.kvstore.bench.load.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a report's rows as {@code results.csv} (one line per row, numbers as {@link Numbers} prints
 * them) and {@code results.json} (the rows, the machine and the command).
 *
 * <p>Thread safety: stateless.
 */
public final class ResultWriter {
  public static final String CSV = "results.csv";
  public static final String JSON = "results.json";
  public static final List<String> COLUMNS = List.of("experiment", "system", "params", "op", "repeats", "ops",
      "seconds", "ops_per_sec", "ops_per_sec_min", "ops_per_sec_max", "mean_ms", "p50_ms", "p75_ms", "p99_ms",
      "p999_ms", "max_ms", "misses");

  private ResultWriter() {}

  public static void write(Report report, Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder(String.join(",", COLUMNS)).append('\n');
    for (ResultRow r : report.rows()) {
      csv.append(String.join(",", cells(r))).append('\n');
    }
    Files.writeString(dir.resolve(CSV), csv, StandardCharsets.UTF_8);

    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode doc = json.createObjectNode();
    doc.put("name", report.name()).put("title", report.title()).put("command", report.command());
    doc.set("machine", json.valueToTree(report.machine()));
    ArrayNode rows = doc.putArray("rows");
    for (ResultRow r : report.rows()) {
      ObjectNode o = rows.addObject();
      List<String> cells = cells(r);
      for (int i = 0; i < COLUMNS.size(); i++) {
        o.put(COLUMNS.get(i), cells.get(i));
      }
      o.set("params", json.valueToTree(r.params()));
    }
    json.writeValue(dir.resolve(JSON).toFile(), doc);
  }

  /** The CSV cells of a row, in {@link #COLUMNS} order. */
  public static List<String> cells(ResultRow r) {
    return List.of(r.experiment(), r.system(), r.paramsText(), r.op(), Integer.toString(r.repeats()),
        Long.toString(r.ops()), Numbers.seconds(r.seconds()), Numbers.rate(r.opsPerSecond()),
        Numbers.rate(r.opsPerSecondMin()), Numbers.rate(r.opsPerSecondMax()), Numbers.millis(r.meanMs()),
        Numbers.millis(r.p50Ms()), Numbers.millis(r.p75Ms()), Numbers.millis(r.p99Ms()), Numbers.millis(r.p999Ms()),
        Numbers.millis(r.maxMs()), Long.toString(r.misses()));
  }
}
