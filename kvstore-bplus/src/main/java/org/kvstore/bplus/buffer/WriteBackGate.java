package org.kvstore.bplus.buffer;

/**
 * What an eviction takes before writing a dirty page back, so that it never runs while a
 * checkpoint freezes the table (docs/format/bplus.md section 4, step 2).
 *
 * <p>Thread safety: implementations are thread-safe.
 */
public interface WriteBackGate {
  /** Enters without blocking; false when a checkpoint holds the gate. */
  boolean tryEnter();

  void exit();

  /** A gate that is always open (tests of the pool alone). */
  WriteBackGate OPEN =
      new WriteBackGate() {
        @Override
        public boolean tryEnter() {
          return true;
        }

        @Override
        public void exit() {}
      };
}
