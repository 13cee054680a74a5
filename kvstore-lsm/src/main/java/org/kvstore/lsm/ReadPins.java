package org.kvstore.lsm;

import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.kvstore.lsm.version.Version;

/**
 * Per-thread cached pins on a table's current {@link Version}, so that a point read does not
 * update the version's shared reference count: two atomic updates of one cache line that every
 * reading thread writes (see docs/decisions/0016-read-pins.md). This is RocksDB's thread-local
 * SuperVersion cache, for the version only (memtables are heap objects and need no pin).
 *
 * <p>Each reading thread has a slot that holds nothing, {@link #IN_USE} while the thread reads, or
 * a version the slot holds one pin on. A read swaps {@code IN_USE} in ({@link #enter}), keeps the
 * cached version when it is still current or else pins the current one, and swaps its version back
 * when done ({@link #exit}). Whoever installs a new version empties every slot afterwards
 * ({@link #scrape}) and releases the pins it finds there; a read that finds its slot emptied when
 * it is done releases its pin itself. So each pin is released exactly once, and a replaced version
 * loses its cached pins at the install that replaces it (or when the reads in flight end).
 *
 * <p>Thread safety: lock-free. Each slot is an {@link AtomicReference} written by its own thread
 * and by scrapes; the slot registry is a concurrent set. A slot of a thread that has ended is
 * dropped by the next scrape, after its pin is released.
 */
final class ReadPins {
  /** The content of a slot while its thread reads. */
  private static final Object IN_USE = new Object();

  private final Set<Slot> slots = ConcurrentHashMap.newKeySet();
  private final ThreadLocal<Slot> local = ThreadLocal.withInitial(this::register);

  /** One thread's slot. Thread safety: an atomic reference. */
  static final class Slot extends AtomicReference<Object> {
    private static final long serialVersionUID = 1L;
    private final transient WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
    /** What {@link #enter} took out of the slot: confined to the owner thread. */
    private transient Object taken;

    boolean ownerGone() {
      Thread t = owner.get();
      return t == null || !t.isAlive();
    }
  }

  private Slot register() {
    Slot s = new Slot();
    slots.add(s);
    return s;
  }

  /** Starts a read on this thread: its slot, now {@code IN_USE}. Pair with {@link #exit}. */
  Slot enter() {
    Slot s = local.get();
    s.taken = s.getAndSet(IN_USE);
    return s;
  }

  /**
   * The current version, pinned for the read started by {@link #enter}: the slot's cached version
   * when {@code current} is it, else a new pin (the stale cached pin, if any, is released).
   *
   * @return the pinned version, or {@code null} when {@code current} has just been replaced and
   *     released (read the table's view again and retry)
   */
  Version pin(Slot s, Version current) {
    Object cached = s.taken;
    if (cached == current) {
      s.taken = null;
      return current;
    }
    if (cached instanceof Version stale) {
      s.taken = null;
      stale.unref();
    }
    return current.tryRef() ? current : null;
  }

  /** Ends the read: the slot caches {@code pinned} (which may be {@code null}), or it is released. */
  void exit(Slot s, Version pinned) {
    Object leftover = s.taken;
    s.taken = null;
    if (leftover instanceof Version v) {
      v.unref(); // pin() was not reached
    }
    if (!s.compareAndSet(IN_USE, pinned) && pinned != null) {
      pinned.unref(); // scraped meanwhile: the slot no longer takes it
    }
  }

  /**
   * Empties every slot and releases the pins cached there. Call after installing a new version (the
   * cached pins are then on older ones), and at close.
   */
  void scrape() {
    for (Slot s : slots) {
      // Whether the owner has ended is read before the slot is emptied: a thread that has ended
      // writes its slot no more, so the emptying takes its last pin. Read after it, the owner could
      // cache a new pin and end in between, and the slot would be dropped with that pin in it.
      boolean gone = s.ownerGone();
      Object o = s.getAndSet(null);
      if (o instanceof Version v) {
        v.unref();
      }
      if (gone) {
        slots.remove(s);
      }
    }
  }
}
