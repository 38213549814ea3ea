package org.locus.yarn;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongFunction;

/**
 * One Locus core instance, owning its native handle. Thread-safe: the native side serialises
 * calls on the core's own mutex, so the RM's IPC threads and its dispatcher may call at once.
 * After {@link #close()} every call throws {@link LocusException}.
 */
public final class LocusCore implements AutoCloseable {
  /**
   * Calls hold the read side while they use the handle, close takes the write side. The native
   * registry already refuses a freed handle, but once freed its address can be handed out again
   * by a later {@link #open}: without this lock a call that read the handle just before a close
   * could land on that newer core (an RM transitioning to standby and back does exactly this).
   */
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private volatile long handle;
  /**
   * What crossed into this core through events, asks and offers, in characters of JSON or bytes
   * of frames: the bridge's cost grows with it, so tests bound it.
   */
  private final AtomicLong sent = new AtomicLong();

  private LocusCore(long handle) {
    this.handle = handle;
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
    withHandle(h -> {
      LocusNative.reconfigure(h, propertiesJson);
      return null;
    });
  }

  /**
   * Null, or the JSON array of applications whose {@code asks_digest} differed from the core's
   * (see {@link LocusNative#events}).
   */
  public String events(String eventsJsonArray) {
    sent.addAndGet(eventsJsonArray == null ? 0 : eventsJsonArray.length());
    return withHandle(h -> LocusNative.events(h, eventsJsonArray));
  }

  /** One binary events frame (a direct buffer, position 0, limit its length); as {@link #events}. */
  public String eventsFrame(java.nio.ByteBuffer frame) {
    sent.addAndGet(frame.limit());
    return withHandle(h -> LocusNative.eventsFrame(h, frame, frame.limit()));
  }

  /**
   * One binary events frame of events no caller waits on: null, or the refusals of earlier
   * queued events (see {@link LocusNative#deferrableEventsFrame}); never waits for another call
   * holding the core.
   */
  public String deferrableEventsFrame(java.nio.ByteBuffer frame) {
    sent.addAndGet(frame.limit());
    return withHandle(h -> LocusNative.deferrableEventsFrame(h, frame, frame.limit()));
  }

  /**
   * One binary asks frame (a direct buffer, position 0, limit its length); answered as
   * {@link #events}.
   */
  public String asks(java.nio.ByteBuffer frame) {
    return asks(frame, null);
  }

  /**
   * As {@link #asks(java.nio.ByteBuffer)}; {@code learned} (may be null) receives the ids the
   * core gave the frame's waiting names (see {@link LocusNative#asks}).
   */
  public String asks(java.nio.ByteBuffer frame, int[] learned) {
    sent.addAndGet(frame.limit());
    return withHandle(h -> LocusNative.asks(h, frame, frame.limit(), learned));
  }

  /** The ids this core published for {@code namesJson}'s names (see {@link LocusNative#nameIds}). */
  public String nameIds(String namesJson) {
    return withHandle(h -> LocusNative.nameIds(h, namesJson));
  }

  /**
   * One binary offers frame (a direct buffer, position 0, limit its length): null when no node
   * got a decision and none was refused, else the decisions and refusals as a binary
   * decisions frame ({@link DecisionsFrame}).
   */
  public byte[] offers(java.nio.ByteBuffer frame) {
    sent.addAndGet(frame.limit());
    return withHandle(h -> LocusNative.decide(h, frame, frame.limit()));
  }

  public String stats() {
    return withHandle(LocusNative::stats);
  }

  /** One preemption round ({@link LocusNative#preemptionRound}). */
  public String preemptionRound(String requestJson) {
    return withHandle(h -> LocusNative.preemptionRound(h, requestJson));
  }

  /** The capacity queues as JSON, or null when the policy is not {@code capacity}. */
  public String capacityQueues() {
    return withHandle(LocusNative::capacityQueues);
  }

  /** Characters (or frame bytes) handed to this core's events, asks and offers so far. */
  public long sentToCore() {
    return sent.get();
  }

  public boolean isClosed() {
    return handle == 0;
  }

  /** Idempotent: the first call frees the native core, later ones do nothing. */
  @Override
  public void close() {
    closeReturningHandle();
  }

  /**
   * As {@link #close()}; returns the handle this call freed (0 when the core was closed
   * already), which names the closed core to the one rebuilt in its place
   * ({@link CoreLink}).
   */
  long closeReturningHandle() {
    long h;
    lock.writeLock().lock();
    try {
      h = handle;
      handle = 0;
    } finally {
      lock.writeLock().unlock();
    }
    if (h != 0) {
      LocusNative.close(h);
    }
    return h;
  }

  @Override
  public String toString() {
    long h = handle;
    return h == 0 ? "LocusCore[closed]" : "LocusCore[handle=0x" + Long.toHexString(h) + "]";
  }

  /**
   * After close the handle is 0, which the native side rejects with a LocusException.
   * Package-private for the tests' fault trigger (CoreFaults, in the test sources only).
   */
  <T> T withHandle(LongFunction<T> call) {
    lock.readLock().lock();
    try {
      return call.apply(handle);
    } finally {
      lock.readLock().unlock();
    }
  }

  private static void refreshLogLevel() {
    LocusNative.initLogging(LocusNative.enabledLevel(LocusNative.CORE_LOG));
  }
}
