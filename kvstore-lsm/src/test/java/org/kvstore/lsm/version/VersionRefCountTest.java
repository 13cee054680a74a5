package org.kvstore.lsm.version;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.kvstore.testkit.RefCountContract;

/**
 * {@link Version}'s reference count under the kit's {@link RefCountContract}: the version set's
 * reference is the owner's, readers pin with {@link Version#tryRef()}; freeing is releasing the
 * version's reference on each of its files. The test holds one more reference on its file, so the
 * release never reaches the (absent) version set; a second release would reach it and fail.
 */
public class VersionRefCountTest extends RefCountContract {
  private final FileMetadata file = newFileWithTestReference();
  private final Version version = new Version(null, List.of(List.of(file)));

  private static FileMetadata newFileWithTestReference() {
    FileMetadata f = new FileMetadata(1, 100, 1, "a".getBytes(StandardCharsets.US_ASCII),
        "z".getBytes(StandardCharsets.US_ASCII), 1, 1);
    f.refs.incrementAndGet();
    return f;
  }

  @Override
  protected boolean tryRef() {
    return version.tryRef();
  }

  @Override
  protected void unref() {
    version.unref();
  }

  @Override
  protected void releaseOwner() {
    version.unref();
  }

  @Override
  protected int freedCount() {
    return 2 - file.refs.get(); // 2 while the version holds the file, 1 once it let go
  }
}
