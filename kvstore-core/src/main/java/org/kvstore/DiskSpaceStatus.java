package org.kvstore;

import java.util.Map;

/**
 * Whether the store refuses writes because its disk is full ({@link NoSpaceException}), as
 * {@code INFO persistence} reports it.
 *
 * @param full writes are refused now for lack of space; reads go on
 * @param lastError the last out-of-space failure (which work, which file, the error), or "" if none
 * @param fullSinceMillis when writes began to be refused (epoch millis), 0 while {@code full} is false
 * @param resumes how many times writes resumed by themselves after space was freed
 * @param lastResumeMillis when writes last resumed (epoch millis), 0 if never
 * @param outOfSpaceBySource how many times each piece of work ({@code wal}, {@code checkpoint},
 *     {@code table <db>.<table>}) ran out of space since the store opened
 *
 * <p>Thread safety: immutable.
 */
public record DiskSpaceStatus(boolean full, String lastError, long fullSinceMillis, long resumes, long lastResumeMillis,
    Map<String, Long> outOfSpaceBySource) {}
