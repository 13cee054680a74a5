package org.kvstore.server.thrift;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvstore.server.metrics.RequestCounts;
import org.kvstore.server.metrics.RequestRecorder;
import org.kvstore.thrift.KvService;

/**
 * Counts the Thrift calls answered, by method, for {@code /metrics} (protocol {@code thrift}): the
 * {@link ThriftRequestObserver} the server installs. Methods are those of {@link KvService.Iface};
 * a name outside them (a client calling an unknown method) counts as {@code unknown}.
 *
 * <p>Thread safety: thread-safe (the id map is built once; the recorder's counters are adders).
 */
public final class ThriftRequestCounter implements ThriftRequestObserver {
  private static final String UNKNOWN = "unknown";
  private final RequestRecorder recorder;
  private final Map<String, Integer> ids = new HashMap<>();

  public ThriftRequestCounter() {
    List<String> names = Arrays.stream(KvService.Iface.class.getMethods()).map(Method::getName)
        .distinct().sorted().collect(java.util.stream.Collectors.toCollection(java.util.ArrayList::new));
    names.add(UNKNOWN);
    recorder = new RequestRecorder(names);
    for (String n : names) {
      ids.put(n, recorder.id(n));
    }
  }

  @Override
  public void served(String method) {
    Integer id = ids.get(method);
    recorder.record(id != null ? id : ids.get(UNKNOWN), true, 0);
  }

  /** The counters, for the metrics registry. */
  public RequestCounts counts() {
    return recorder;
  }
}
