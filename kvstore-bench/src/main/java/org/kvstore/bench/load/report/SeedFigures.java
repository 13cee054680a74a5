package org.kvstore.bench.load.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A seed document's own figures, copied into the resource {@code /seeds/<name>.tsv}: {@code #}
 * comment lines (the source and its machine), then tables, each a {@code ## id | title} line, a
 * tab-separated header and tab-separated rows.
 *
 * <p>Thread safety: stateless.
 */
public final class SeedFigures {
  private SeedFigures() {}

  /** The tables of seed {@code name} by id, in file order; the comments become each table's note. */
  public static Map<String, ResultTable> load(String name) {
    String resource = "/seeds/" + name + ".tsv";
    String text;
    try (InputStream in = SeedFigures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no seed figures " + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    StringBuilder source = new StringBuilder();
    Map<String, ResultTable> tables = new LinkedHashMap<>();
    String id = null;
    String title = null;
    List<String> headers = null;
    List<List<String>> rows = new ArrayList<>();
    for (String line : (text + "\n## end | end").split("\n")) {
      if (line.startsWith("## ")) {
        if (id != null) {
          tables.put(id, new ResultTable(title, headers, rows, source.toString().trim()));
        }
        String[] h = line.substring(3).split("\\|", 2);
        id = h[0].trim();
        title = h[1].trim();
        headers = null;
        rows = new ArrayList<>();
      } else if (line.startsWith("#")) {
        source.append(line.substring(1).trim()).append(' ');
      } else if (!line.isBlank() && id != null) {
        List<String> cells = Arrays.asList(line.split("\t", -1));
        if (headers == null) {
          headers = cells;
        } else {
          rows.add(cells);
        }
      }
    }
    return tables;
  }
}
