package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.KVStore;

/**
 * The sample program of the KeksDB project's README, compiled against our API with only its
 * imports and its engine-property names adapted, run for one engine, and its printed output
 * compared with the output the sample's comments give.
 */
public abstract class KeksDbSampleContract {

  /** The engine under test, as {@code TableEngineType.X.toString()} gives it. */
  protected abstract String engineName();

  /** The sample's table properties, with our property names. */
  protected abstract Properties sampleProperties();

  @Test
  public void sample_printsTheSameOutputAsKeksDb(@TempDir Path dir) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      ex1(dir);
    } finally {
      System.setOut(original);
    }
    String expected =
        String.join(
            "\n", "value1", "value2", "value3", "null", "null", "null", "value3", "null", "");
    assertThat(captured.toString(StandardCharsets.UTF_8).replace("\r\n", "\n")).isEqualTo(expected);
  }

  /** The sample's body, as in the seed, names adapted. */
  @SuppressWarnings("ArrayToString") // the sample prints its missing values, which are null arrays
  private void ex1(Path dir) {
    try (KVStore kvStore = new KVStore(dir.toFile())) {
      // creating db
      String dbName = engineName() + "_test_db";
      kvStore.createDB(dbName);

      // creating table
      String tblName = engineName() + "_table_test";
      // table properties
      Properties properties = sampleProperties();
      kvStore.createTable(dbName, tblName, engineName(), properties);

      // adding records
      kvStore.put(dbName, tblName, "key1", "value1".getBytes());
      kvStore.put(dbName, tblName, "key2", "value2".getBytes());
      kvStore.put(dbName, tblName, "key3", "value3".getBytes());

      // getting values
      System.out.println(new String(kvStore.get(dbName, tblName, "key1"))); // value1
      System.out.println(new String(kvStore.get(dbName, tblName, "key2"))); // value2
      System.out.println(new String(kvStore.get(dbName, tblName, "key3"))); // value3
      System.out.println(kvStore.get(dbName, tblName, "key4")); // null

      // deleting several records
      kvStore.remove(dbName, tblName, "key1");
      kvStore.remove(dbName, tblName, "key2");

      // getting records
      System.out.println(kvStore.get(dbName, tblName, "key1")); // null
      System.out.println(kvStore.get(dbName, tblName, "key2")); // null
      System.out.println(new String(kvStore.get(dbName, tblName, "key3"))); // value3
      System.out.println(kvStore.get(dbName, tblName, "key4")); // null

      // dropping table
      kvStore.dropTable(dbName, tblName);

      // dropping db
      kvStore.dropDB(dbName);
    }
  }
}
