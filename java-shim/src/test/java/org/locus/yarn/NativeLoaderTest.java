package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class NativeLoaderTest {

  @Test
  public void platformNamesMatchTheJarLayout() {
    assertEquals("linux", NativeLoader.osName("Linux"));
    assertEquals("darwin", NativeLoader.osName("Mac OS X"));
    assertEquals("windows", NativeLoader.osName("Windows 11"));
    assertEquals("amd64", NativeLoader.archName("x86_64"));
    assertEquals("amd64", NativeLoader.archName("amd64"));
    assertEquals("aarch64", NativeLoader.archName("arm64"));
    assertEquals("native/linux/aarch64/liblocus_jni.so",
        NativeLoader.resourcePath("linux", "aarch64", "liblocus_jni.so"));
  }

  @Test
  public void notFoundMessageNamesThePlatformAndWhereItLooked() {
    String msg = NativeLoader.notFoundMessage("linux", "aarch64", "/opt/hadoop/lib/native",
        "native/linux/aarch64/liblocus_jni.so", "no locus_jni in java.library.path");
    assertTrue(msg, msg.startsWith("Locus native library not found for linux/aarch64:"));
    assertTrue(msg, msg.contains("java.library.path=/opt/hadoop/lib/native"));
    assertTrue(msg, msg.contains("jar resource native/linux/aarch64/liblocus_jni.so"));
    assertTrue(msg, msg.contains("no locus_jni in java.library.path"));
  }

  @Test
  public void theBuildBundlesTheLibraryForThisPlatform() {
    String resource = NativeLoader.resourcePath(NativeLoader.osName(System.getProperty("os.name")),
        NativeLoader.archName(System.getProperty("os.arch")),
        System.mapLibraryName(NativeLoader.LIBRARY));
    assertTrue("missing " + resource,
        NativeLoader.class.getClassLoader().getResource(resource) != null);
    NativeLoader.load();
    NativeLoader.load(); // a second load is a no-op, not a second copy
  }
}
