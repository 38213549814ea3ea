package org.locus.yarn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.slf4j.LoggerFactory;

/**
 * Writes the binary offers frame of {@code rust-core/src/offers.rs} (layout in
 * contract/wire.json, checked by ContractTest): the nodes of one scheduling pass, each with its
 * unallocated resource, cross into the core in one call instead of one JSON heartbeat each. Each node's kind byte
 * says whether the offer is its heartbeat or an async sweep's extra offer: the locality layers
 * count scheduling opportunities in heartbeats only, so {@code delay} waits as long in both
 * scheduling modes. A sweep's offer under {@code heartbeat} mode is marked eager: the core places
 * on it only the asks that gain nothing from waiting for a heartbeat. One direct buffer per thread (only the scheduling thread writes offers),
 * grown when a batch does not fit.
 */
final class OffersFrame {
  static final int MAGIC = 0x324F534C;
  static final int HEADER_BYTES = 16;
  /** A node without its id and with no extra types (their count byte counted). */
  static final int NODE_FIXED_BYTES = 16;
  static final byte KIND_HEARTBEAT = 0;
  static final byte KIND_SWEEP = 1;
  static final byte KIND_EAGER = 2;
  /** The core refuses longer node ids; the RM never makes one (a host name is at most 253). */
  static final int MAX_ID_BYTES = 1024;
  private static final int INITIAL_BYTES = 16 * 1024;
  /** A node left out is named once a minute, not on every pass that would have offered it. */
  private static final FailureLog LEFT_OUT =
      new FailureLog(LoggerFactory.getLogger(OffersFrame.class), 60_000,
          System::currentTimeMillis);

  private static final ThreadLocal<ByteBuffer> BUFFER =
      ThreadLocal.withInitial(() -> allocate(INITIAL_BYTES));

  private OffersFrame() {
  }

  private static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The frame offering {@code nodes} at {@code nowMs}, in this thread's buffer (position 0,
   * limit its length), valid until this thread's next frame; {@code offered} receives the ids
   * of the nodes it holds, in order. The unallocated resource is read
   * here, as late as possible before the core decides. A node whose id the layout cannot carry
   * is left out (and logged): it must not cost the other nodes of its batch their offer.
   */
  static ByteBuffer encode(List<FiCaSchedulerNode> nodes, Set<FiCaSchedulerNode> swept,
      long nowMs, List<NodeId> offered) {
    return encode(nodes, swept, KIND_SWEEP, nowMs, offered);
  }

  /** As above, the nodes in {@code swept} marked {@code sweptKind} (a sweep's or an eager). */
  static ByteBuffer encode(List<FiCaSchedulerNode> nodes, Set<FiCaSchedulerNode> swept,
      byte sweptKind, long nowMs, List<NodeId> offered) {
    List<NodeId> ids = new ArrayList<>(nodes.size());
    List<Resource> free = new ArrayList<>(nodes.size());
    List<Boolean> sweep = new ArrayList<>(nodes.size());
    for (FiCaSchedulerNode n : nodes) {
      ids.add(n.getNodeID());
      free.add(n.getUnallocatedResource());
      sweep.add(swept.contains(n));
    }
    return encode(ids, free, sweep, sweptKind, nowMs, offered);
  }

  /** The nodes' heartbeats, from the ids and unallocated resources themselves. */
  static ByteBuffer encode(List<NodeId> nodes, List<Resource> unallocated, long nowMs) {
    return encode(nodes, unallocated, Collections.nCopies(nodes.size(), false), nowMs,
        new ArrayList<>());
  }

  /**
   * As {@link #encode(List, List, long)}, each node marked a sweep's offer or a heartbeat;
   * {@code offered} receives the nodes the frame holds, in its order (the core's answer names
   * them by that place).
   */
  static ByteBuffer encode(List<NodeId> nodes, List<Resource> unallocated, List<Boolean> sweep,
      long nowMs, List<NodeId> offered) {
    return encode(nodes, unallocated, sweep, KIND_SWEEP, nowMs, offered);
  }

  private static ByteBuffer encode(List<NodeId> nodes, List<Resource> unallocated,
      List<Boolean> sweep, byte sweptKind, long nowMs, List<NodeId> offered) {
    List<byte[]> ids = new ArrayList<>(nodes.size());
    List<Resource> free = new ArrayList<>(nodes.size());
    List<Boolean> kinds = new ArrayList<>(nodes.size());
    long size = HEADER_BYTES;
    for (int i = 0; i < nodes.size(); i++) {
      String name = nodes.get(i).toString();
      byte[] id = name.getBytes(StandardCharsets.UTF_8);
      if (id.length == 0 || id.length > MAX_ID_BYTES) {
        LEFT_OUT.warn("Offering a node to Locus", "node " + FailureLog.abbreviate(name),
            new IllegalArgumentException("its id of " + id.length + " bytes does not fit an "
                + "offers frame (1 to " + MAX_ID_BYTES + "); the node gets no containers"),
            null);
        continue;
      }
      ids.add(id);
      offered.add(nodes.get(i));
      free.add(unallocated.get(i));
      kinds.add(sweep.get(i));
      size += NODE_FIXED_BYTES + id.length + 8 * ResourceTypes.extraCount(unallocated.get(i));
    }
    ByteBuffer b = BUFFER.get();
    if (b.capacity() < size) {
      // Bounded: a pass offers at most SchedulingLoop.OFFERS_PER_CALL nodes.
      b = allocate((int) Math.max(size, 2L * b.capacity()));
      BUFFER.set(b);
    }
    b.clear();
    b.putInt(MAGIC);
    b.putInt(ids.size());
    b.putLong(Math.max(0L, nowMs));
    for (int i = 0; i < ids.size(); i++) {
      Resource r = free.get(i);
      // As in JSON: a negative figure only comes from broken bookkeeping and means "nothing".
      b.putLong(Math.max(0L, r.getMemorySize()));
      b.putInt(Math.max(0, r.getVirtualCores()));
      b.put(kinds.get(i) ? sweptKind : KIND_HEARTBEAT);
      b.putShort((short) ids.get(i).length);
      b.put(ids.get(i));
      int types = ResourceTypes.extraCount(r);
      b.put((byte) types);
      for (int t = 0; t < types; t++) {
        b.putLong(ResourceTypes.extra(r, t));
      }
    }
    b.flip();
    return b;
  }
}
