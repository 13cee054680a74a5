package org.kvstore.server.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * One command: its name, Redis arity (n: exactly n arguments including the name; -n: at least n),
 * flags, documentation and handler; for a container command ({@code CLIENT}, {@code CONFIG},
 * {@code COMMAND}) the lower-case names of its subcommands, which {@code INFO commandstats} counts
 * apart ({@code config|get}); and its {@code id}: its index in the {@link RespCommandTable} (-1
 * before the table numbered it), by which {@link RespCommandStats} counts its calls.
 *
 * <p>Thread safety: immutable.
 */
record RespCommandSpec(
    String name, int arity, int flags, String group, String summary,
    int firstKey, int lastKey, int step, List<String> subcommands, Handler handler, int id) {

  /** Changes data: with sync durability it waits on an fsync, so it runs on a worker. */
  static final int WRITE = 1;
  static final int READONLY = 1 << 1;
  /** May take long (scans a table, changes the catalog): always runs on a worker. */
  static final int SLOW = 1 << 2;
  /** Allowed before authentication. */
  static final int NOAUTH = 1 << 3;
  static final int FAST = 1 << 4;
  static final int ADMIN = 1 << 5;
  /** Connection state only: always runs on the event loop. */
  static final int CONNECTION = 1 << 6;
  /**
   * Refused inside {@code MULTI} (the transaction is then discarded at {@code EXEC}): writes the
   * table beyond the keys its arguments name (FLUSHDB, FLUSHALL), or changes what the connection
   * addresses, how it talks or the catalog (SELECT, KV.USE, HELLO, AUTH, KV.CREATE, KV.DROP). A
   * transaction writes only the keys its commands name, locked for it; see
   * {@link RespTransactionCommands}.
   */
  static final int NO_MULTI = 1 << 7;
  /** Runs at once inside {@code MULTI} instead of being queued: MULTI, EXEC, DISCARD, WATCH, QUIT, RESET. */
  static final int NOT_QUEUED = 1 << 8;

  /**
   * Executes one request: parses its arguments, calls the command's semantics and builds the reply.
   * A failure is thrown, and {@link RespErrors} turns it into the error reply. Thread safety:
   * implementations are thread-safe.
   */
  @FunctionalInterface
  interface Handler {
    RespMessage handle(RespSession session, RespRequest request);
  }

  /** This spec numbered {@code id}. */
  RespCommandSpec withId(int newId) {
    return new RespCommandSpec(
        name, arity, flags, group, summary, firstKey, lastKey, step, subcommands, handler, newId);
  }

  boolean has(int flag) {
    return (flags & flag) != 0;
  }

  boolean arityOk(int argc) {
    return arity >= 0 ? argc == arity : argc >= -arity;
  }

  /** Whether the command names the keys it touches in its arguments ({@link #keyArgs}). */
  boolean hasKeys() {
    return firstKey > 0;
  }

  /**
   * The key arguments of {@code r} by the spec's key positions: from {@code firstKey} to
   * {@code lastKey} (negative: counted from the end, -1 being the last argument) every {@code step}
   * arguments; empty for a command without keys. REQUIRES: the arity was checked.
   */
  List<byte[]> keyArgs(RespRequest r) {
    if (firstKey <= 0) {
      return List.of();
    }
    int last = lastKey < 0 ? r.size() + lastKey : Math.min(lastKey, r.size() - 1);
    List<byte[]> keys = new ArrayList<>();
    for (int i = firstKey; i <= last; i += step) {
      keys.add(r.arg(i));
    }
    return keys;
  }

  /** Flag names as {@code COMMAND INFO} lists them. */
  List<String> flagNames() {
    List<String> out = new ArrayList<>();
    if (has(WRITE)) {
      out.add("write");
      out.add("denyoom");
    }
    if (has(READONLY)) {
      out.add("readonly");
    }
    if (has(ADMIN)) {
      out.add("admin");
    }
    if (has(NOAUTH)) {
      out.add("no_auth");
    }
    if (has(FAST)) {
      out.add("fast");
    }
    if (has(CONNECTION)) {
      out.add("loading");
      out.add("stale");
    }
    if (has(NO_MULTI)) {
      out.add("no_multi");
    }
    return out;
  }

  static Builder command(String name, int arity) {
    return new Builder(name, arity);
  }

  /** Fluent construction of a spec. Thread safety: confined. */
  static final class Builder {
    private final String name;
    private final int arity;
    private int flags;
    private String group = "generic";
    private String summary = "";
    private int firstKey;
    private int lastKey;
    private int step;
    private List<String> subcommands = List.of();

    private Builder(String name, int arity) {
      this.name = name;
      this.arity = arity;
    }

    Builder flags(int f) {
      flags |= f;
      return this;
    }

    Builder doc(String group, String summary) {
      this.group = group;
      this.summary = summary;
      return this;
    }

    Builder keys(int first, int last, int step) {
      this.firstKey = first;
      this.lastKey = last;
      this.step = step;
      return this;
    }

    /** The subcommands a container command's handler implements, lower case. */
    Builder subcommands(String... names) {
      this.subcommands = List.of(names);
      return this;
    }

    RespCommandSpec handler(Handler h) {
      return new RespCommandSpec(
          name, arity, flags, group, summary, firstKey, lastKey, step, subcommands, h, -1);
    }
  }
}
