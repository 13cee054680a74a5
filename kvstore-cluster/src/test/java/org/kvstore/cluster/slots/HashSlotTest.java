package org.kvstore.cluster.slots;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HashSlotTest {
  private static int slot(String key) {
    return HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void crc16_ofTheCheckString_isXmodemsCheckValue() {
    // The Redis Cluster specification's reference: CRC16/XMODEM("123456789") = 0x31C3
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertThat(HashSlot.crc16(check, 0, check.length)).isEqualTo(0x31C3);
  }

  @Test
  void of_keysAsRedisAnswersClusterKeyslot() {
    // values redis-server 7 answers to CLUSTER KEYSLOT
    assertThat(slot("somekey")).isEqualTo(11058);
    assertThat(slot("foo")).isEqualTo(12182);
    assertThat(slot("bar")).isEqualTo(5061);
    assertThat(slot("")).isZero();
  }

  @Test
  void of_hashTag_hashesOnlyTheTag() {
    assertThat(slot("foo{hash_tag}")).isEqualTo(2515);
    assertThat(slot("bar{hash_tag}")).isEqualTo(2515);
    assertThat(slot("{user1000}.following")).isEqualTo(slot("{user1000}.followers")).isEqualTo(slot("user1000"));
  }

  @Test
  void of_emptyOrUnclosedTag_hashesTheWholeKey() {
    // "{}" is no tag: the whole key is hashed; only the first '{' and the first '}' after it count
    assertThat(slot("foo{}{bar}")).isNotEqualTo(slot("bar"));
    assertThat(slot("foo{{bar}}zap")).isEqualTo(slot("{bar"));
    assertThat(slot("foo{bar}{zap}")).isEqualTo(slot("bar"));
    assertThat(slot("{abc")).isNotEqualTo(slot("abc"));
  }

  @Test
  void of_binaryKeys_stayWithinTheSlots() {
    byte[] key = new byte[256];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) i;
    }
    assertThat(HashSlot.of(key)).isBetween(0, HashSlot.COUNT - 1);
  }
}
