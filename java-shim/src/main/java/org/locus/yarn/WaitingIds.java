package org.locus.yarn;

import java.util.HashMap;

/**
 * One attempt's ids for its waiting names: hosts (and racks) no node carries, such as a
 * MapReduce job's split hosts without a NodeManager. The core gives such a name an id when a
 * frame of its own numbering sets a row of it by name ({@code Core::learned_ids}, answered
 * through {@link LocusNative#asks}); a changed frame then carries the id instead of the name,
 * so the core neither hashes nor compares it (docs/architecture.md, "Numbered names").
 *
 * <p>An id is the application's own and good only while the name holds a row in the core: once
 * the rows are withdrawn, a node takes the name, or a snapshot replaces the asks, the core
 * refuses it (never reads it as another name) and the link re-sends the asks by name
 * ({@link CoreLink#sendAsks}), emptying this table. It is also emptied when a frame is written
 * for another core's numbering (a rebuild) and before every snapshot, and dropped with the
 * attempt. It never holds more than {@link #MAX_NAMES} names: ids the core stopped honouring
 * (withdrawn names the AM never names again) are not told to the shim, so an answer that would
 * pass the bound empties the table first, and the names of the latest frames are learned again.
 * Used under the attempt's lock.
 */
final class WaitingIds {
  /**
   * Twice the core's default {@code locus.app.max-resource-names} (8,192): an application's
   * whole asks, and then some, fit; an AM naming hosts without end costs at most this many
   * entries.
   */
  static final int MAX_NAMES = 16_384;

  private final HashMap<String, Integer> ids = new HashMap<>();
  /** The numbering the ids belong to ({@link NameIds#epoch}); meaningful while ids is not empty. */
  private long epoch;

  /**
   * This table for a frame numbered by {@code names} (emptied first if it holds another core's
   * ids); null when the frame numbers nothing ({@code names} null or {@link NameIds#NONE}).
   */
  WaitingIds forFrame(NameIds names) {
    if (names == null || names == NameIds.NONE) {
      ids.clear();
      return null;
    }
    if (names.epoch() != epoch) {
      ids.clear();
      epoch = names.epoch();
    }
    return this;
  }

  /** The id of {@code name}, or null: the frame then carries the name. */
  Integer id(String name) {
    return ids.get(name);
  }

  int size() {
    return ids.size();
  }

  void clear() {
    ids.clear();
  }

  /**
   * Keeps what the core answered to a frame of numbering {@code frameEpoch}: {@code learned} is
   * {@code [n, row, id, ...]}, {@code names} the frame's names by row. Another numbering's
   * answer (the table moved on meanwhile) is ignored.
   */
  void learn(long frameEpoch, String[] names, int[] learned) {
    if (frameEpoch != epoch) {
      return;
    }
    int n = Math.max(0, Math.min(learned[0], (learned.length - 1) / 2));
    if (ids.size() + n > MAX_NAMES) {
      ids.clear();
    }
    for (int k = 0; k < n && ids.size() < MAX_NAMES; k++) {
      int row = learned[1 + 2 * k];
      if (row >= 0 && row < names.length && names[row] != null) {
        ids.put(names[row], learned[2 + 2 * k]);
      }
    }
  }
}
