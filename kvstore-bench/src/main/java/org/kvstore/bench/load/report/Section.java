package org.kvstore.bench.load.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A part of a report: text, our tables and charts, and the seed's own tables beside them.
 *
 * <p>Thread safety: confined while it is built, then only read.
 */
public final class Section {
  private final String heading;
  private final List<String> paragraphs = new ArrayList<>();
  private final List<ResultTable> tables = new ArrayList<>();
  private final List<Chart> charts = new ArrayList<>();
  private final List<ResultTable> seedTables = new ArrayList<>();

  public Section(String heading) {
    this.heading = heading;
  }

  public Section text(String paragraph) {
    paragraphs.add(paragraph);
    return this;
  }

  public Section table(ResultTable t) {
    tables.add(t);
    return this;
  }

  public Section chart(Chart c) {
    charts.add(c);
    return this;
  }

  public Section seedTable(ResultTable t) {
    seedTables.add(t);
    return this;
  }

  public String heading() {
    return heading;
  }

  public List<String> paragraphs() {
    return paragraphs;
  }

  public List<ResultTable> tables() {
    return tables;
  }

  public List<Chart> charts() {
    return charts;
  }

  public List<ResultTable> seedTables() {
    return seedTables;
  }
}
