package org.locus.yarn;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/**
 * What the shim jar ships carries no test-only fault trigger: a call to it in a production RM
 * would poison the core on demand. The trigger lives in a {@code test-hooks} build of the
 * library that only the tests load (see java-shim/build.gradle).
 */
public class ShippedLibraryTest {
  private static final String TRIGGER = "injectPanic";
  /** The other test-only hook: holds the core's lock while the tests call in. */
  private static final String HOLD = "holdCore";

  @Test
  public void theBundledNativeLibraryExportsNoPanicTrigger() throws Exception {
    String resource = NativeLoader.resourcePath(
        NativeLoader.osName(System.getProperty("os.name", "")),
        NativeLoader.archName(System.getProperty("os.arch", "")),
        System.mapLibraryName(NativeLoader.LIBRARY));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
      assertNotNull("the jar's library " + resource + " is on the test classpath", in);
      in.transferTo(bytes);
    }
    // Exported JNI symbols are plain names in the dynamic symbol table (kept by the strip).
    String text = new String(bytes.toByteArray(), StandardCharsets.ISO_8859_1);
    assertFalse("the shipped library exports a test-only panic trigger",
        text.contains(TRIGGER));
    assertFalse("the shipped library exports a test-only lock hold", text.contains(HOLD));
    assertFalse("the shipped library still exports its other entry points",
        !text.contains("Java_org_locus_yarn_LocusNative_decide"));
  }

  @Test
  public void theShippedClassesDeclareNoPanicTrigger() {
    for (Class<?> c : new Class<?>[] {LocusNative.class, LocusCore.class}) {
      for (Method m : c.getDeclaredMethods()) {
        assertFalse(c.getSimpleName() + "." + m.getName() + " ships in the jar",
            m.getName().contains(TRIGGER) || m.getName().contains(HOLD));
      }
    }
  }
}
