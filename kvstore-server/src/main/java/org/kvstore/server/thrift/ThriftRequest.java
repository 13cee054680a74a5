package org.kvstore.server.thrift;

/**
 * One complete Thrift call message as it came off a connection (without its frame length), checked
 * by {@link ThriftMessageDecoder}: well formed, one message, nesting within bounds.
 *
 * @param format the connection's transport and protocol
 * @param method the called method's name
 * @param message the message bytes, owned by the request
 *
 * <p>Thread safety: immutable by convention (the array is not modified after decoding).
 */
public record ThriftRequest(ThriftWireFormat format, String method, byte[] message) {}
