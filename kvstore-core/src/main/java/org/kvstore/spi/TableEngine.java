package org.kvstore.spi;

import java.io.IOException;
import java.util.List;

/**
 * A table engine, found by {@link java.util.ServiceLoader} under its {@link #name()} (matched
 * case-insensitively). Register an implementation in
 * {@code META-INF/services/org.kvstore.spi.TableEngine}.
 *
 * <p>Each open store loads instances of its own, so an engine may hold what the store's tables of
 * that engine share (the {@code lsm} engine's block cache); everything else lives in the tables.
 *
 * <p>Thread safety: implementations are thread-safe; {@link #open} may be called concurrently.
 */
public interface TableEngine {

  /** The engine's name, lower case, for example {@code lsm} or {@code bplus}. */
  String name();

  /** Whether tables of this engine keep their data across a restart. */
  boolean durable();

  /** Every property a table of this engine accepts, with its default and range. */
  List<PropertySpec<?>> properties();

  /**
   * Opens the table in {@code context.directory()}, creating its files when the directory is empty.
   *
   * @throws IOException if the files cannot be read or created
   * @throws org.kvstore.CorruptionException if the files are damaged
   */
  EngineTable open(EngineContext context) throws IOException;
}
