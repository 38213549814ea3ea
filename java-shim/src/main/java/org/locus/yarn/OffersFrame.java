package org.locus.yarn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Writes the binary offers frame of {@code rust-core/src/offers.rs} (layout in
 * docs/architecture.md): the nodes of one scheduling pass, each with its unallocated resource,
 * cross into the core in one call instead of one JSON heartbeat each. One direct buffer per
 * thread (only the scheduling thread writes offers), grown when a batch does not fit.
 */
final class OffersFrame {
  static final int MAGIC = 0x314F534C;
  static final int HEADER_BYTES = 16;
  static final int NODE_FIXED_BYTES = 14;
  /** The core refuses longer node ids; the RM never makes one (a host name is at most 253). */
  static final int MAX_ID_BYTES = 1024;
  private static final int INITIAL_BYTES = 16 * 1024;

  private static final ThreadLocal<ByteBuffer> BUFFER =
      ThreadLocal.withInitial(() -> allocate(INITIAL_BYTES));

  private OffersFrame() {
  }

  private static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The frame offering {@code nodes} at {@code nowMs}, in this thread's buffer (position 0,
   * limit its length), valid until this thread's next frame. The unallocated resource is read
   * here, as late as possible before the core decides.
   *
   * @throws IllegalArgumentException for a node id the layout cannot carry
   */
  static ByteBuffer encode(List<FiCaSchedulerNode> nodes, long nowMs) {
    List<NodeId> ids = new ArrayList<>(nodes.size());
    List<Resource> free = new ArrayList<>(nodes.size());
    for (FiCaSchedulerNode n : nodes) {
      ids.add(n.getNodeID());
      free.add(n.getUnallocatedResource());
    }
    return encode(ids, free, nowMs);
  }

  /** As {@link #encode(List, long)}, from the ids and unallocated resources themselves. */
  static ByteBuffer encode(List<NodeId> nodes, List<Resource> unallocated, long nowMs) {
    byte[][] ids = new byte[nodes.size()][];
    long size = HEADER_BYTES;
    for (int i = 0; i < ids.length; i++) {
      byte[] id = nodes.get(i).toString().getBytes(StandardCharsets.UTF_8);
      if (id.length == 0 || id.length > MAX_ID_BYTES) {
        throw new IllegalArgumentException("node id " + nodes.get(i) + " of " + id.length
            + " bytes does not fit an offers frame");
      }
      ids[i] = id;
      size += NODE_FIXED_BYTES + id.length;
    }
    ByteBuffer b = BUFFER.get();
    if (b.capacity() < size) {
      // Bounded: a pass offers at most SchedulingLoop.OFFERS_PER_CALL nodes.
      b = allocate((int) Math.max(size, 2L * b.capacity()));
      BUFFER.set(b);
    }
    b.clear();
    b.putInt(MAGIC);
    b.putInt(ids.length);
    b.putLong(Math.max(0L, nowMs));
    for (int i = 0; i < ids.length; i++) {
      Resource free = unallocated.get(i);
      // As in JSON: a negative figure only comes from broken bookkeeping and means "nothing".
      b.putLong(Math.max(0L, free.getMemorySize()));
      b.putInt(Math.max(0, free.getVirtualCores()));
      b.putShort((short) ids[i].length);
      b.put(ids[i]);
    }
    b.flip();
    return b;
  }
}
