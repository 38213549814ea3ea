package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import org.junit.Test;

/** The shim's digest is the core's bit for bit (rust-core/src/digest.rs has the same values). */
public class AsksDigestTest {
  @Test
  public void sameBitsAsTheCore() {
    assertEquals(4_090_199_143_336_461_063L, AsksDigest.term(20, 0, 5000));
    assertEquals(AsksDigest.term(20, 0, 5000) + AsksDigest.term(10, 7, 1)
        + AsksDigest.term(-1, -1, 3), AsksDigest.term(-1, -1, 3) + AsksDigest.term(20, 0, 5000)
        + AsksDigest.term(10, 7, 1));
    assertEquals(0, AsksDigest.term(20, 0, 0));
  }

  @Test
  public void totalsAndKeysBothCount() {
    long base = AsksDigest.term(20, 0, 5);
    assertNotEquals(base, AsksDigest.term(20, 0, 6));
    assertNotEquals(base, AsksDigest.term(21, 0, 5));
    assertNotEquals(base, AsksDigest.term(20, 1, 5));
  }
}
