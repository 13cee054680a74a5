package org.kvstore.cluster.slots;

/**
 * The hash slots {@code first} to {@code last}, both included.
 *
 * <p>Thread safety: immutable.
 */
public record SlotRange(int first, int last) {
  public SlotRange {
    if (first < 0 || last >= HashSlot.COUNT || first > last) {
      throw new IllegalArgumentException("slot range " + first + "-" + last + " is not within 0-"
          + (HashSlot.COUNT - 1) + " in order");
    }
  }

  public boolean contains(int slot) {
    return slot >= first && slot <= last;
  }

  @Override
  public String toString() {
    return first + "-" + last;
  }
}
