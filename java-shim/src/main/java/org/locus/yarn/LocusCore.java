package org.locus.yarn;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One Locus core instance, owning its native handle. Thread-safe: the native side serialises
 * calls on the core's own mutex, so the RM's IPC threads and its dispatcher may call at once.
 * After {@link #close()} every call throws {@link LocusException}.
 */
public final class LocusCore implements AutoCloseable {
  private final AtomicLong handle;

  private LocusCore(long handle) {
    this.handle = new AtomicLong(handle);
  }

  /**
   * Loads the native library (once), forwards the core's logging at the level
   * {@code org.locus.core} has enabled, and creates a core from every {@code locus.*} setting.
   *
   * @throws LocusConfigException naming the bad key
   */
  public static LocusCore open(String propertiesJson) {
    NativeLoader.load();
    refreshLogLevel();
    return new LocusCore(LocusNative.create(propertiesJson));
  }

  /** Re-reads the settings ({@code yarn rmadmin -refreshQueues}); also picks up a new log level. */
  public void reconfigure(String propertiesJson) {
    refreshLogLevel();
    LocusNative.reconfigure(handle.get(), propertiesJson);
  }

  public void events(String eventsJsonArray) {
    LocusNative.events(handle.get(), eventsJsonArray);
  }

  public String heartbeat(String heartbeatJson) {
    return LocusNative.heartbeat(handle.get(), heartbeatJson);
  }

  public String stats() {
    return LocusNative.stats(handle.get());
  }

  public boolean isClosed() {
    return handle.get() == 0;
  }

  /** Idempotent: the first call frees the native core, later ones do nothing. */
  @Override
  public void close() {
    long h = handle.getAndSet(0);
    if (h != 0) {
      LocusNative.close(h);
    }
  }

  @Override
  public String toString() {
    long h = handle.get();
    return h == 0 ? "LocusCore[closed]" : "LocusCore[handle=0x" + Long.toHexString(h) + "]";
  }

  private static void refreshLogLevel() {
    LocusNative.initLogging(LocusNative.enabledLevel(LocusNative.CORE_LOG));
  }
}
