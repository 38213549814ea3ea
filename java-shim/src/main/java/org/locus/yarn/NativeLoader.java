package org.locus.yarn;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code liblocus_jni} once per JVM: first from {@code java.library.path} (an operator
 * who installed the library beside Hadoop's native libraries wins), then from the copy bundled
 * in the shim jar under {@code native/<os>/<arch>/}. A missing library fails with a message
 * naming the platform, so the ResourceManager refuses to start instead of failing later.
 */
public final class NativeLoader {
  static final String LIBRARY = "locus_jni";
  /**
   * The native interface this jar speaks: the hash of {@code contract/wire.json} that
   * jni-bridge's {@code ABI} also is, so it changes with any native's signature or frame's
   * layout ({@code ContractTest} fails, naming the new number, until it is set here). A library
   * that answers another number, or none (built before the binary frames), is refused at load,
   * so a stale copy on {@code java.library.path} stops the RM at start with its remedy instead
   * of linking the natives it shares with this jar and failing, or misreading, on the others.
   */
  static final int ABI = 409648604;

  private static boolean loaded;

  private NativeLoader() {
  }

  public static synchronized void load() {
    if (loaded) {
      return;
    }
    UnsatisfiedLinkError fromLibraryPath;
    try {
      System.loadLibrary(LIBRARY);
      checkAbi("java.library.path=" + System.getProperty("java.library.path", ""));
      loaded = true;
      return;
    } catch (UnsatisfiedLinkError e) {
      fromLibraryPath = e;
    }
    String os = osName(System.getProperty("os.name", ""));
    String arch = archName(System.getProperty("os.arch", ""));
    String resource = resourcePath(os, arch, System.mapLibraryName(LIBRARY));
    URL url = NativeLoader.class.getClassLoader().getResource(resource);
    if (url == null) {
      throw new LocusException(notFoundMessage(os, arch,
          System.getProperty("java.library.path", ""), resource, fromLibraryPath.getMessage()),
          fromLibraryPath);
    }
    Path extracted = null;
    try {
      extracted = extract(url);
      System.load(extracted.toString());
    } catch (IOException | UnsatisfiedLinkError e) {
      throw new LocusException("Locus native library for " + os + "/" + arch
          + " could not be loaded from jar resource " + resource
          + (extracted == null ? "" : " (extracted to " + extracted + ")") + ": " + e, e);
    } finally {
      // Once mapped the file is no longer needed; deleting now keeps a killed RM from leaving
      // copies behind. (Harmless if the platform refuses.)
      if (extracted != null) {
        try {
          Files.deleteIfExists(extracted);
        } catch (IOException ignored) {
          extracted.toFile().deleteOnExit();
        }
      }
    }
    checkAbi("jar resource " + resource);
    loaded = true;
  }

  /** Refuses a loaded library that does not speak this jar's native interface. */
  private static void checkAbi(String from) {
    int got;
    try {
      got = LocusNative.abi();
    } catch (UnsatisfiedLinkError e) {
      got = -1;
    }
    String problem = abiProblem(got, from);
    if (problem != null) {
      throw new LocusException(problem);
    }
  }

  /** Null when {@code got} is this jar's interface, else what is wrong and what to do. */
  static String abiProblem(int got, String from) {
    if (got == ABI) {
      return null;
    }
    return "Locus native library loaded from " + from + " speaks native interface "
        + (got < 0 ? "1 or older (it has no abi())" : String.valueOf(got)) + ", but this jar"
        + " needs " + ABI + ": remove the stale liblocus_jni from java.library.path (the jar"
        + " bundles its own) or install the one built with this jar";
  }

  private static Path extract(URL url) throws IOException {
    Path tmp = Files.createTempFile("liblocus_jni-", ".so");
    try (InputStream in = url.openStream()) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
    }
    return tmp;
  }

  /** The folder names the build uses under {@code native/}. */
  static String osName(String osNameProperty) {
    String os = osNameProperty.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      return "linux";
    }
    if (os.startsWith("mac") || os.startsWith("darwin")) {
      return "darwin";
    }
    if (os.startsWith("windows")) {
      return "windows";
    }
    return os.replaceAll("[^a-z0-9]", "");
  }

  static String archName(String osArchProperty) {
    String arch = osArchProperty.toLowerCase(Locale.ROOT);
    switch (arch) {
      case "amd64":
      case "x86_64":
        return "amd64";
      case "aarch64":
      case "arm64":
        return "aarch64";
      default:
        return arch;
    }
  }

  static String resourcePath(String os, String arch, String fileName) {
    return "native/" + os + "/" + arch + "/" + fileName;
  }

  static String notFoundMessage(String os, String arch, String libraryPath, String resource,
      String loadLibraryError) {
    return "Locus native library not found for " + os + "/" + arch
        + ": looked in java.library.path=" + libraryPath
        + " and jar resource " + resource
        + " (System.loadLibrary said: " + loadLibraryError + ")";
  }
}
