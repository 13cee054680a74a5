package org.kvstore.cluster;

import org.kvstore.KVStoreException;

/**
 * A cluster operation failed: no quorum in time, the node stopped, or Raft refused the request. A
 * write that fails this way may or may not have been committed (indeterminate), unless the subclass
 * says otherwise.
 */
public class ClusterException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public ClusterException(String message) {
    super(message);
  }

  public ClusterException(String message, Throwable cause) {
    super(message, cause);
  }
}
