package org.kvstore.lsm;

import java.util.List;
import org.kvstore.lsm.memtable.MemTable;
import org.kvstore.lsm.version.Version;

/**
 * Everything a read needs, captured at one moment: the mutable memtable, the immutable ones newest
 * first, and the SSTable {@link Version}. Holds one pin on the version while it is the table's
 * current view; readers add their own pin for as long as they read.
 *
 * <p>Thread safety: immutable.
 */
record SuperVersion(MemTable mem, List<FrozenMemTable> imms, Version version) {}
