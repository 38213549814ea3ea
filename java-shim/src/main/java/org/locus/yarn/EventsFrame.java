package org.locus.yarn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;

/**
 * One batch of events for the core as a binary events frame ({@code
 * rust-core/src/events_frame.rs}; layout in contract/wire.json): what the RM did with the
 * core's decisions and with its containers ({@code container_allocated},
 * {@code container_released}, {@code decision_rejected}, {@code asks_digest}) as fixed records,
 * all in one call and in the order written; a record whose text will not fit a u16 length goes
 * as one JSON record of the same event (YARN's ids never are that long). It replaces a
 * Jackson tree per event on the paths every container takes. Records go into a heap array; the
 * finished frame is copied into this thread's direct buffer in one bulk copy when sent.
 */
final class EventsFrame {
  static final int MAGIC = 0x3145534C;
  static final int HEADER_BYTES = 8;
  static final byte CONTAINER_ALLOCATED = 1;
  static final byte CONTAINER_RELEASED = 2;
  static final byte DECISION_REJECTED = 3;
  static final byte ASKS_DIGEST = 4;
  static final byte JSON = 5;
  /** A text's length is a u16; YARN's ids are far shorter (an event that is not goes as JSON). */
  static final int MAX_TEXT_BYTES = 0xFFFF;
  /** A rejection's reason is cut here: the core logs it, nothing parses it. */
  static final int MAX_REASON_CHARS = 1024;
  /** Applications named in a failure's subject. */
  private static final int SUBJECT_APPS = 3;
  /** The most a record's extra types take: their count byte and amounts. */
  private static final int EXTRA_BYTES = 1 + 8 * ResourceTypes.MAX_EXTRA;

  private static final VarHandle I16 =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I32 =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I64 =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** Kept per thread up to this size; a larger frame's buffer is dropped after its call. */
  private static final int RETAINED_BYTES = 1 << 20;
  private static final ThreadLocal<ByteBuffer[]> DIRECT =
      ThreadLocal.withInitial(() -> new ByteBuffer[] {allocate(4096)});

  private byte[] buf = new byte[256];
  private int pos = HEADER_BYTES;
  private int records;
  private boolean bookkeeping;
  private final Set<String> apps = new LinkedHashSet<>();
  private String node;

  int size() {
    return records;
  }

  boolean isEmpty() {
    return records == 0;
  }

  /**
   * Whether a record reports the RM's own bookkeeping (containers, removals): the RM has done
   * it whatever the core says, so a refusal leaves the core short of the RM's view (see
   * {@link CoreLink#recordsBookkeeping}).
   */
  boolean recordsBookkeeping() {
    return bookkeeping;
  }

  /** Names what the batch was about: its applications, else its node. */
  String subject() {
    if (apps.isEmpty()) {
      return node == null ? "the cluster" : "node " + node;
    }
    StringBuilder b = new StringBuilder(apps.size() == 1 ? "application " : "applications ");
    int i = 0;
    for (String a : apps) {
      if (i == SUBJECT_APPS) {
        b.append(", ... (").append(apps.size()).append(" in all)");
        break;
      }
      b.append(i++ > 0 ? ", " : "").append(a);
    }
    return b.toString();
  }

