package org.kvstore.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.WriteResult;

class SingleKeyWritesTest {
  private static final long NOW = 1_000_000;
  private static final byte[] K = "k".getBytes(StandardCharsets.UTF_8);
  private static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);
  private static final Entry OLD = new Entry("old".getBytes(StandardCharsets.UTF_8), 7, NOW + 5_000);
  private static final Entry OLD_NO_EXPIRY = new Entry("old".getBytes(StandardCharsets.UTF_8), 7, Entry.NO_EXPIRY);

  @Test
  void put_writesUnlessThePreconditionFails_andResolvesTheExpiryAgainstTheCurrentEntry() {
    assertThat(SingleKeyWrites.put(K, V, PutOptions.defaults(), null, NOW))
        .containsExactly(Mutation.put(K, V, Entry.NO_EXPIRY));
    assertThat(SingleKeyWrites.put(K, V, PutOptions.defaults().ifAbsent(), OLD, NOW)).isNull();
    assertThat(SingleKeyWrites.put(K, V, PutOptions.defaults().ifVersion(8), OLD, NOW)).isNull();
    List<Mutation> kept = SingleKeyWrites.put(K, V, PutOptions.defaults().keepExpiry(), OLD, NOW);
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0).expiresAt()).isEqualTo(NOW + 5_000);
    assertThat(SingleKeyWrites.put(K, V, PutOptions.defaults().ttlMillis(100), OLD, NOW).get(0).expiresAt())
        .isEqualTo(NOW + 100);
  }

  @Test
  void remove_onlyAnExistingKeyWhoseConditionHolds() {
    assertThat(SingleKeyWrites.remove(K, Precondition.none(), null)).isNull();
    assertThat(SingleKeyWrites.remove(K, Precondition.version(8), OLD)).isNull();
    assertThat(SingleKeyWrites.remove(K, Precondition.version(7), OLD)).containsExactly(Mutation.remove(K));
  }

  @Test
  void expireAt_removesWhenThePastIsGiven_andNeedsAnExistingKey() {
    assertThat(SingleKeyWrites.expireAt(K, NOW + 1, null, NOW)).isNull();
    assertThat(SingleKeyWrites.expireAt(K, NOW, OLD, NOW)).containsExactly(Mutation.remove(K));
    List<Mutation> later = SingleKeyWrites.expireAt(K, NOW + 1, OLD, NOW);
    assertThat(later.get(0).expiresAt()).isEqualTo(NOW + 1);
    assertThat(later.get(0).value()).isEqualTo(OLD.value());
    assertThatThrownBy(() -> SingleKeyWrites.checkExpireAt(0))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("expireAt");
  }

  @Test
  void persist_onlyAnEntryThatExpires() {
    assertThat(SingleKeyWrites.persist(K, null)).isNull();
    assertThat(SingleKeyWrites.persist(K, OLD_NO_EXPIRY)).isNull();
    assertThat(SingleKeyWrites.persist(K, OLD).get(0).expiresAt()).isEqualTo(Entry.NO_EXPIRY);
  }

  @Test
  void result_reportsTheFoundVersionWhenNotApplied_andNoVersionForAnAppliedRemoval() {
    assertThat(SingleKeyWrites.result(0, OLD, false)).isEqualTo(new WriteResult(false, 7, OLD));
    assertThat(SingleKeyWrites.result(0, null, false)).isEqualTo(new WriteResult(false, 0, null));
    assertThat(SingleKeyWrites.result(9, OLD, false)).isEqualTo(new WriteResult(true, 9, OLD));
    assertThat(SingleKeyWrites.result(9, OLD, true)).isEqualTo(new WriteResult(true, 0, OLD));
  }
}
