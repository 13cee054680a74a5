package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.util.List;
import java.util.Locale;
import org.kvstore.Table;
import org.kvstore.server.command.BitmapCommands;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.RedisNumbers;

/**
 * The RESP bitmap commands: SETBIT, GETBIT, BITCOUNT and BITPOS, their specs, argument parsing
 * (in Redis' order, so the same bad request gets the same error) and replies, over the
 * protocol-neutral {@link BitmapCommands}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespBitmapCommands {
  private final Keyspace keyspace;
  private final BitmapCommands bitmaps;

  RespBitmapCommands(Keyspace keyspace, BitmapCommands bitmaps) {
    this.keyspace = keyspace;
    this.bitmaps = bitmaps;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("setbit", 4).flags(WRITE).keys(1, 1, 1)
            .doc("bitmap", "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.")
            .handler((s, r) -> {
              long offset = bitmaps.bitOffset(r.arg(2));
              if (!RedisNumbers.isLong(r.arg(3))) {
                throw new CommandException(BitmapCommands.BAD_BIT);
              }
              long bit = RedisNumbers.parseLong(r.arg(3));
              if (bit != 0 && bit != 1) {
                throw new CommandException(BitmapCommands.BAD_BIT);
              }
              return RespMessage.integer(bitmaps.setBit(t(s), r.arg(1), offset, (int) bit));
            }),
        command("getbit", 3).flags(READONLY | FAST).keys(1, 1, 1)
            .doc("bitmap", "Returns a bit value by offset.")
            .handler((s, r) -> RespMessage.integer(bitmaps.getBit(t(s), r.arg(1), bitmaps.bitOffset(r.arg(2))))),
        command("bitcount", -2).flags(READONLY).keys(1, 1, 1)
            .doc("bitmap", "Counts the number of set bits (population counting) in a string.")
            .handler(this::bitCount),
        command("bitpos", -3).flags(READONLY).keys(1, 1, 1)
            .doc("bitmap", "Finds the first set (1) or clear (0) bit in a string.")
            .handler(this::bitPos));
  }

  private Table t(RespSession s) {
    return s.table(keyspace);
  }

  /** {@code BITCOUNT key [start end [BYTE|BIT]]}. */
  private RespMessage bitCount(RespSession s, RespRequest r) {
    BitmapCommands.Range range = null;
    if (r.size() == 4 || r.size() == 5) {
      long start = RedisNumbers.parseLong(r.arg(2));
      long end = RedisNumbers.parseLong(r.arg(3));
      BitmapCommands.Unit unit = r.size() == 5 ? unit(r.arg(4)) : BitmapCommands.Unit.BYTE;
      range = new BitmapCommands.Range(start, end, unit, true);
    } else if (r.size() != 2) {
      throw new CommandException(CommandException.SYNTAX);
    }
    return RespMessage.integer(bitmaps.bitCount(t(s), r.arg(1), range));
  }

  /** {@code BITPOS key bit [start [end [BYTE|BIT]]]}. */
  private RespMessage bitPos(RespSession s, RespRequest r) {
    long bit = RedisNumbers.parseLong(r.arg(2));
    if (bit != 0 && bit != 1) {
      throw new CommandException("ERR The bit argument must be 1 or 0.");
    }
    BitmapCommands.Range range = null;
    if (r.size() >= 4 && r.size() <= 6) {
      long start = RedisNumbers.parseLong(r.arg(3));
      BitmapCommands.Unit unit = r.size() == 6 ? unit(r.arg(5)) : BitmapCommands.Unit.BYTE;
      boolean explicitEnd = r.size() >= 5;
      long end = explicitEnd ? RedisNumbers.parseLong(r.arg(4)) : -1;
      range = new BitmapCommands.Range(start, end, unit, explicitEnd);
    } else if (r.size() != 3) {
      throw new CommandException(CommandException.SYNTAX);
    }
    return RespMessage.integer(bitmaps.bitPos(t(s), r.arg(1), (int) bit, range));
  }

  private static BitmapCommands.Unit unit(byte[] arg) {
    return switch (str(arg).toLowerCase(Locale.ROOT)) {
      case "bit" -> BitmapCommands.Unit.BIT;
      case "byte" -> BitmapCommands.Unit.BYTE;
      default -> throw new CommandException(CommandException.SYNTAX);
    };
  }
}
