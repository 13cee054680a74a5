package org.kvstore.lsm.memtable;

import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.Lincheck;

/**
 * {@link KeyIndex} under Lincheck: lock-free lookups ({@code get}, {@code getAll}) racing inserts
 * under the monitor, must behave as a set. The index starts one key short of growing, so the first
 * new key replaces the table while lookups run: a lookup must still find every key put before it
 * started, in the old table or the new one.
 */
@Param(name = "key", gen = IntGen.class, conf = "100:102")
public class KeyIndexLincheckTest {
  /** Keys put before the scenario: the next new key makes the table grow. */
  private static final int PREFILLED = 32;

  private final KeyIndex<Integer> index = new KeyIndex<>();

  public KeyIndexLincheckTest() {
    for (int i = 0; i < PREFILLED; i++) {
      index.putIfAbsent(i);
    }
  }

  @Operation
  public boolean putIfAbsent(@Param(name = "key") int key) {
    return index.putIfAbsent(key) == null;
  }

  @Operation
  public boolean get(@Param(name = "key") int key) {
    return index.get(key) != null;
  }

  /** A key put before the scenario, looked up while the table may grow. */
  @Operation
  public boolean getPrefilled(@Param(name = "key") int key) {
    return index.get(key % PREFILLED) != null;
  }

  /** {@code getAll} of the key and a prefilled one: "01" when only the prefilled one is held. */
  @Operation
  public String getAll(@Param(name = "key") int key) {
    Object[] found = new Object[2];
    index.getAll(new Object[] {key, key % PREFILLED}, 2, found);
    return (found[0] != null ? "1" : "0") + (found[1] != null ? "1" : "0");
  }

  @Operation
  public int size() {
    return index.size();
  }

  @Test
  void keyIndex_modelChecked_behavesAsASet() {
    Lincheck.modelCheck(KeyIndexLincheckTest.class, 3, 2);
  }

  @Test
  void keyIndex_stressed_behavesAsASet() {
    Lincheck.stress(KeyIndexLincheckTest.class, 3, 3);
  }
}
