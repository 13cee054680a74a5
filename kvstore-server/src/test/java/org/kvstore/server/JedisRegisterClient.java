package org.kvstore.server;

import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.Operation;
import org.kvstore.testkit.history.RegisterClient;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * A {@link RegisterClient} over one Jedis connection. Only INCR's "not an integer" error is a
 * result; any other exception (timeout, closed connection, unexpected reply) leaves the operation
 * indeterminate.
 */
final class JedisRegisterClient implements RegisterClient {
  private final Jedis jedis;

  /** Over {@code jedis}, which the caller owns (this client's {@link #close} closes it). */
  JedisRegisterClient(Jedis jedis) {
    this.jedis = jedis;
  }

  JedisRegisterClient(int port) {
    jedis = new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(2000).socketTimeoutMillis(10_000).build());
    try {
      jedis.ping(); // connect now, so that a refused connection is no operation at all
    } catch (RuntimeException e) {
      jedis.close();
      throw e;
    }
  }

  @Override
  public Object execute(Command command, String key, String argument) {
    switch (command) {
      case GET:
        return jedis.get(key);
      case SET:
        return acknowledged(jedis.set(key, argument));
      case SET_NX:
        return jedis.set(key, argument, SetParams.setParams().nx()) != null;
      case SET_XX:
        return jedis.set(key, argument, SetParams.setParams().xx()) != null;
      case DEL:
        return jedis.del(key);
      case INCR:
        try {
          return jedis.incr(key);
        } catch (JedisDataException e) {
          if (e.getMessage() != null && e.getMessage().contains("not an integer")) {
            return Operation.ErrorReply.NOT_AN_INTEGER;
          }
          throw e;
        }
      case APPEND:
        return jedis.append(key, argument);
      default:
        throw new IllegalArgumentException(command.toString());
    }
  }

  private static boolean acknowledged(String reply) {
    if (!"OK".equals(reply)) {
      throw new IllegalStateException("SET replied " + reply);
    }
    return true;
  }

  @Override
  public void close() {
    jedis.close();
  }
}
