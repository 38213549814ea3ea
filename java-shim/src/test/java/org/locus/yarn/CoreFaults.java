package org.locus.yarn;

/**
 * Faults on demand for the tests. Its native method exists only in the {@code test-hooks} build
 * of liblocus_jni, which the test task loads through {@code java.library.path}; the library and
 * classes the jar ships have no trigger (ShippedLibraryTest).
 */
final class CoreFaults {
  private CoreFaults() {
  }

  /** Makes the core panic inside its lock, as a core bug would; its handle is poisoned after. */
  private static native void injectPanic(long handle, String message);

  /** Runs {@code during} while holding the core's lock, as a long scheduling pass does. */
  private static native void holdCore(long handle, Runnable during);

  /** Runs {@code during} on this thread while {@code core}'s lock is held, as by a pass. */
  static void hold(LocusCore core, Runnable during) {
    core.withHandle(h -> {
      holdCore(h, during);
      return null;
    });
  }

  /** Panics {@code core}; returns the exception the panicking call threw. */
  static LocusCorePoisonedException panic(LocusCore core, String message) {
    try {
      core.withHandle(h -> {
        injectPanic(h, message);
        return null;
      });
    } catch (LocusCorePoisonedException e) {
      return e;
    }
    throw new AssertionError("the injected panic did not surface as LocusCorePoisonedException");
  }
}
