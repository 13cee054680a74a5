package org.kvstore.server.command;

import java.util.ArrayList;
import java.util.List;

/**
 * The longest common subsequence of two byte strings, as Redis' {@code LCS} finds it: the classic
 * dynamic-programming table of prefix lengths, walked back from the end; where two ways are equally
 * long the walk steps back in the second string, so the subsequence and its matches are the ones
 * Redis reports.
 *
 * <p>The table takes 4 bytes per pair of positions, {@code (a.length + 1) * (b.length + 1)} of them;
 * like Redis, a table larger than the value size limit is refused rather than allocated.
 *
 * @param sequence the common subsequence
 * @param matches its runs of consecutive positions in both strings, from the end of the strings to
 *     their start, those shorter than the minimum match length left out
 */
public record LongestCommonSubsequence(byte[] sequence, List<Match> matches) {

  /**
   * One run of the subsequence: {@code a[aStart..aEnd]} equals {@code b[bStart..bEnd]}, both
   * inclusive.
   */
  public record Match(long aStart, long aEnd, long bStart, long bEnd) {
    public long length() {
      return aEnd - aStart + 1;
    }
  }

  /**
   * The subsequence of {@code a} and {@code b} with its runs of at least {@code minMatchLength}
   * bytes (0 or less: every run).
   *
   * @throws CommandException when the table would exceed {@code maxTableBytes} or cannot be
   *     allocated
   */
  public static LongestCommonSubsequence of(byte[] a, byte[] b, long minMatchLength, long maxTableBytes) {
    int alen = a.length;
    int blen = b.length;
    int width = blen + 1;
    long cells = (long) (alen + 1) * width;
    if (cells * Integer.BYTES > maxTableBytes) {
      throw new CommandException(
          "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    }
    int[] lcs;
    try {
      lcs = new int[(int) cells];
    } catch (OutOfMemoryError e) {
      throw new CommandException(
          "ERR Insufficient memory, failed allocating transient memory for LCS");
    }
    for (int i = 1; i <= alen; i++) {
      int row = i * width;
      int up = row - width;
      for (int j = 1; j <= blen; j++) {
        lcs[row + j] = a[i - 1] == b[j - 1]
            ? lcs[up + j - 1] + 1
            : Math.max(lcs[up + j], lcs[row + j - 1]);
      }
    }
    int length = lcs[alen * width + blen];
    byte[] sequence = new byte[length];
    List<Match> matches = new ArrayList<>();
    int idx = length;
    int i = alen;
    int j = blen;
    int aStart = -1; // -1: no run open
    int aEnd = 0;
    int bStart = 0;
    int bEnd = 0;
    while (i > 0 && j > 0) {
      boolean emit = false;
      if (a[i - 1] == b[j - 1]) {
        sequence[--idx] = a[i - 1];
        if (aStart < 0) {
          aStart = i - 1;
          aEnd = i - 1;
          bStart = j - 1;
          bEnd = j - 1;
        } else if (aStart == i && bStart == j) {
          aStart--;
          bStart--;
        } else {
          emit = true;
        }
        if (aStart == 0 || bStart == 0) {
          emit = true;
        }
        i--;
        j--;
      } else {
        if (lcs[(i - 1) * width + j] > lcs[i * width + j - 1]) {
          i--;
        } else {
          j--;
        }
        if (aStart >= 0) {
          emit = true;
        }
      }
      if (emit) {
        Match m = new Match(aStart, aEnd, bStart, bEnd);
        if (minMatchLength <= 0 || m.length() >= minMatchLength) {
          matches.add(m);
        }
        aStart = -1;
      }
    }
    return new LongestCommonSubsequence(sequence, List.copyOf(matches));
  }

  public long length() {
    return sequence.length;
  }
}
