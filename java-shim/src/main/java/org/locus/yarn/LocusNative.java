package org.locus.yarn;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native entry points of {@code liblocus_jni.so}. Every method throws
 * {@link LocusException} (or {@link LocusConfigException} for bad settings) on failure; a zero
 * or closed handle is an exception, never a crash. Use {@link LocusCore}, which owns a handle
 * and loads the library; call these directly only after {@link NativeLoader#load()}.
 *
 * <p>The methods and the frames they carry are listed in {@code contract/wire.json}, which
 * {@code ContractTest} checks this class against; JSON messages are the serde forms of
 * {@code rust-core/src/protocol.rs}.
 */
public final class LocusNative {
  /** The logger the core's own log records go to; its level decides what Rust sends. */
  static final Logger CORE_LOG = LoggerFactory.getLogger("org.locus.core");

  private LocusNative() {
  }

  /** {@code {"locus.policy":"fifo", ...}} → handle. */
  public static native long create(String propertiesJson);

  public static native void reconfigure(long handle, String propertiesJson);

  /**
   * Applies every well-formed event in order; throws naming each refused one (by index and
   * type) afterwards. Returns null, or a JSON array of the applications whose
   * {@code asks_digest} differed from the core's (each is owed an {@code asks_updated}).
   */
  public static native String events(long handle, String eventsJsonArray);

  /**
   * As {@link #events}, the batch in the first {@code length} bytes of the direct buffer
   * {@code frame}, one binary events frame ({@link EventsFrame}); a malformed frame is refused
   * whole.
   */
  public static native String eventsFrame(long handle, java.nio.ByteBuffer frame, int length);

  /**
   * Events whose answer no caller waits on (only {@code container_released} so far), the batch
   * of one binary events frame: applied now if the core is free, else queued in the bridge and
   * applied, in order, before the core's next call, so the caller never waits for a scheduling
   * pass. Throws as {@link #events} for a refusal of this batch applied now, and for an event of
   * another type (nothing applied). Returns null, or the refusals of events queued earlier
   * since the last report.
   */
  public static native String deferrableEventsFrame(long handle, java.nio.ByteBuffer frame,
      int length);

  /**
   * The first {@code length} bytes of the direct buffer {@code frame} are one binary asks frame
   * ({@link AsksFrame}); applied and answered as {@link #events}. {@code learned} (may be
   * null) is set to the ids the core gave the waiting names (hosts no node carries) the frame's
   * rows set by name, when the frame is numbered by this core: {@code [n, row, id, row, id,
   * ...]}, as many pairs as fit ({@link WaitingIds}).
   */
  public static native String asks(long handle, java.nio.ByteBuffer frame, int length,
      int[] learned);

  /**
   * The ids the core published for the names in {@code namesJson} (a JSON array of hosts of the
   * RM's nodes): {@code {"epoch":E,"ids":[id or null,...]}}, null for a name no live node
   * carries. An asks frame may carry a name as its id ({@link AsksFrame}, {@link NameIds}).
   */
  public static native String nameIds(long handle, String namesJson);

  /**
   * The first {@code length} bytes of the direct buffer {@code frame} are one binary offers
   * frame ({@link OffersFrame}): every node in it is decided in order under one lock. Returns
   * null when no node got a decision and none was refused, else the decisions and refusals as
   * one binary decisions frame ({@link DecisionsFrame}) naming nodes by their place in
   * {@code frame}.
   */
  public static native byte[] decide(long handle, java.nio.ByteBuffer frame, int length);

  public static native String stats(long handle);

  /**
   * Under {@code locus.policy=capacity}, the configured queues as
   * {@code [{"name":"a","capacity":50.0,"maximum_capacity":90.0}, ...]} (percent of the
   * cluster's memory, in configured order); {@code null} under every other policy.
   */
  public static native String capacityQueues(long handle);

  /** Frees the core behind {@code handle}; a zero or already-closed handle throws. */
  public static native void close(long handle);

  /**
   * One preemption round: {@code requestJson} is {@code {"now_ms":..,"settings":{key:value},
   * "check_only":bool}} (the {@code yarn.resourcemanager.monitor.capacity.preemption.*} keys);
   * the answer lists the container ids to {@code mark} and to {@code kill}, or, for
   * {@code check_only}, the settings in force. A bad setting throws naming its key.
   */
  public static native String preemptionRound(long handle, String requestJson);

  /** Rust records at or below {@code maxLevel} (0 off, 1 error .. 5 trace) reach {@link #log}. */
  public static native void initLogging(int maxLevel);

  /**
   * The native interface the library speaks; {@link NativeLoader} refuses a library whose
   * answer is not its {@link NativeLoader#ABI}.
   */
  public static native int abi();

  /** The level {@code org.locus.core} has enabled, in the ints {@link #initLogging} takes. */
  static int enabledLevel(Logger logger) {
    if (logger.isTraceEnabled()) {
      return 5;
    }
    if (logger.isDebugEnabled()) {
      return 4;
    }
    if (logger.isInfoEnabled()) {
      return 3;
    }
    if (logger.isWarnEnabled()) {
      return 2;
    }
    return logger.isErrorEnabled() ? 1 : 0;
  }

  /**
   * Called from Rust for every log record. Must not throw: it runs in the middle of a native
   * scheduler call (and from the native panic hook).
   */
  static void log(int level, String target, String message) {
    try {
      switch (level) {
        case 1:
          CORE_LOG.error("[{}] {}", target, message);
          break;
        case 2:
          CORE_LOG.warn("[{}] {}", target, message);
          break;
        case 3:
          CORE_LOG.info("[{}] {}", target, message);
          break;
        case 4:
          CORE_LOG.debug("[{}] {}", target, message);
          break;
        default:
          CORE_LOG.trace("[{}] {}", target, message);
          break;
      }
    } catch (Throwable t) {
      // A broken appender must not fail a scheduling call; there is nowhere left to report it.
    }
  }
}
