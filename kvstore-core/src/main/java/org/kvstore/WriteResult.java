package org.kvstore;

/**
 * What a conditional write did.
 *
 * @param applied whether the write happened (false: its precondition did not hold, or a remove
 *     found no key)
 * @param version the key's version after the call: the new version when applied (0 after a
 *     remove), else the current one (0 when absent)
 * @param previous the entry before the write, when the write read it (a precondition,
 *     {@link PutOptions#keepExpiry}, {@link PutOptions#returnPrevious}, or any remove); {@code null}
 *     when the key was absent or the write did not read it
 *
 * <p>Thread safety: immutable by convention.
 */
public record WriteResult(boolean applied, long version, Entry previous) {

  /** Whether the write found no live entry (only meaningful when the write read the entry). */
  public boolean created() {
    return applied && previous == null;
  }
}
