package org.kvstore.bench.load.preset;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.bench.load.driver.StoreSizes;
import org.kvstore.bench.load.report.Report;
import org.kvstore.bench.load.report.ResultRow;
import org.kvstore.bench.load.report.Section;
import org.kvstore.bench.load.report.Summaries;
import org.kvstore.bench.load.run.Measurement;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.Workload;

/**
 * A workload declared on the command line, run against each target at each thread count: per
 * target and thread count a fresh store (or the given server), the records preloaded, then the
 * measured runs.
 *
 * <p>Thread safety: one run at a time.
 */
public final class WorkloadPreset implements Preset {
  private final Workload workload;
  private final List<Target> targets;
  private final RunBounds bounds;

  public WorkloadPreset(Workload workload, List<Target> targets, RunBounds bounds) {
    this.workload = workload;
    this.targets = List.copyOf(targets);
    this.bounds = bounds;
  }

  @Override
  public String name() {
    return workload.name();
  }

  @Override
  public String title() {
    return "Workload " + workload.name();
  }

  @Override
  public void run(PresetContext ctx, Report report) throws Exception {
    List<Integer> threads = ctx.threadsOr(List.of(workload.threads()));
    List<ResultRow> rows = new ArrayList<>();
    List<String> systems = new ArrayList<>();
    for (Target target : targets) {
      for (int t : threads) {
        Workload w = workload.toBuilder().threads(t).build();
        List<Measurement> ms = new ArrayList<>();
        String system = target.spec();
        for (int r = 0; r < ctx.repeat(); r++) {
          try (Target.Opened o = target.open(ctx.freshDir("run"), w.durability(), ctx.sizesOr(StoreSizes.SMALL))) {
            system = o.driver().name();
            if (w.preload()) {
              ctx.runner().preload(o.driver(), w);
            }
            ms.add(ctx.runner().measure(o.driver(), w, bounds));
          }
        }
        if (!systems.contains(system)) {
          systems.add(system);
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("threads", Integer.toString(t));
        rows.addAll(Summaries.rows(workload.name(), system, params, ms));
      }
    }
    report.rows(rows);
    report.intro(workload.describe() + ". Bounds: " + (bounds.byOps() ? bounds.ops() + " operations"
        : bounds.duration().toMillis() + " ms") + (bounds.hasWarmup() ? " after a warm-up" : "")
        + (workload.isRateLimited() ? "; latencies from each request's intended start (coordinated omission "
            + "corrected)" : "") + ". Repetitions: " + ctx.repeat() + ".");
    Section s = new Section("Results");
    for (String system : systems) {
      for (String op : rows.stream().filter(r -> r.system().equals(system)).map(ResultRow::op).distinct().toList()) {
        s.table(LatencyTables.table(system + " " + op, "threads",
            rows.stream().filter(r -> r.system().equals(system) && r.op().equals(op)).toList(), ""));
      }
    }
    String op = rows.stream().anyMatch(r -> r.op().equals("all")) ? "all" : rows.get(0).op();
    s.chart(LatencyTables.chart(workload.name() + "-ops", "ops/s against threads (" + op + ")", "threads", "ops/s",
        systems, rows, r -> r.op().equals(op), ResultRow::opsPerSecond, false));
    s.chart(LatencyTables.chart(workload.name() + "-p99", "p99 latency against threads (" + op + ")", "threads",
        "p99 ms", systems, rows, r -> r.op().equals(op), ResultRow::p99Ms, false));
    report.section(s);
  }
}
