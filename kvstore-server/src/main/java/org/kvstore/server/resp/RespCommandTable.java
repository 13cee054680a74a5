package org.kvstore.server.resp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The RESP commands by name: where a request's command is looked up, once per request
 * ({@link #resolve}), and what {@code COMMAND} lists. It numbers the commands
 * ({@link RespCommandSpec#id()}, in name order) and holds their {@link RespCommandStats}.
 *
 * <p>Thread safety: immutable after construction.
 */
final class RespCommandTable {
  /** Sorted by name, for listings. */
  private final Map<String, RespCommandSpec> sorted;
  /** The same, hashed, for the lookup of every request. */
  private final Map<String, RespCommandSpec> byName;

  private final RespCommandStats stats;

  RespCommandTable(List<RespCommandSpec> specs) {
    Map<String, RespCommandSpec> named = new TreeMap<>();
    for (RespCommandSpec s : specs) {
      if (named.put(s.name(), s) != null) {
        throw new IllegalStateException("command " + s.name() + " is defined twice");
      }
    }
    Map<String, RespCommandSpec> all = new TreeMap<>();
    List<RespCommandSpec> numbered = new ArrayList<>(named.size());
    for (RespCommandSpec s : named.values()) {
      RespCommandSpec n = s.withId(numbered.size());
      numbered.add(n);
      all.put(n.name(), n);
    }
    this.sorted = Collections.unmodifiableMap(all);
    this.byName = Map.copyOf(all);
    this.stats = new RespCommandStats(List.copyOf(numbered));
  }

  /** The counters of these commands. */
  RespCommandStats stats() {
    return stats;
  }

  /** Looks the command of {@code r} up, unless it was already; see {@link RespRequest#spec()}. */
  void resolve(RespRequest r) {
    if (!r.resolved()) {
      r.resolve(byName.get(r.name()));
    }
  }

  /** The command named {@code name} (lower case), or null. */
  RespCommandSpec get(String name) {
    return byName.get(name);
  }

  /** Every command, by lower-case name, sorted. */
  Map<String, RespCommandSpec> all() {
    return sorted;
  }
}
