package org.locus.yarn;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;

/**
 * Reads the core's answer to an offers frame, the binary decisions frame of {@code
 * rust-core/src/decisions_frame.rs} (layout in contract/wire.json): no JSON parser, no tree,
 * one object per decision. A decision names its node by its place in the offers frame it
 * answers, so the node comes from the list the caller offered, never from parsing an id.
 */
final class DecisionsFrame {
  static final int MAGIC = 0x3144534C;
  static final int HEADER_BYTES = 12;
  static final int DECISION_FIXED_BYTES = 56;
  /** Figures per queue in {@link Decision#typeMaxima}: vcores, then each extra type. */
  static final int TYPE_STRIDE = 1 + ResourceTypes.MAX_EXTRA;
  /** The most figures {@link Decision#typeMaxima} holds: whole queues in a list8. */
  static final int MAX_TYPE_MAXIMA = 255 / TYPE_STRIDE * TYPE_STRIDE;
  private static final long[] NO_ANCESTORS = new long[0];
  private static final long[] NO_EXTRA = new long[0];
  static final int REFUSED_FIXED_BYTES = 6;

  private DecisionsFrame() {
  }

  /** "Give {@code app} up to {@code count} containers of the ask at this key on this node." */
  static final class Decision {
    final NodeId node;
    final NodeType locality;
    final byte localityCode;
    final int priority;
    final long allocationRequestId;
    final int count;
    final long memoryMb;
    final int vcores;
    final String app;
    final String resourceName;
    /**
     * The ceilings the core decided under, re-checked at commit (-1: none): the leaf's
     * maximum, the user limit, and each parent queue's maximum, the leaf's parent first. MB.
     */
    final long queueMaxMb;
    final long userLimitMb;
    final long[] ancestorMaxMb;
    /** The capability's types beyond memory and vcores ({@link ResourceTypes}), trimmed. */
    final long[] extra;
    /**
     * Under DominantResourceCalculator, the maxima in the other types re-checked at commit:
     * {@link #TYPE_STRIDE} figures (vcores, then each extra type) for the leaf, then for each
     * parent of {@link #ancestorMaxMb} in its order (the deepest past {@link #MAX_TYPE_MAXIMA}
     * are left out); empty: memory only.
     */
    final long[] typeMaxima;
    private String nodeName;

    Decision(NodeId node, byte localityCode, int priority, long allocationRequestId, int count,
        long memoryMb, int vcores, String app, String resourceName) {
      this(node, localityCode, priority, allocationRequestId, count, memoryMb, vcores, app,
          resourceName, -1, -1, NO_ANCESTORS, NO_EXTRA);
    }

    Decision(NodeId node, byte localityCode, int priority, long allocationRequestId, int count,
        long memoryMb, int vcores, String app, String resourceName, long queueMaxMb,
        long userLimitMb, long[] ancestorMaxMb, long[] extra) {
      this(node, localityCode, priority, allocationRequestId, count, memoryMb, vcores, app,
          resourceName, queueMaxMb, userLimitMb, ancestorMaxMb, extra, NO_EXTRA);
    }

    Decision(NodeId node, byte localityCode, int priority, long allocationRequestId, int count,
        long memoryMb, int vcores, String app, String resourceName, long queueMaxMb,
        long userLimitMb, long[] ancestorMaxMb, long[] extra, long[] typeMaxima) {
      this.extra = extra;
      this.typeMaxima = typeMaxima;
      this.queueMaxMb = queueMaxMb;
      this.userLimitMb = userLimitMb;
      this.ancestorMaxMb = ancestorMaxMb;
      this.node = node;
      this.localityCode = localityCode;
      this.locality = localityCode == 0 ? NodeType.NODE_LOCAL
          : localityCode == 1 ? NodeType.RACK_LOCAL : NodeType.OFF_SWITCH;
      this.priority = priority;
      this.allocationRequestId = allocationRequestId;
      this.count = count;
      this.memoryMb = memoryMb;
      this.vcores = vcores;
      this.app = app;
      this.resourceName = resourceName;
    }

    String nodeName() {
      if (nodeName == null) {
        nodeName = node.toString();
      }
      return nodeName;
    }

    /** The protocol's name of the locality ({@code node_local}, ...), for messages. */
    String localityName() {
      return CoreMessages.locality(locality);
    }

    @Override
    public String toString() {
      return "{app " + app + ", priority " + priority + ", allocation_request_id "
          + allocationRequestId + ", " + localityName() + " at " + resourceName + " on node "
          + nodeName() + ", count " + count + ", <memory:" + memoryMb + ", vCores:" + vcores
          + (extra.length == 0 ? "" : ", extra:" + Arrays.toString(extra)) + ">}";
    }
  }

  /** A node the core could not decide for, with why. */
  static final class Refused {
    final NodeId node;
    final String reason;

    Refused(NodeId node, String reason) {
      this.node = node;
      this.reason = reason;
    }
  }

  /** Everything one answer holds. */
  static final class Answer {
    static final Answer NONE = new Answer(Collections.emptyList(), Collections.emptyList());

    final List<Decision> decisions;
    final List<Refused> refused;

    Answer(List<Decision> decisions, List<Refused> refused) {
      this.decisions = decisions;
      this.refused = refused;
    }

    List<Decision> decisions() {
      return decisions;
    }
  }

