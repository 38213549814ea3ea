package org.locus.yarn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * Writes the binary asks frame of {@code rust-core/src/frame.rs} (layout in
 * docs/architecture.md): the hot allocate() path's rows go to the core without a JSON tree or
 * text. One direct buffer per thread, grown when a frame does not fit, so a call allocates
 * nothing but the names' bytes.
 */
public final class AsksFrame {
  static final int MAGIC = 0x314B534C;
  public static final byte KIND_CHANGED = 1;
  static final byte KIND_SNAPSHOT = 2;
  static final byte FLAG_DIGEST = 1;
  /** Rows may carry a host as the id the core published ({@link NameIds}). */
  static final byte FLAG_NAME_IDS = 2;
  static final int HEADER_BYTES = 20;
  static final int ROW_FIXED_BYTES = 31;
  private static final int INITIAL_BYTES = 64 * 1024;
  /**
   * The core's {@code MAX_NAME_BYTES} (rust-core/src/ask.rs), which refuses a frame with a
   * longer resource name; AsksFrameTest pins the two together against the core itself.
   */
  static final int MAX_NAME_BYTES = 1024;

  private static final ThreadLocal<ByteBuffer> BUFFER =
      ThreadLocal.withInitial(() -> allocate(INITIAL_BYTES));

  private AsksFrame() {
  }

