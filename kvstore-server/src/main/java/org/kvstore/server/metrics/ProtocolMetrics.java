package org.kvstore.server.metrics;

import java.util.function.LongSupplier;

/**
 * What {@code /metrics} reads of one protocol front end.
 *
 * @param protocol the {@code protocol} label: {@code resp}, {@code http}, {@code thrift}
 * @param requests its request counters
 * @param openConnections connections open now
 * @param acceptedConnections connections accepted since start
 * @param bytes the bytes its connections read and wrote
 *
 * <p>Thread safety: immutable; the suppliers are thread-safe.
 */
public record ProtocolMetrics(
    String protocol, RequestCounts requests, LongSupplier openConnections, LongSupplier acceptedConnections,
    ByteCounter bytes) {}
