package org.locus.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ids one core published for the hosts of the RM's nodes ({@code Core::name_ids}), so an
 * asks frame carries a host row as a 4-byte id instead of the host's bytes and the core skips
 * hashing the name (docs/design/architecture.md, "Binary asks frame"). Keyed by host name, filled when
 * a node is added and emptied of a host when one of its nodes is removed, so it never holds
 * more hosts than the RM has nodes. Every frame numbered from it carries its {@link #epoch}: a
 * table of a core that a rebuild replaced is refused by the new core, never read against its
 * numbering, and the link then sends the asks by name ({@link CoreLink#sendAsks}). Read by the
 * scheduling thread while the dispatcher changes it, hence a concurrent map.
 */
final class NameIds {
  /** Before any core answered: numbers nothing, so frames go by name. */
  static final NameIds NONE = new NameIds(0L);

  private final long epoch;
  private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();

  NameIds(long epoch) {
    this.epoch = epoch;
  }

  long epoch() {
    return epoch;
  }

  /** The id of {@code host}, or null: the frame then carries the name. */
  Integer id(String host) {
    return ids.get(host);
  }

  int size() {
    return ids.size();
  }

  /** One of {@code host}'s nodes is gone: its id may no longer be published. */
  void forget(String host) {
    ids.remove(host);
  }

  /**
   * The core's answer to {@link LocusNative#nameIds} for {@code hosts}:
   * {@code {"epoch":E,"ids":[id or null,...]}}.
   */
  static final class Answer {
    final long epoch;
    final Integer[] ids;

    private Answer(long epoch, Integer[] ids) {
      this.epoch = epoch;
      this.ids = ids;
    }

    static Answer parse(String json, int expected) {
      JsonNode root;
      try {
        root = CoreMessages.JSON.readTree(json);
      } catch (IOException e) {
        throw new IllegalStateException("unreadable name ids from the core: " + json, e);
      }
      JsonNode list = root.path("ids");
      if (!root.path("epoch").canConvertToLong() || list.size() != expected) {
        throw new IllegalStateException("name ids from the core do not answer the "
            + expected + " names asked: " + json);
      }
      Integer[] ids = new Integer[expected];
      for (int i = 0; i < expected; i++) {
        JsonNode id = list.get(i);
        ids[i] = id.isNull() ? null : id.asInt();
      }
      return new Answer(root.path("epoch").asLong(), ids);
    }
  }

  /** Keeps what {@code answer} says of {@code hosts}; false when it is another core's. */
  boolean learn(List<String> hosts, Answer answer) {
    if (answer.epoch != epoch) {
      return false;
    }
    for (int i = 0; i < hosts.size(); i++) {
      if (answer.ids[i] != null) {
        ids.put(hosts.get(i), answer.ids[i]);
      } else {
        ids.remove(hosts.get(i));
      }
    }
    return true;
  }
}
