package org.locus.yarn;

import java.io.IOException;
import java.util.Locale;

/**
 * When the scheduling thread asks the core to decide ({@code locus.scheduling.mode}).
 *
 * <p>{@link #HEARTBEAT}: one round for a node each time it heartbeats, and, when asks arrive or
 * room is released, eager offers of the live nodes with room for the asks that have nothing to
 * wait for ({@link SchedulingLoop}, {@code locus.scheduling.eager}). {@link #ASYNC}: also
 * passes over every live node with room, started by heartbeats, new asks and freed containers,
 * the way CapacityScheduler schedules asynchronously (Hadoop 3.5's default). A pass's offers are
 * marked as sweeps in the offers frame: they place what a key's locality level already allows,
 * but only heartbeats count as scheduling opportunities, so {@code delay} and
 * {@code matchmaking} wait as many heartbeat intervals in both modes.
 *
 * <p>The setting also takes {@code auto}, the default: {@code async} for {@code fifo},
 * {@code fair}, {@code fsp} and {@code capacity}, {@code heartbeat} for the papers' policies
 * defined per heartbeat ({@code td}, {@code joss-t}, {@code joss-j}, {@code fresh},
 * {@code mrosa}) and under {@code locus.hotspot=hot-queue}. The core validates the value (a
 * typo is refused naming the key) and resolves it, so the shim reads the mode in force from the
 * core rather than repeating the rule: {@link CoreLink} reads it whenever a core goes into service
 * or takes new settings, and the scheduling thread runs the mode of the core in service.
 * {@code locus.scheduling.eager} is read the same way ({@link #eager}).
 */
enum SchedulingMode {
  ASYNC, HEARTBEAT;

  static final String KEY = "locus.scheduling.mode";

  /** The mode {@code core}'s settings resolve to (its stats' {@code scheduling_mode}). */
  static SchedulingMode of(LocusCore core) {
    String mode;
    try {
      mode = CoreMessages.JSON.readTree(core.stats()).path("scheduling_mode").asText("");
    } catch (IOException e) {
      throw new IllegalStateException("Locus core answered stats with malformed JSON", e);
    }
    return of(mode);
  }

  /**
   * Whether {@code core}'s settings let {@link #HEARTBEAT} mode make eager offers when asks
   * arrive or room is released ({@code locus.scheduling.eager}, its stats'
   * {@code scheduling_eager}).
   */
  static boolean eager(LocusCore core) {
    try {
      return CoreMessages.JSON.readTree(core.stats()).path("scheduling_eager").asBoolean(true);
    } catch (IOException e) {
      throw new IllegalStateException("Locus core answered stats with malformed JSON", e);
    }
  }

  /** {@code async} or {@code heartbeat}, as the core resolves the setting. */
  static SchedulingMode of(String resolved) {
    switch (resolved) {
      case "async":
        return ASYNC;
      case "heartbeat":
        return HEARTBEAT;
      default:
        throw new IllegalStateException("Locus core reported scheduling mode '" + resolved
            + "'; expected async or heartbeat");
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
