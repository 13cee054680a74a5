package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of a Prometheus text exposition (format 0.0.4), parsed line by line: no Java parser of
 * the format is on the test classpath (prometheus_client parses it in the Python client test).
 * Comments are skipped; label values may hold escaped quotes.
 */
final class PrometheusText {
  /** One sample line: {@code name{labels} value}. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)(?: \\d+)?$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

  private final List<Sample> samples;

  private PrometheusText(List<Sample> samples) {
    this.samples = samples;
  }

  static PrometheusText parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      assertThat(m.matches()).as("a sample line: %s", line).isTrue();
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        int end = 0;
        while (l.find() && l.start() == end) {
          labels.put(l.group(1), l.group(2));
          end = l.end();
        }
        assertThat(end).as("labels of %s", line).isEqualTo(m.group(2).length());
      }
      out.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
    }
    return new PrometheusText(out);
  }

  /** The samples named {@code name} whose labels include every pair of {@code labels}. */
  List<Sample> samples(String name, String... labels) {
    List<Sample> out = new ArrayList<>();
    for (Sample s : samples) {
      if (!s.name().equals(name)) {
        continue;
      }
      boolean match = true;
      for (int i = 0; i < labels.length; i += 2) {
        match &= labels[i + 1].equals(s.labels().get(labels[i]));
      }
      if (match) {
        out.add(s);
      }
    }
    return out;
  }

  /** The value of the one sample named {@code name} with {@code labels}; fails when there is not exactly one. */
  double value(String name, String... labels) {
    List<Sample> found = samples(name, labels);
    assertThat(found).as("samples %s %s", name, List.of(labels)).hasSize(1);
    return found.get(0).value();
  }

  /** The sum of the samples named {@code name} with {@code labels}; fails when there is none. */
  double sum(String name, String... labels) {
    List<Sample> found = samples(name, labels);
    assertThat(found).as("samples %s %s", name, List.of(labels)).isNotEmpty();
    return found.stream().mapToDouble(Sample::value).sum();
  }
}