  /**
   * The answer {@code frame} holds to the offer of {@code offered} (in the offers frame's
   * order). A frame that does not follow the layout is the core's defect: refused whole, with
   * the byte where reading stopped, and nothing of it executed.
   */
  static Answer decode(byte[] frame, List<NodeId> offered) throws LocusException {
    ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
    try {
      int magic = b.getInt();
      if (magic != MAGIC) {
        throw malformed(0, String.format("magic 0x%08x is not a decisions frame's 0x%08x", magic,
            MAGIC));
      }
      long decisions = Integer.toUnsignedLong(b.getInt());
      long refused = Integer.toUnsignedLong(b.getInt());
      if (decisions > b.remaining() / DECISION_FIXED_BYTES) {
        throw malformed(4, decisions + " decisions announced, " + b.remaining() + " bytes left");
      }
      List<Decision> out = new ArrayList<>((int) decisions);
      for (int i = 0; i < decisions; i++) {
        NodeId node = node(b, offered, i);
        byte code = b.get();
        if (code < 0 || code > 2) {
          throw malformed(b.position() - 1, "decision " + i + ": locality " + code);
        }
        int priority = b.getInt();
        long allocationRequestId = b.getLong();
        long count = Integer.toUnsignedLong(b.getInt());
        long memoryMb = b.getLong();
        int vcores = b.getInt();
        if (memoryMb < 0 || vcores < 0) {
          throw malformed(b.position() - 12, "decision " + i + ": negative capability <memory:"
              + memoryMb + ", vCores:" + vcores + ">");
        }
        String app = text(b);
        String resourceName = text(b);
        long queueMaxMb = b.getLong();
        long userLimitMb = b.getLong();
        int ancestors = Byte.toUnsignedInt(b.get());
        long[] ancestorMaxMb = ancestors == 0 ? NO_ANCESTORS : new long[ancestors];
        for (int a = 0; a < ancestors; a++) {
          ancestorMaxMb[a] = b.getLong();
          if (ancestorMaxMb[a] < 0) {
            throw malformed(b.position() - 8, "decision " + i + ": negative ancestor maximum "
                + ancestorMaxMb[a]);
          }
        }
        int types = Byte.toUnsignedInt(b.get());
        if (types > ResourceTypes.MAX_EXTRA) {
          throw malformed(b.position() - 1, "decision " + i + ": " + types
              + " resource types beyond memory and vcores (at most " + ResourceTypes.MAX_EXTRA
              + ")");
        }
        long[] extra = types == 0 ? NO_EXTRA : new long[types];
        for (int t = 0; t < types; t++) {
          extra[t] = b.getLong();
          if (extra[t] < 0) {
            throw malformed(b.position() - 8, "decision " + i + ": resource type " + t + " is "
                + extra[t]);
          }
        }
        int maxima = Byte.toUnsignedInt(b.get());
        if (maxima > MAX_TYPE_MAXIMA || maxima % TYPE_STRIDE != 0) {
          throw malformed(b.position() - 1, "decision " + i + ": " + maxima
              + " type maxima (whole queues of " + TYPE_STRIDE + ", at most " + MAX_TYPE_MAXIMA
              + ")");
        }
        long[] typeMaxima = maxima == 0 ? NO_EXTRA : new long[maxima];
        for (int t = 0; t < maxima; t++) {
          typeMaxima[t] = b.getLong();
          if (typeMaxima[t] < 0) {
            throw malformed(b.position() - 8, "decision " + i + ": negative type maximum "
                + typeMaxima[t]);
          }
        }
        out.add(new Decision(node, code, priority, allocationRequestId,
            (int) Math.min(count, Integer.MAX_VALUE), memoryMb, vcores, app, resourceName,
            queueMaxMb, userLimitMb, ancestorMaxMb, extra, typeMaxima));
      }
      if (refused > b.remaining() / REFUSED_FIXED_BYTES) {
        throw malformed(8, refused + " refused nodes announced, " + b.remaining()
            + " bytes left");
      }
      List<Refused> nodes = refused == 0 ? Collections.emptyList()
          : new ArrayList<>((int) refused);
      for (int i = 0; i < refused; i++) {
        nodes.add(new Refused(node(b, offered, i), text(b)));
      }
      if (b.hasRemaining()) {
        throw malformed(b.position(), b.remaining() + " bytes after the last entry");
      }
      return new Answer(out, nodes);
    } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
      throw malformed(b.position(), "truncated frame of " + frame.length + " bytes");
    }
  }

  private static NodeId node(ByteBuffer b, List<NodeId> offered, int entry)
      throws LocusException {
    long index = Integer.toUnsignedLong(b.getInt());
    if (index >= offered.size()) {
      throw malformed(b.position() - 4, "entry " + entry + ": node index " + index
          + " outside the " + offered.size() + " offered");
    }
    return offered.get((int) index);
  }

  private static String text(ByteBuffer b) {
    int len = Short.toUnsignedInt(b.getShort());
    if (len > b.remaining()) {
      throw new BufferUnderflowException();
    }
    String s = new String(b.array(), b.arrayOffset() + b.position(), len,
        StandardCharsets.UTF_8);
    b.position(b.position() + len);
    return s;
  }

  private static LocusException malformed(int at, String what) {
    return new LocusException("malformed decisions frame at byte " + at + ": " + what);
  }
}
