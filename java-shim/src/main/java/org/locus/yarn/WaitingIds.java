package org.locus.yarn;

import java.util.Arrays;

/**
 * One attempt's ids for its waiting names: hosts (and racks) no node carries, such as a
 * MapReduce job's split hosts without a NodeManager. The core gives such a name an id when a
 * frame of its own numbering sets a row of it by name ({@code Core::learned_ids}, answered
 * through {@link LocusNative#asks}); a changed frame then carries the id instead of the name,
 * so the core neither hashes nor compares it (docs/design/architecture.md, "Numbered names").
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
 *
 * <p>Open addressing over {@code String.hashCode} with ids as plain ints: a frame looks up every
 * row here, and a {@code HashMap}'s entry and boxed id were two more cache misses per row than
 * writing the name. The AM chooses the names, so it can make their hash codes collide: no
 * lookup or insertion probes more than {@link #MAX_PROBES} slots, and a name that finds no slot
 * within them simply goes by name (the core's own table is keyed).
 */
final class WaitingIds {
  /**
   * Twice the core's default {@code locus.app.max-resource-names} (8,192): an application's
   * whole asks, and then some, fit; an AM naming hosts without end costs at most this many
   * entries.
   */
  static final int MAX_NAMES = 16_384;
  /** What {@link #id} answers for a name it holds no id of (waiting ids have bit 31 set). */
  static final int NONE = 0;
  /** Slots a lookup or insertion probes at most (see the class comment). */
  static final int MAX_PROBES = 8;
  private static final int MIN_SLOTS = 16;

  private String[] keys = new String[MIN_SLOTS];
  private int[] hashes = new int[MIN_SLOTS];
  private int[] values = new int[MIN_SLOTS];
  private int size;
  /** The numbering the ids belong to ({@link NameIds#epoch}); meaningful while size > 0. */
  private long epoch;

  /**
   * This table for a frame numbered by {@code names} (emptied first if it holds another core's
   * ids); null when the frame numbers nothing ({@code names} null or {@link NameIds#NONE}).
   */
  WaitingIds forFrame(NameIds names) {
    if (names == null || names == NameIds.NONE) {
      clear();
      return null;
    }
    if (names.epoch() != epoch) {
      clear();
      epoch = names.epoch();
    }
    return this;
  }

  /** The id of {@code name}, or {@link #NONE}: the frame then carries the name. */
  int id(String name) {
    int h = name.hashCode();
    int mask = keys.length - 1;
    int i = slot(h, mask);
    for (int p = 0; p < MAX_PROBES; p++, i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null) {
        return NONE;
      }
      if (k == name || (hashes[i] == h && k.equals(name))) {
        return values[i];
      }
    }
    return NONE;
  }

  int size() {
    return size;
  }

  void clear() {
    if (size == 0) {
      return;
    }
    if (keys.length > MIN_SLOTS) {
      keys = new String[MIN_SLOTS];
      hashes = new int[MIN_SLOTS];
      values = new int[MIN_SLOTS];
    } else {
      Arrays.fill(keys, null);
    }
    size = 0;
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
    if (size + n > MAX_NAMES) {
      clear();
    }
    for (int k = 0; k < n && size < MAX_NAMES; k++) {
      int row = learned[1 + 2 * k];
      int id = learned[2 + 2 * k];
      if (row >= 0 && row < names.length && names[row] != null && id != NONE) {
        put(names[row], id);
      }
    }
  }

  private void put(String name, int id) {
    if (2 * (size + 1) > keys.length) {
      grow();
    }
    int h = name.hashCode();
    int mask = keys.length - 1;
    int i = slot(h, mask);
    for (int p = 0; p < MAX_PROBES; p++, i = (i + 1) & mask) {
      String k = keys[i];
      if (k == null) {
        keys[i] = name;
        hashes[i] = h;
        values[i] = id;
        size++;
        return;
      }
      if (k == name || (hashes[i] == h && k.equals(name))) {
        values[i] = id;
        return;
      }
    }
    // Crowded by names of one hash (an AM's crafting): this one goes by name.
  }

  private void grow() {
    String[] oldKeys = keys;
    int[] oldValues = values;
    keys = new String[2 * oldKeys.length];
    hashes = new int[keys.length];
    values = new int[keys.length];
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != null) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }

  /** Fibonacci hashing: spreads String hash codes that differ only in low bits. */
  private static int slot(int h, int mask) {
    return ((h * 0x9E3779B9) >>> 16) & mask;
  }
}
