package org.kvstore.bench.load.report;

import java.util.List;

/**
 * A table of a report: a title, headers and rows of already formatted cells, and a note below it.
 *
 * <p>Thread safety: immutable.
 */
public record ResultTable(String title, List<String> headers, List<List<String>> rows, String note) {
  public ResultTable {
    headers = List.copyOf(headers);
    rows = rows.stream().map(List::copyOf).toList();
    for (List<String> r : rows) {
      if (r.size() != headers.size()) {
        throw new IllegalArgumentException("table '" + title + "': a row has " + r.size() + " cells, not "
            + headers.size());
      }
    }
  }
}