  private static ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The frame for {@code rows} of {@code app} in this thread's buffer (position 0, limit its
   * length), valid until this thread's next frame. {@code digest} null: none follows.
   *
   * @throws IllegalArgumentException for an application id the layout cannot carry (the RM
   *     never makes one)
   * @throws RowRefused for a row the core would refuse
   */
  public static ByteBuffer encode(byte kind, ApplicationId app, Collection<ResourceRequest> rows,
      Long digest) {
    return encode(kind, app, rows, digest, null);
  }

  /** As {@link #encode(byte, ApplicationId, Collection, Long)}, numbering what {@code ids} does. */
  static ByteBuffer encode(byte kind, ApplicationId app, Collection<ResourceRequest> rows,
      Long digest, NameIds ids) {
    ByteBuffer b = start(kind, app, ids);
    for (ResourceRequest r : rows) {
      b = row(b, app, r.getPriority().getPriority(), r.getAllocationRequestId(), r, ids);
    }
    return finish(b, rows.size(), digest);
  }

  /**
   * Starts a frame in this thread's buffer, to be filled by {@link #row} and closed by
   * {@link #finish}: for a caller that has the rows one by one (no list of them) and knows
   * their scheduler key already (no two getters per row).
   *
   * @throws IllegalArgumentException for an application id the layout cannot carry
   */
  static ByteBuffer start(byte kind, ApplicationId app) {
    return start(kind, app, null);
  }

  /**
   * As {@link #start(byte, ApplicationId)}; with {@code ids} (not null), rows whose host it
   * numbers carry the id instead of the name ({@link #row(ByteBuffer, ApplicationId, int, long,
   * ResourceRequest, NameIds)}), and the frame carries the table's epoch.
   */
  static ByteBuffer start(byte kind, ApplicationId app, NameIds ids) {
    byte[] appBytes = app.toString().getBytes(StandardCharsets.UTF_8);
    if (appBytes.length == 0 || appBytes.length > 255) {
      throw new IllegalArgumentException("application id " + app + " does not fit an asks frame");
    }
    // One pass over the rows, each written straight into the buffer (grown as needed): a
    // pass to size the frame first, with a byte array per name, read every one of 5,000 RM
    // objects twice.
    ByteBuffer b = BUFFER.get();
    b.clear();
    b.putInt(MAGIC);
    b.put(kind);
    b.put((byte) 0);
    b.putShort((short) appBytes.length);
    b.putInt(0);
    b.putLong(0L);
    b.put(appBytes);
    if (ids != null && ids != NameIds.NONE) {
      // NONE (no core answered yet) numbers nothing: the frame goes without the flag.
      b.put(5, FLAG_NAME_IDS);
      b.putLong(ids.epoch());
    }
    return b;
  }

  /**
   * Appends {@code r} as a row of scheduler key ({@code priority}, {@code allocationRequestId})
   * to a frame begun by {@link #start}; returns the buffer to go on with (a larger one when it
   * had to grow).
   *
   * @throws RowRefused for a resource name over {@link #MAX_NAME_BYTES}, which the core would
   *     refuse (a row of count 0 with such a name is one the core cannot hold: see
   *     {@link #carries})
   */
  static ByteBuffer row(ByteBuffer frame, ApplicationId app, int priority,
      long allocationRequestId, ResourceRequest r) {
    return row(frame, app, priority, allocationRequestId, r, null);
  }

  /**
   * As {@link #row(ByteBuffer, ApplicationId, int, long, ResourceRequest)}; a name {@code ids}
   * numbers (the frame was started with the same table) goes as L = 0 and its 4-byte id.
   */
  static ByteBuffer row(ByteBuffer frame, ApplicationId app, int priority,
      long allocationRequestId, ResourceRequest r, NameIds ids) {
    ByteBuffer b = frame;
    String name = r.getResourceName();
    Integer id = ids == null ? null : ids.id(name);
    if (id != null) {
      if (b.remaining() < ROW_FIXED_BYTES + 4) {
        b = grow(b, ROW_FIXED_BYTES + 4, app);
      }
      putFixed(b, priority, allocationRequestId, r);
      b.putShort((short) 0);
      b.putInt(id);
      return b;
    }
    // Checked before growing: an AM's 70,000-char name must not size the buffer.
    if (name.length() > MAX_NAME_BYTES) {
      throw new RowRefused(app, priority, allocationRequestId, name, utf8Length(name));
    }
    // UTF-8 takes at most three bytes per UTF-16 char.
    int most = ROW_FIXED_BYTES + 3 * name.length();
    if (b.remaining() < most) {
      b = grow(b, most, app);
    }
    putFixed(b, priority, allocationRequestId, r);
    int lengthAt = b.position();
    b.putShort((short) 0);
    int length = putName(b, name);
    if (length > MAX_NAME_BYTES) {
      throw new RowRefused(app, priority, allocationRequestId, name, length);
    }
    b.putShort(lengthAt, (short) length);
    return b;
  }

  /** A row's fields before its name. */
  private static void putFixed(ByteBuffer b, int priority, long allocationRequestId,
      ResourceRequest r) {
    Resource c = r.getCapability();
    b.putInt(priority);
    b.putLong(allocationRequestId);
    // As in JSON: negative sizes only come from a broken request and mean "nothing".
    b.putLong(Math.max(0L, c.getMemorySize()));
    b.putInt(Math.max(0, c.getVirtualCores()));
    b.putInt(Math.max(0, r.getNumContainers()));
    b.put(r.getRelaxLocality() ? (byte) 1 : (byte) 0);
  }

  /** Whether {@code frame} (as {@link #finish} left it) may number names. */
  static boolean numbered(ByteBuffer frame) {
    return (frame.get(5) & FLAG_NAME_IDS) != 0;
  }

  /**
   * Whether some row of {@code frame} (as {@link #finish} left it) carries a numbered name: a
   * walk over the rows, for the rare frame the core refused, never on the hot path.
   */
  static boolean hasNumberedRow(ByteBuffer frame) {
    if (!numbered(frame)) {
      return false;
    }
    int rows = frame.getInt(8);
    int at = HEADER_BYTES + (frame.getShort(6) & 0xffff) + 8;
    for (int i = 0; i < rows && at + ROW_FIXED_BYTES <= frame.limit(); i++) {
      int length = frame.getShort(at + ROW_FIXED_BYTES - 2) & 0xffff;
      if (length == 0) {
        return true;
      }
      at += ROW_FIXED_BYTES + length;
    }
    return false;
  }

  /**
   * Closes a frame of {@code rows} rows begun by {@link #start}: the row count and the digest
   * (null: none follows) go into its header. The frame is valid until this thread's next one.
   */
  static ByteBuffer finish(ByteBuffer b, int rows, Long digest) {
    b.put(5, (byte) ((b.get(5) & FLAG_NAME_IDS) | (digest == null ? 0 : FLAG_DIGEST)));
    b.putInt(8, rows);
    b.putLong(12, digest == null ? 0L : digest);
    b.flip();
    return b;
  }

  /**
   * Writes {@code name} as UTF-8; host and rack names are ASCII, copied a char at a time. (A
   * bulk copy of {@code getBytes} was tried: faster once compiled, but its array per name made
   * RmPathBench's encoding rounds spread to twice the median; see README.)
   */
  private static int putName(ByteBuffer b, String name) {
    int start = b.position();
    int n = name.length();
    for (int k = 0; k < n; k++) {
      char ch = name.charAt(k);
      if (ch >= 0x80) {
        b.position(start);
        b.put(name.getBytes(StandardCharsets.UTF_8));
        return b.position() - start;
      }
      b.put((byte) ch);
    }
    return n;
  }

  /** A larger buffer holding what {@code b} has written, with room for {@code more} bytes. */
  private static ByteBuffer grow(ByteBuffer b, int more, ApplicationId app) {
    long want = Math.max(2L * b.capacity(), (long) b.position() + more);
    if (want > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("asks of " + app + " need a frame of over "
          + Integer.MAX_VALUE + " bytes");
    }
    ByteBuffer g = allocate((int) want);
    b.flip();
    g.put(b);
    BUFFER.set(g);
    return g;
  }

  /**
   * Whether the core can hold a row named {@code name}: one it could not is one it holds none
   * of, so a row setting it to 0 has nothing to say.
   */
  static boolean carries(String name) {
    // UTF-8 takes at most three bytes per UTF-16 char: only a long name is measured.
    int n = name.length();
    return n <= MAX_NAME_BYTES && (3 * n <= MAX_NAME_BYTES || utf8Length(name) <= MAX_NAME_BYTES);
  }

  private static int utf8Length(String name) {
    int bytes = 0;
    int n = name.length();
    for (int k = 0; k < n; k++) {
      char ch = name.charAt(k);
      if (ch < 0x80) {
        bytes += 1;
      } else if (ch < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(ch) && k + 1 < n
          && Character.isLowSurrogate(name.charAt(k + 1))) {
        bytes += 4;
        k++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * A row the core would refuse, so its frame is not sent: the application's owner is told as
   * for the core's own refusals (LocusAppAttempt#asksRefused). Worded as the core words it.
   */
  static final class RowRefused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    RowRefused(ApplicationId app, int priority, long allocationRequestId, String name,
        int bytes) {
      super("application " + app + ", priority " + priority + ", allocation_request_id "
          + allocationRequestId + ": resource_name of " + bytes + " bytes (at most "
          + MAX_NAME_BYTES + "), starting " + quoted(name));
    }

    private static String quoted(String name) {
      return '"' + (name.length() <= 40 ? name : name.substring(0, 40) + "...") + '"';
    }
  }
}
