package org.locus.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

  /**
   * A stale library (one built before the frames changed the natives) is refused at load with
   * its remedy; the library this build loads speaks this jar's interface.
   */
  @Test
  public void aLibraryOfAnotherNativeInterfaceIsRefusedWithItsRemedy() {
    String old = NativeLoader.abiProblem(-1, "java.library.path=/opt/hadoop/lib/native");
    assertTrue(old, old.contains("/opt/hadoop/lib/native speaks native interface 1 or older"));
    assertTrue(old, old.contains("this jar needs " + NativeLoader.ABI));
    assertTrue(old, old.contains("remove the stale liblocus_jni from java.library.path"));
    String other = NativeLoader.abiProblem(NativeLoader.ABI + 1, "jar resource x");
    assertTrue(other, other.contains("speaks native interface " + (NativeLoader.ABI + 1)));
    assertEquals(null, NativeLoader.abiProblem(NativeLoader.ABI, "anywhere"));
    NativeLoader.load();
    assertEquals(NativeLoader.ABI, LocusNative.abi());
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

  /**
   * A JVM whose classpath lacks the bundled library and whose java.library.path is empty: the
   * load must fail with the platform in the message, as an RM start would.
   */
  @Test
  public void missingLibraryFailsWithThePlatformInTheMessage() throws Exception {
    List<String> classpath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!new File(entry, "native").isDirectory() && !entry.endsWith(".so")) {
        classpath.add(entry);
      }
    }
    File emptyDir = java.nio.file.Files.createTempDirectory("no-locus-native").toFile();
    ProcessBuilder pb = new ProcessBuilder(
        new File(System.getProperty("java.home"), "bin/java").getPath(),
        "-Djava.library.path=" + emptyDir,
        "-cp", String.join(File.pathSeparator, classpath),
        Probe.class.getName());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue("probe did not finish", p.waitFor(2, TimeUnit.MINUTES));
    emptyDir.delete();
    String platform = NativeLoader.osName(System.getProperty("os.name")) + "/"
        + NativeLoader.archName(System.getProperty("os.arch"));
    assertEquals(out, 3, p.exitValue());
    assertTrue(out, out.contains("LocusException: Locus native library not found for " + platform));
    assertTrue(out, out.contains("java.library.path=" + emptyDir));
  }

  /** Run in a child JVM by the test above. */
  public static final class Probe {
    public static void main(String[] args) {
      try {
        LocusCore.open("{}").close();
        System.out.println("loaded?!");
        System.exit(0);
      } catch (LocusException e) {
        System.out.println(e);
        System.exit(3);
      }
    }
  }
}
