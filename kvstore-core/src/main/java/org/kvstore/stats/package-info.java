/**
 * Cheap recorders behind the store's statistics ({@link org.kvstore.DurabilityStats}); not part of
 * the API: callers read the snapshots the API returns.
 */
package org.kvstore.stats;
