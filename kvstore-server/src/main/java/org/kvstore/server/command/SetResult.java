package org.kvstore.server.command;

/**
 * What a SET ({@link StringCommands#set}) did.
 *
 * @param written whether the value was written (false: its condition did not hold)
 * @param old the value before, or null when the key was absent; only filled in when the options
 *     asked for it ({@link SetOptions#returnOld()}) or the SET was conditional
 *
 * <p>Thread safety: immutable (the array belongs to the caller).
 */
public record SetResult(boolean written, byte[] old) {
  /** A plain SET's result: written, no old value read. */
  public static final SetResult WRITTEN = new SetResult(true, null);
}
