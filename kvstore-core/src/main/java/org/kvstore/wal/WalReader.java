package org.kvstore.wal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.kvstore.io.StorageFile;

/**
 * Reads the logical records of one log segment, checking every fragment's CRC32C and the fragment
 * order (docs/format/wal.md). Damage is reported, not thrown, as a {@link Item} of kind
 * {@code DAMAGE} with the offset and the reason; the reader then resumes at the next block, so the
 * caller can tell a torn tail (nothing valid follows) from a hole (valid records follow).
 *
 * <p>Memory: a record is assembled as its fragments arrive; a bogus length can never cause an
 * allocation larger than one block.
 *
 * <p>Thread safety: confined to one thread.
 */
final class WalReader {
  /** What {@link #next()} found. */
  enum Kind {
    RECORD,
    SEGMENT_HEADER,
    DAMAGE,
    END
  }

  /**
   * One item of the segment.
   *
   * @param offset where the record (or the damage) starts
   * @param end offset just past the record (for DAMAGE: where reading resumes)
   */
  record Item(Kind kind, long offset, long end, byte[] payload, String reason) {}

  private final StorageFile file;
  private final long fileSize;
  private final ByteBuffer block = ByteBuffer.allocate(WalFormat.BLOCK_SIZE).order(ByteOrder.LITTLE_ENDIAN);
  private long blockStart = -1;
  private int blockLength;
  /** Next fragment to read. */
  private long pos;

  WalReader(StorageFile file) throws IOException {
    this.file = file;
    this.fileSize = file.size();
  }

  Path path() {
    return file.path();
  }

  long fileSize() {
    return fileSize;
  }

  /** The next record, damage report, or END. */
  Item next() throws IOException {
    ByteArrayOutputStream assembling = null;
    long recordStart = -1;
    while (true) {
      if (pos >= fileSize) {
        if (assembling != null) {
          return damage(recordStart, fileSize, "truncated record (its last fragment is missing at end of file)");
        }
        return new Item(Kind.END, pos, pos, null, null);
      }
      int inBlock = (int) (pos % WalFormat.BLOCK_SIZE);
      int leftInBlock = WalFormat.BLOCK_SIZE - inBlock;
      if (leftInBlock < WalFormat.HEADER_BYTES) {
        pos += leftInBlock; // block trailer
        continue;
      }
      loadBlock(pos - inBlock);
      int availableInBlock = blockLength - inBlock;
      long fragmentStart = pos;
      if (availableInBlock < WalFormat.HEADER_BYTES) {
        return damage(assembling != null ? recordStart : fragmentStart, fileSize,
            "truncated record header (" + availableInBlock + " of " + WalFormat.HEADER_BYTES + " bytes at end of file)");
      }
      int storedCrc = block.getInt(inBlock);
      int length = block.getShort(inBlock + 4) & 0xffff;
      byte type = block.get(inBlock + 6);
      if (length > leftInBlock - WalFormat.HEADER_BYTES) {
        return resync(assembling != null ? recordStart : fragmentStart, fragmentStart,
            "fragment length " + length + " runs past its block");
      }
      if (length > availableInBlock - WalFormat.HEADER_BYTES) {
        return damage(assembling != null ? recordStart : fragmentStart, fileSize,
            "truncated record (need " + (WalFormat.HEADER_BYTES + length) + " bytes, have " + availableInBlock + ")");
      }
      int actualCrc = WalFormat.crc(type, block.array(), inBlock + WalFormat.HEADER_BYTES, length);
      if (actualCrc != storedCrc) {
        return resync(assembling != null ? recordStart : fragmentStart, fragmentStart,
            String.format("checksum mismatch (expected 0x%08x, got 0x%08x)", storedCrc, actualCrc));
      }
      pos += WalFormat.HEADER_BYTES + length;
      int dataOff = inBlock + WalFormat.HEADER_BYTES;
      switch (type) {
        case WalFormat.FULL, WalFormat.SEGMENT_HEADER -> {
          if (assembling != null) {
            // The fragment is sound (its CRC matched): report the unfinished record, then read it again.
            return damage(recordStart, fragmentStart, "record has no LAST fragment");
          }
          byte[] data = new byte[length];
          System.arraycopy(block.array(), dataOff, data, 0, length);
          return new Item(type == WalFormat.FULL ? Kind.RECORD : Kind.SEGMENT_HEADER, fragmentStart, pos, data, null);
        }
        case WalFormat.FIRST -> {
          if (assembling != null) {
            return damage(recordStart, fragmentStart, "record has no LAST fragment");
          }
          assembling = new ByteArrayOutputStream(Math.max(length * 2, 64));
          recordStart = fragmentStart;
          assembling.write(block.array(), dataOff, length);
        }
        case WalFormat.MIDDLE, WalFormat.LAST -> {
          if (assembling == null) {
            // An orphan (the rest of a record whose start was damaged); its length is sound: go on after it.
            return damage(fragmentStart, pos, (type == WalFormat.LAST ? "LAST" : "MIDDLE") + " fragment without a FIRST");
          }
          assembling.write(block.array(), dataOff, length);
          if (type == WalFormat.LAST) {
            return new Item(Kind.RECORD, recordStart, pos, assembling.toByteArray(), null);
          }
        }
        default -> {
          if ((type & WalFormat.SAFE_TO_IGNORE) != 0) {
            continue; // a newer writer's optional record
          }
          return resync(assembling != null ? recordStart : fragmentStart, fragmentStart, "unknown record type " + (type & 0xff));
        }
      }
    }
  }

  private Item damage(long at, long resumeAt, String reason) {
    pos = resumeAt;
    return new Item(Kind.DAMAGE, at, resumeAt, null, reason);
  }

  /** Reports damage at {@code at} and resumes at the block after {@code fragmentStart}. */
  private Item resync(long at, long fragmentStart, String reason) {
    long nextBlock = (fragmentStart / WalFormat.BLOCK_SIZE + 1) * WalFormat.BLOCK_SIZE;
    return damage(at, Math.min(nextBlock, fileSize), reason);
  }

  private void loadBlock(long start) throws IOException {
    if (start == blockStart) {
      return;
    }
    block.clear();
    int want = (int) Math.min(WalFormat.BLOCK_SIZE, fileSize - start);
    block.limit(want);
    file.readFully(block, start);
    block.clear();
    blockStart = start;
    blockLength = want;
  }
}
