package org.kvstore.server.thrift;

import org.apache.thrift.TException;
import org.kvstore.AlreadyExistsException;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchDatabaseException;
import org.kvstore.NoSuchTableException;
import org.kvstore.PreconditionFailedException;
import org.kvstore.thrift.AlreadyExists;
import org.kvstore.thrift.ErrorCode;
import org.kvstore.thrift.InvalidArgument;
import org.kvstore.thrift.NotFound;
import org.kvstore.thrift.PreconditionFailed;
import org.kvstore.thrift.Unavailable;

/**
 * The store's exceptions as the IDL's declared ones. A method that does not declare the mapped
 * exception lets it through as undeclared, which libthrift logs and answers with an
 * {@code INTERNAL_ERROR} application exception.
 *
 * <p>Thread safety: stateless.
 */
final class ThriftErrors {
  private ThriftErrors() {}

  static TException of(KVStoreException e) {
    if (e instanceof NoSuchDatabaseException) {
      return notFound(e.getMessage(), ErrorCode.DB_NOT_FOUND);
    }
    if (e instanceof NoSuchTableException) {
      return notFound(e.getMessage(), ErrorCode.TABLE_NOT_FOUND);
    }
    if (e instanceof InvalidArgumentException) {
      return invalid(e.getMessage(), ErrorCode.INVALID_ARGUMENT);
    }
    if (e instanceof AlreadyExistsException) {
      return new AlreadyExists(e.getMessage());
    }
    if (e instanceof PreconditionFailedException) {
      return new PreconditionFailed(e.getMessage());
    }
    // Everything else, a full disk (NoSpaceException) and a read-only store among them, is a
    // state of the server the client may retry later.
    return new Unavailable(e.getMessage());
  }

  static NotFound notFound(String message, ErrorCode code) {
    return new NotFound(message, code);
  }

  static InvalidArgument invalid(String message, ErrorCode code) {
    return new InvalidArgument(message, code);
  }
}
