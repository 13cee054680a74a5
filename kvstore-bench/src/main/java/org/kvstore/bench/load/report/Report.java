package org.kvstore.bench.load.report;

import java.util.ArrayList;
import java.util.List;

/**
 * What one command measured: its rows (the CSV), the sections of its Markdown report, the machine
 * and the exact command line.
 *
 * <p>Thread safety: confined while it is built, then only read.
 */
public final class Report {
  private final String name;
  private final String title;
  private final String command;
  private final MachineInfo machine;
  private final List<String> intro = new ArrayList<>();
  private final List<ResultRow> rows = new ArrayList<>();
  private final List<Section> sections = new ArrayList<>();

  public Report(String name, String title, String command, MachineInfo machine) {
    this.name = name;
    this.title = title;
    this.command = command;
    this.machine = machine;
  }

  public Report intro(String paragraph) {
    intro.add(paragraph);
    return this;
  }

  public Report rows(List<ResultRow> more) {
    rows.addAll(more);
    return this;
  }

  public Report section(Section s) {
    sections.add(s);
    return this;
  }

  public String name() {
    return name;
  }

  public String title() {
    return title;
  }

  public String command() {
    return command;
  }

  public MachineInfo machine() {
    return machine;
  }

  public List<String> intro() {
    return intro;
  }

  public List<ResultRow> rows() {
    return rows;
  }

  public List<Section> sections() {
    return sections;
  }
}
