package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.NoSpaceException;
import org.kvstore.NoSuchTableException;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.TransactionView;
import org.slf4j.LoggerFactory;

/** The one RESP error mapper: Redis' texts, and a log line for what the client does not see. */
class RespErrorsTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(RespErrors.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Level levelBefore;
  private final RespSession session = new RespSession(7, null, null, true);

  @BeforeEach
  void capture() {
    levelBefore = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
    logger.setLevel(levelBefore);
  }

  private static String text(RespMessage.ErrorReply e) {
    return e.text();
  }

  @Test
  void reply_commandException_itsTextAndNoLog() {
    assertThat(text(RespErrors.reply("incr", new CommandException(CommandException.NOT_INTEGER), session)))
        .isEqualTo("ERR value is not an integer or out of range");
    assertThat(logged.list).isEmpty();
  }

  @Test
  void reply_storeRefusal_errAndMessage_loggedAtDebug() {
    InvalidArgumentException e = new InvalidArgumentException("key", "must not be empty");
    assertThat(text(RespErrors.reply("set", e, session))).isEqualTo("ERR " + e.getMessage());
    assertThat(logged.list).singleElement().satisfies(ev -> assertThat(ev.getLevel()).isEqualTo(Level.DEBUG));
  }

  @Test
  void reply_noSuchTable_errAndMessage_forgetsTheConnectionsTable() {
    session.select(3, new TransactionView(null, Clock.systemUTC(), List.of(), new Entry[0]), false);
    NoSuchTableException e = new NoSuchTableException("default", "3");
    assertThat(text(RespErrors.reply("set", e, session))).isEqualTo("ERR " + e.getMessage());
    assertThat(session.cachedTable()).isNull();
  }

  @Test
  void reply_unexpectedException_internalErrorWithoutDetail_loggedWithStackTrace() {
    IllegalStateException bug = new IllegalStateException("secret detail");
    assertThat(text(RespErrors.reply("get", bug, session)))
        .isEqualTo("ERR internal error in 'get': IllegalStateException");
    assertThat(text(RespErrors.reply(null, bug, session)))
        .isEqualTo("ERR internal error: IllegalStateException");
    assertThat(logged.list).hasSize(2).allSatisfy(ev -> {
      assertThat(ev.getLevel()).isEqualTo(Level.WARN);
      assertThat(ev.getThrowableProxy()).isNotNull();
    });
  }

  @Test
  void reply_noSpace_misconfNamingTheDirectory() {
    NoSpaceException e = new NoSpaceException(java.nio.file.Path.of("/data/wal"), "wal: append failed",
        new java.io.IOException("No space left on device"));
    assertThat(text(RespErrors.reply("set", e, session)))
        .startsWith("MISCONF disk full: No space left on device in /data/wal")
        .doesNotContain("\r").doesNotContain("\n");
  }
}