  /**
   * The records' kinds and first texts, read back from the frame: for a failure's debug line,
   * so the hot path writes nothing for it.
   */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder().append(records).append(" events:");
    int at = HEADER_BYTES;
    String[] kinds = {"?", "container_allocated", "container_released", "decision_rejected",
        "asks_digest", "json"};
    int[] fixed = {0, 26, 12, 33, 8};
    for (int r = 0; r < records && at < pos && b.length() < 500; r++) {
      int kind = buf[at++];
      b.append(r == 0 ? " " : "; ");
      if (kind == JSON) {
        int len = (int) I32.get(buf, at);
        b.append(new String(buf, at + 4, len, StandardCharsets.UTF_8));
        at += 4 + len;
        continue;
      }
      b.append(kind > 0 && kind < kinds.length ? kinds[kind] : "?");
      int texts = kind == ASKS_DIGEST ? 1 : 3;
      for (int t = 0; t < texts; t++) {
        int len = Short.toUnsignedInt((short) I16.get(buf, at));
        b.append(' ').append(new String(buf, at + 2, len, StandardCharsets.UTF_8));
        at += 2 + len;
      }
      at += kind > 0 && kind < fixed.length ? fixed[kind] : pos;
      if (kind == DECISION_REJECTED) {
        at += 2 + Short.toUnsignedInt((short) I16.get(buf, at));
      }
      if (kind != ASKS_DIGEST && at < pos) {
        // The record's extra resource types, last in it.
        at += 1 + 8 * (buf[at] & 0xff);
      }
    }
    return FailureLog.abbreviate(b.toString());
  }

  void containerAllocated(ContainerId container, NodeId at, int priority,
      long allocationRequestId, Resource resource, NodeType locality, boolean recovered) {
    String app = container.getApplicationAttemptId().getApplicationId().toString();
    String id = container.toString();
    String nodeName = at.toString();
    int start = begin(CONTAINER_ALLOCATED, app, nodeName);
    if (text(app) && text(id) && text(nodeName)) {
      ensure(34 + EXTRA_BYTES);
      i32(priority);
      i64(allocationRequestId);
      resource(resource);
      buf[pos++] = localityCode(locality);
      buf[pos++] = (byte) (recovered ? 1 : 0);
      extra(resource);
      end(true);
    } else {
      pos = start;
      asJson(start, CoreMessages.containerAllocated(container, at, priority, allocationRequestId,
          resource, locality, recovered));
    }
  }

  void containerReleased(ContainerId container, NodeId at, Resource resource) {
    String app = container.getApplicationAttemptId().getApplicationId().toString();
    String id = container.toString();
    String nodeName = at.toString();
    int start = begin(CONTAINER_RELEASED, app, nodeName);
    if (text(app) && text(id) && text(nodeName)) {
      ensure(12 + EXTRA_BYTES);
      resource(resource);
      extra(resource);
      end(true);
    } else {
      pos = start;
      asJson(start, CoreMessages.containerReleased(container, at, resource));
    }
  }

  /**
   * The core's decision {@code d}, of which {@code executed} containers were created. Its texts
   * came from the decisions frame (u16 lengths) and the reason is cut, so every one fits.
   */
  void decisionRejected(DecisionsFrame.Decision d, int executed, String reason) {
    String why = reason == null ? "" : reason.length() <= MAX_REASON_CHARS ? reason
        : reason.substring(0, MAX_REASON_CHARS) + "...";
    // Checked before anything is written, so a failure leaves the frame's other records (the
    // containers already created) intact for the core.
    for (String s : new String[] {d.app, d.nodeName(), d.resourceName}) {
      if (s.length() > MAX_TEXT_BYTES / 3
          && s.getBytes(StandardCharsets.UTF_8).length > MAX_TEXT_BYTES) {
        throw new IllegalArgumentException("decision " + d + " has a text over "
            + MAX_TEXT_BYTES + " bytes, which its frame cannot have carried");
      }
    }
    begin(DECISION_REJECTED, d.app, d.nodeName());
    text(d.app);
    text(d.nodeName());
    text(d.resourceName);
    ensure(41);
    i32(d.priority);
    i64(d.allocationRequestId);
    buf[pos++] = d.localityCode;
    i32(d.count);
    // As everywhere in the frames: never a negative size (the core refuses one).
    i64(Math.max(0L, d.memoryMb));
    i32(Math.max(0, d.vcores));
    i32(Math.max(0, executed));
    // At most MAX_REASON_CHARS + 3 chars: at most 3,081 bytes, within a text.
    text(why);
    ensure(1 + 8 * d.extra.length);
    buf[pos++] = (byte) d.extra.length;
    for (long v : d.extra) {
      i64(Math.max(0L, v));
    }
    end(true);
  }

  void asksDigest(ApplicationId app, long digest) {
    String name = app.toString();
    int start = begin(ASKS_DIGEST, name, null);
    if (text(name)) {
      ensure(8);
      i64(digest);
      end(false);
    } else {
      pos = start;
      asJson(start, CoreMessages.asksDigest(app, digest));
    }
  }

  /**
   * The frame in this thread's direct buffer (position 0, limit its length), valid until this
   * thread's next frame.
   */
  ByteBuffer direct() {
    I32.set(buf, 0, MAGIC);
    I32.set(buf, 4, records);
    ByteBuffer[] held = DIRECT.get();
    ByteBuffer out = held[0];
    if (out.capacity() < pos) {
      out = allocate(Math.max(pos, 2 * out.capacity()));
      if (out.capacity() <= RETAINED_BYTES) {
        held[0] = out;
      }
    }
    out.clear();
    out.put(buf, 0, pos);
    out.flip();
    return out;
  }

  // ------------------------------------------------------------------ writing

  /** Starts a record; it counts once {@link #end} or {@link #asJson} finished it. */
  private int begin(byte kind, String app, String nodeName) {
    int start = pos;
    apps.add(app);
    if (nodeName != null) {
      node = nodeName;
    }
    ensure(1);
    buf[pos++] = kind;
    return start;
  }

  private void end(boolean isBookkeeping) {
    records++;
    bookkeeping |= isBookkeeping;
  }

  /**
   * Replaces the record begun at {@code start} by {@code event} as JSON. The callers that began a
   * record take it back ({@code pos = start}) before building the event, and the text is made
   * before the frame is written: should either fail, the frame keeps its other records intact.
   */
  private void asJson(int start, ObjectNode event) {
    byte[] json = CoreMessages.write(event).getBytes(StandardCharsets.UTF_8);
    pos = start;
    ensure(5 + json.length);
    buf[pos++] = JSON;
    i32(json.length);
    System.arraycopy(json, 0, buf, pos, json.length);
    pos += json.length;
    records++;
    bookkeeping |= CoreLink.isBookkeeping(event.path("type").asText());
  }

  /** Writes {@code s} as a u16-length text; false (nothing usable written) when too long. */
  private boolean text(String s) {
    int n = s.length();
    if (n > MAX_TEXT_BYTES) {
      return false;
    }
    ensure(2 + 3 * n);
    int at = pos + 2;
    for (int k = 0; k < n; k++) {
      char ch = s.charAt(k);
      if (ch >= 0x80) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_TEXT_BYTES) {
          return false;
        }
        System.arraycopy(utf8, 0, buf, pos + 2, utf8.length);
        I16.set(buf, pos, (short) utf8.length);
        pos += 2 + utf8.length;
        return true;
      }
      buf[at + k] = (byte) ch;
    }
    I16.set(buf, pos, (short) n);
    pos += 2 + n;
    return true;
  }

  /** A resource's types beyond memory and vcores, last in its record ({@link ResourceTypes}). */
  private void extra(Resource r) {
    int n = ResourceTypes.extraCount(r);
    buf[pos++] = (byte) n;
    for (int i = 0; i < n; i++) {
      i64(ResourceTypes.extra(r, i));
    }
  }

  private void resource(Resource r) {
    // As in JSON: a negative figure only comes from broken bookkeeping and means "nothing".
    i64(Math.max(0L, r.getMemorySize()));
    i32(Math.max(0, r.getVirtualCores()));
  }

  static byte localityCode(NodeType type) {
    switch (type) {
      case NODE_LOCAL:
        return 0;
      case RACK_LOCAL:
        return 1;
      default:
        return 2;
    }
  }

  private void ensure(int more) {
    if (buf.length - pos < more) {
      buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8,
          Math.max(2L * buf.length, (long) pos + more)));
    }
  }

  private void i32(int v) {
    I32.set(buf, pos, v);
    pos += 4;
  }

  private void i64(long v) {
    I64.set(buf, pos, v);
    pos += 8;
  }

  private static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
