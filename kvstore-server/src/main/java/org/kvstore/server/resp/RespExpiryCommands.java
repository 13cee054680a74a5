package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.util.List;
import java.util.Locale;
import org.kvstore.Table;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.ExpiryCommands;
import org.kvstore.server.command.ExpiryCommands.Condition;
import org.kvstore.server.command.ExpiryCommands.GetExpiry;
import org.kvstore.server.command.ExpiryCommands.TtlForm;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.SetOptions;
import org.kvstore.server.command.StringCommands;

/**
 * The RESP expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT ({@code NX}, {@code XX},
 * {@code GT}, {@code LT}), TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST, SETEX, PSETEX and GETEX:
 * their specs, argument parsing in Redis' order and with its error texts, and replies, over the
 * protocol-neutral {@link ExpiryCommands} and {@link StringCommands}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespExpiryCommands {
  private final Keyspace keyspace;
  private final ExpiryCommands expiry;
  private final StringCommands strings;

  RespExpiryCommands(Keyspace keyspace, ExpiryCommands expiry, StringCommands strings) {
    this.keyspace = keyspace;
    this.expiry = expiry;
    this.strings = strings;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("expire", -3).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("keyspace", "Sets the expiration time of a key in seconds.")
            .handler((s, r) -> expire(s, r, true, true)),
        command("pexpire", -3).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("keyspace", "Sets the expiration time of a key in milliseconds.")
            .handler((s, r) -> expire(s, r, false, true)),
        command("expireat", -3).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("keyspace", "Sets the expiration time of a key to a Unix timestamp.")
            .handler((s, r) -> expire(s, r, true, false)),
        command("pexpireat", -3).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("keyspace", "Sets the expiration time of a key to a Unix milliseconds timestamp.")
            .handler((s, r) -> expire(s, r, false, false)),
        command("ttl", 2).flags(READONLY | FAST).keys(1, 1, 1)
            .doc("keyspace", "Returns the expiration time in seconds of a key.")
            .handler((s, r) -> ttl(s, r, TtlForm.SECONDS_LEFT)),
        command("pttl", 2).flags(READONLY | FAST).keys(1, 1, 1)
            .doc("keyspace", "Returns the expiration time in milliseconds of a key.")
            .handler((s, r) -> ttl(s, r, TtlForm.MILLIS_LEFT)),
        command("expiretime", 2).flags(READONLY | FAST).keys(1, 1, 1)
            .doc("keyspace", "Returns the expiration time of a key as a Unix timestamp.")
            .handler((s, r) -> ttl(s, r, TtlForm.SECONDS_AT)),
        command("pexpiretime", 2).flags(READONLY | FAST).keys(1, 1, 1)
            .doc("keyspace", "Returns the expiration time of a key as a Unix milliseconds timestamp.")
            .handler((s, r) -> ttl(s, r, TtlForm.MILLIS_AT)),
        command("persist", 2).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("keyspace", "Removes the expiration time of a key.")
            .handler((s, r) -> RespMessage.integer(expiry.persist(t(s), r.arg(1)) ? 1 : 0)),
        command("setex", 4).flags(WRITE).keys(1, 1, 1)
            .doc("string", "Sets the string value and expiration time of a key.")
            .handler((s, r) -> setWithExpiry(s, r, true, "setex")),
        command("psetex", 4).flags(WRITE).keys(1, 1, 1)
            .doc("string", "Sets both string value and expiration time in milliseconds of a key.")
            .handler((s, r) -> setWithExpiry(s, r, false, "psetex")),
        command("getex", -2).flags(WRITE | FAST).keys(1, 1, 1)
            .doc("string", "Returns the string value of a key after setting its expiration time.")
            .handler(this::getex));
  }

  private Table t(RespSession s) {
    return s.table(keyspace);
  }

  /**
   * {@code EXPIRE key time [NX|XX|GT|LT ...]} and its siblings ({@code seconds}: EXPIRE, EXPIREAT;
   * {@code relative}: EXPIRE, PEXPIRE): the options are checked before the time, as Redis does.
   */
  private RespMessage expire(RespSession s, RespRequest r, boolean seconds, boolean relative) {
    boolean nx = false;
    boolean xx = false;
    boolean gt = false;
    boolean lt = false;
    for (int i = 3; i < r.size(); i++) {
      String opt = str(r.arg(i));
      switch (opt.toUpperCase(Locale.ROOT)) {
        case "NX" -> nx = true;
        case "XX" -> xx = true;
        case "GT" -> gt = true;
        case "LT" -> lt = true;
        default -> throw new CommandException("ERR Unsupported option " + opt);
      }
    }
    if (nx && (xx || gt || lt)) {
      throw new CommandException("ERR NX and XX, GT or LT options at the same time are not compatible");
    }
    if (gt && lt) {
      throw new CommandException("ERR GT and LT options at the same time are not compatible");
    }
    long value = RedisNumbers.parseLong(r.arg(2));
    long basetime = relative ? expiry.clock().millis() : 0;
    long when = ExpiryCommands.expireTime(value, seconds, basetime, r.name());
    return RespMessage.integer(expiry.expire(t(s), r.arg(1), when, new Condition(nx, xx, gt, lt)) ? 1 : 0);
  }

  private RespMessage ttl(RespSession s, RespRequest r, TtlForm form) {
    return RespMessage.integer(expiry.timeToLive(t(s), r.arg(1), form));
  }

  /** {@code SETEX key seconds value}, {@code PSETEX key milliseconds value}. */
  private RespMessage setWithExpiry(RespSession s, RespRequest r, boolean seconds, String name) {
    long when = ExpiryCommands.setExpiryTime(r.arg(2), seconds, true, expiry.clock().millis(), name);
    strings.set(t(s), r.arg(1), r.arg(3), SetOptions.expiringAt(when));
    return RespMessage.OK;
  }

  /**
   * {@code GETEX key [EX s|PX ms|EXAT t|PXAT t|PERSIST]}, parsed as Redis'
   * {@code parseExtendedStringArgumentsOrReply} does for it (SET's other options are syntax errors).
   */
  private RespMessage getex(RespSession s, RespRequest r) {
    GetExpiry option = GetExpiry.NONE;
    byte[] time = null;
    for (int i = 2; i < r.size(); i++) {
      String opt = str(r.arg(i)).toUpperCase(Locale.ROOT);
      boolean hasNext = i + 1 < r.size();
      switch (opt) {
        case "PERSIST" -> {
          if (option != GetExpiry.NONE && option != GetExpiry.PERSIST) {
            throw new CommandException(CommandException.SYNTAX);
          }
          option = GetExpiry.PERSIST;
        }
        case "EX", "PX", "EXAT", "PXAT" -> {
          GetExpiry o = GetExpiry.valueOf(opt);
          if ((option != GetExpiry.NONE && option != o) || !hasNext) {
            throw new CommandException(CommandException.SYNTAX);
          }
          option = o;
          time = r.arg(++i);
        }
        default -> throw new CommandException(CommandException.SYNTAX);
      }
    }
    return RespMessage.bulkOrNull(expiry.getAndExpire(t(s), r.arg(1), option, time));
  }
}
