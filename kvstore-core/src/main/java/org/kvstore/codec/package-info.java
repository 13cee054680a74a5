/**
 * The byte-level building blocks of every persisted format: unsigned LEB128 varints
 * ({@link org.kvstore.codec.Varints}), fixed-width integers ({@link org.kvstore.codec.FixedLE}, and
 * {@link org.kvstore.codec.FixedBE} for ordering key prefixes) and CRC32C with the log's masked
 * form ({@link org.kvstore.codec.Crc32c}); and binary keys rendered for error messages
 * ({@link org.kvstore.codec.Keys}), which every module's errors share. The formats themselves are
 * in docs/format/*.md and their {@code ...Format} classes; this package knows no format. Engines
 * may depend on it.
 */
package org.kvstore.codec;
