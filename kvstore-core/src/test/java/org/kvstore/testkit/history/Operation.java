package org.kvstore.testkit.history;

import java.util.Objects;

/**
 * One operation of a history: who ran it ({@code process}), on which key, with which command and
 * argument, when it was invoked and when its reply arrived ({@link System#nanoTime()} of one JVM,
 * so all processes share one clock), and what it returned.
 *
 * <p>The status follows Jepsen: {@link Status#OK} completed with a result the checker verifies;
 * {@link Status#FAIL} definitely had no effect (it is left out of the check); {@link Status#INFO}
 * is indeterminate (a timeout, a lost connection, a server killed under it): it may or may not
 * have taken effect, at any time after its invocation, and its result is unknown. Its
 * {@code completeNanos} is {@link #NEVER}.
 *
 * <p>Thread safety: immutable.
 *
 * @param id unique within a history, in invocation order
 * @param argument the value to set or append, {@code null} for commands without one
 * @param result see {@link Command} for the type per command; {@code null} for FAIL and INFO
 */
public record Operation(int id, int process, String key, Command command, String argument,
    long invokeNanos, long completeNanos, Status status, Object result) {

  /** The completion time of an indeterminate operation: after everything else. */
  public static final long NEVER = Long.MAX_VALUE;

  public enum Status { OK, FAIL, INFO }

  /** A definite error reply that is part of the result (it tells what the value was). */
  public enum ErrorReply { NOT_AN_INTEGER }

  public Operation {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(status, "status");
    if (command.hasArgument() != (argument != null)) {
      throw new IllegalArgumentException(command + " with argument " + argument);
    }
    if (status == Status.INFO && completeNanos != NEVER) {
      throw new IllegalArgumentException("an indeterminate operation completes NEVER: " + completeNanos);
    }
    if (status != Status.INFO && completeNanos < invokeNanos) {
      throw new IllegalArgumentException("completes before its invocation: " + invokeNanos + " > " + completeNanos);
    }
  }

  /** A completed operation. */
  public static Operation ok(int id, int process, String key, Command command, String argument,
      long invokeNanos, long completeNanos, Object result) {
    return new Operation(id, process, key, command, argument, invokeNanos, completeNanos, Status.OK, result);
  }

  /** An indeterminate operation. */
  public static Operation info(int id, int process, String key, Command command, String argument,
      long invokeNanos) {
    return new Operation(id, process, key, command, argument, invokeNanos, NEVER, Status.INFO, null);
  }

  /** This operation turned indeterminate (its reply not waited for). */
  public Operation asInfo() {
    return new Operation(id, process, key, command, argument, invokeNanos, NEVER, Status.INFO, null);
  }

  /** One line: {@code p3 INCR k -> 5} with times relative to {@code originNanos}, in microseconds. */
  public String describe(long originNanos) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("[%9.1f .. ", (invokeNanos - originNanos) / 1000.0));
    if (completeNanos == NEVER) {
      sb.append("     never");
    } else {
      sb.append(String.format("%9.1f", (completeNanos - originNanos) / 1000.0));
    }
    sb.append(" us] p").append(process).append(' ').append(command);
    if (argument != null) {
      sb.append(' ').append(argument);
    }
    switch (status) {
      case OK:
        sb.append(" -> ").append(result instanceof String ? "\"" + result + "\"" : String.valueOf(result));
        break;
      case FAIL:
        sb.append(" -> failed (no effect)");
        break;
      default:
        sb.append(" -> ? (indeterminate)");
        break;
    }
    return sb.toString();
  }
}
