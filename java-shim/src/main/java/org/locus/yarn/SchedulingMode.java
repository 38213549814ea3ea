package org.locus.yarn;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * When the scheduling thread asks the core to decide ({@code locus.scheduling.mode}).
 *
 * <p>{@link #HEARTBEAT} (the default): one round for a node each time it heartbeats. Every
 * locality layer counts scheduling opportunities per heartbeat ({@code delay} and
 * {@code hadoop} relax after a number of them, matchmaking marks a job per heartbeat) and the
 * papers define JoSS, TD, FRESH and MROSA per heartbeat. {@link #ASYNC}: also passes over every
 * live node with room, started by heartbeats, new asks and freed containers, the way
 * CapacityScheduler schedules asynchronously (Hadoop 3.5's default). A pass's offers are marked
 * as sweeps in the offers frame: they place what a key's locality level already allows, but
 * only heartbeats count as scheduling opportunities, so {@code delay} and {@code matchmaking}
 * wait as many heartbeat intervals in both modes. The core validates the value (a typo is
 * refused naming the key) and holds the same default.
 */
enum SchedulingMode {
  ASYNC, HEARTBEAT;

  static final String KEY = "locus.scheduling.mode";

  /** The mode these settings ask for. */
  static SchedulingMode of(Configuration conf) {
    return "async".equals(conf.getTrimmed(KEY, "")) ? ASYNC : HEARTBEAT;
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
