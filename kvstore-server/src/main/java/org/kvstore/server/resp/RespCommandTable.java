package org.kvstore.server.resp;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The RESP commands by name: where a request's command is looked up, once per request
 * ({@link #resolve}), and what {@code COMMAND} lists.
 *
 * <p>Thread safety: immutable after construction.
 */
final class RespCommandTable {
  /** Sorted by name, for listings. */
  private final Map<String, RespCommandSpec> sorted;
  /** The same, hashed, for the lookup of every request. */
  private final Map<String, RespCommandSpec> byName;

  RespCommandTable(List<RespCommandSpec> specs) {
    Map<String, RespCommandSpec> all = new TreeMap<>();
    for (RespCommandSpec s : specs) {
      if (all.put(s.name(), s) != null) {
        throw new IllegalStateException("command " + s.name() + " is defined twice");
      }
    }
    this.sorted = Collections.unmodifiableMap(all);
    this.byName = Map.copyOf(all);
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
