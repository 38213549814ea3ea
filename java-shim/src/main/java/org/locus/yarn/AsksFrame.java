package org.locus.yarn;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;

/**
 * Writes the binary asks frame of {@code rust-core/src/frame.rs} (layout in
 * contract/wire.json, checked by ContractTest): the hot allocate() path's rows go to the core without a JSON tree or
 * text. One heap array and one direct buffer per thread ({@link Writer}), grown when a frame
 * does not fit; per frame only the application id's bytes (and those of names with non-ASCII
 * characters) are allocated.
 */
public final class AsksFrame {
  static final int MAGIC = 0x314B534C;
  public static final byte KIND_CHANGED = 1;
  static final byte KIND_SNAPSHOT = 2;
  static final byte FLAG_DIGEST = 1;
  /** Rows may carry a host as the id the core published ({@link NameIds}). */
  static final byte FLAG_NAME_IDS = 2;
  static final int HEADER_BYTES = 20;
  /**
   * A row's bytes before its name (or id); the extra types' list follows the name (the spec's
   * fixed part of a row is this and the list's count byte).
   */
  static final int ROW_FIXED_BYTES = 31;
  /** The most a row's extra types take: their count byte and the amounts. */
  private static final int MAX_EXTRA_BYTES = 1 + 8 * ResourceTypes.MAX_EXTRA;
  private static final int INITIAL_BYTES = 64 * 1024;
  private static final int INITIAL_ROWS = 1024;
  /**
   * Rows' names a writer keeps between frames: {@code locus.app.max-ask-rows}' default and then
   * some; a larger frame's array is dropped at the next frame, as {@link #RETAINED_BYTES}.
   */
  private static final int RETAINED_ROWS = 16_384;
  /**
   * What a thread's writer keeps between frames, in its array and in its direct buffer each. The largest frame the core takes under its
   * default bounds (`locus.app.max-ask-rows` 12,288 rows, names of at most 1,024 bytes) is about
   * 13 MB. The RM bounds no application's rows, but a table over the core's limit is refused
   * without being written (LocusAppAttempt#takeAsksFrame); a limit raised past the default
   * grows the writer for a larger frame, and the next frame starts from fresh buffers instead of
   * keeping that size for the thread's life.
   */
  static final int RETAINED_BYTES = 16 << 20;
  /**
   * The core's {@code MAX_NAME_BYTES} (rust-core/src/ask.rs), which refuses a frame with a
   * longer resource name; AsksFrameTest pins the two together against the core itself.
   */
  static final int MAX_NAME_BYTES = 1024;
  /**
   * Most bytes one frame may take: the bound on what an application's asks can make the shim
   * hold, whatever {@code locus.app.max-ask-rows} allows (its maximum, 10,000,000 rows of
   * 1,024-byte names, would be over 10 GB). 64 MiB holds the default limit's largest table
   * (12,288 rows of the longest names, 13 MB) five times over; past it the asks are the
   * application's refusal, as a table over the row limit is.
   */
  static final int MAX_FRAME_BYTES = 64 << 20;
  /** The core's setting bounding one application's rows; its value is the core's own. */
  static final String MAX_ASK_ROWS_KEY = "locus.app.max-ask-rows";

  private static final VarHandle I16 =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I32 =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I64 =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final ThreadLocal<Writer> WRITER = ThreadLocal.withInitial(Writer::new);

  private AsksFrame() {
  }

  /**
   * A frame being written, per thread. Rows go into a heap array and the finished frame is
   * copied into a direct buffer in one bulk copy: per-byte puts into the direct buffer (each
   * with its bounds and scope checks) were about half of the encoding in a JFR profile. Both
   * grow to the thread's largest frame and are kept up to {@link #RETAINED_BYTES} each.
   */
  static final class Writer {
    private byte[] buf = new byte[INITIAL_BYTES];
    private int pos;
    private ByteBuffer out = allocate(INITIAL_BYTES);
    /** Rows written so far in this frame. */
    private int rows;
    /**
     * In a numbered frame, the name of each row written by name (the entries of rows by id are
     * left as they were): the core's answer names waiting names by row
     * ({@link WaitingIds#learn}).
     */
    private String[] rowNames = new String[INITIAL_ROWS];
    private boolean numbered;

    private Writer() {
    }

    /** Room for {@code more} bytes after what is written. */
    private void ensure(int more, ApplicationId app) {
      if (buf.length - pos >= more) {
        return;
      }
      long need = (long) pos + more;
      if (need > MAX_FRAME_BYTES) {
        // The array may have grown toward the bound: not kept for the thread's next frame.
        buf = new byte[INITIAL_BYTES];
        pos = 0;
        throw RowRefused.overFrameBytes(app);
      }
      buf = Arrays.copyOf(buf, (int) Math.min(MAX_FRAME_BYTES, Math.max(2L * buf.length, need)));
    }

    private void i8(int v) {
      buf[pos++] = (byte) v;
    }

    private void i16(int v) {
      I16.set(buf, pos, (short) v);
      pos += 2;
    }

    private void i32(int v) {
      I32.set(buf, pos, v);
      pos += 4;
    }

    private void i64(long v) {
      I64.set(buf, pos, v);
      pos += 8;
    }
  }

  /** Bytes this thread's writer holds now (its array and its direct buffer); for tests. */
  static long writerBytes() {
    Writer w = WRITER.get();
    return (long) w.buf.length + w.out.capacity();
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
    Writer w = start(kind, app, ids);
    for (ResourceRequest r : rows) {
      row(w, app, r.getPriority().getPriority(), r.getAllocationRequestId(), r, ids);
    }
    return finish(w, rows.size(), digest);
  }

  /**
   * Starts a frame in this thread's writer, to be filled by the {@code row} methods and closed
   * by {@link #finish}: for a caller that has the rows one by one (no list of them) and knows
   * their scheduler key already (no two getters per row). With {@code ids} (not null, not
   * {@link NameIds#NONE}) the frame carries the table's epoch, and rows may carry the ids it
   * gives instead of names.
   *
   * @throws IllegalArgumentException for an application id the layout cannot carry
   */
  static Writer start(byte kind, ApplicationId app, NameIds ids) {
    byte[] appBytes = app.toString().getBytes(StandardCharsets.UTF_8);
    if (appBytes.length == 0 || appBytes.length > 255) {
      // The RM never makes one; if it did, this application's asks, not a failure of the core.
      throw RowRefused.overFrameBytes(app);
    }
    // One pass over the rows, each written straight into the buffer (grown as needed): a
    // pass to size the frame first, with a byte array per name, read every one of 5,000 RM
    // objects twice.
    Writer w = WRITER.get();
    if (w.buf.length > RETAINED_BYTES) {
      w.buf = new byte[INITIAL_BYTES];
    }
    if (w.out.capacity() > RETAINED_BYTES) {
      // The last frame, which is valid only until this one, is the only use of it.
      w.out = allocate(INITIAL_BYTES);
    }
    w.pos = 0;
    w.rows = 0;
    if (w.rowNames.length > RETAINED_ROWS) {
      w.rowNames = new String[INITIAL_ROWS];
    }
    w.i32(MAGIC);
    w.i8(kind);
    // NONE (no core answered yet) numbers nothing: the frame goes without the flag.
    boolean numbered = ids != null && ids != NameIds.NONE;
    w.numbered = numbered;
    w.i8(numbered ? FLAG_NAME_IDS : 0);
    w.i16(appBytes.length);
    w.i32(0);
    w.i64(0L);
    System.arraycopy(appBytes, 0, w.buf, w.pos, appBytes.length);
    w.pos += appBytes.length;
    if (numbered) {
      w.i64(ids.epoch());
    }
    return w;
  }

  /**
   * Appends {@code r} as a row of scheduler key ({@code priority}, {@code allocationRequestId})
   * to a frame begun by {@link #start}; a name {@code ids} numbers (the frame was started with
   * the same table) goes as L = 0 and its 4-byte id.
   *
   * @throws RowRefused for an empty resource name or one over {@link #MAX_NAME_BYTES}, which
   *     the core would refuse (a row of count 0 with such a name is one the core cannot hold: see
   *     {@link #carries})
   */
  static void row(Writer w, ApplicationId app, int priority, long allocationRequestId,
      ResourceRequest r, NameIds ids) {
    row(w, app, priority, allocationRequestId, r, ids, null);
  }

  /**
   * As {@link #row(Writer, ApplicationId, int, long, ResourceRequest, NameIds)}, a name that
   * neither a node's host id nor {@code waiting} (the attempt's waiting names' ids, for the
   * numbering {@code ids} is; null: none) numbers going by name.
   */
  static void row(Writer w, ApplicationId app, int priority, long allocationRequestId,
      ResourceRequest r, NameIds ids, WaitingIds waiting) {
    String name = r.getResourceName();
    // The attempt's waiting names first while it has any: an AM's hosts are nearly all
    // NodeManagers or nearly all not, and a split host then costs one probe, not a miss in the
    // node table too. A waiting id of a host a node took since is refused by the core and the
    // rows re-sent by name (CoreLink#sendAsks), which empties the table.
    int waitingId = waiting == null || waiting.size() == 0 ? WaitingIds.NONE : waiting.id(name);
    if (waitingId != WaitingIds.NONE) {
      numberedRow(w, app, priority, allocationRequestId, r, waitingId);
      return;
    }
    Integer id = ids == null ? null : ids.id(name);
    if (id != null) {
      numberedRow(w, app, priority, allocationRequestId, r, id);
      return;
    }
    // Checked before growing: an AM's 70,000-char name must not size the buffer.
    if (name.length() > MAX_NAME_BYTES) {
      throw new RowRefused(app, priority, allocationRequestId, name, utf8Length(name));
    }
    // The core refuses a blank name; an empty one would also read as "an id follows" in a
    // numbered frame.
    if (blank(name)) {
      throw new RowRefused(app, priority, allocationRequestId, name);
    }
    // UTF-8 takes at most three bytes per UTF-16 char.
    w.ensure(ROW_FIXED_BYTES + MAX_EXTRA_BYTES + 3 * name.length(), app);
    putFixed(w, priority, allocationRequestId, r);
    int lengthAt = w.pos;
    w.pos += 2;
    int length = putName(w, name);
    if (length > MAX_NAME_BYTES) {
      throw new RowRefused(app, priority, allocationRequestId, name, length);
    }
    I16.set(w.buf, lengthAt, (short) length);
    putExtra(w, r.getCapability());
    if (w.numbered) {
      // Rows by id advance the count without a record, so the record may be short by many.
      if (w.rows >= w.rowNames.length) {
        w.rowNames = Arrays.copyOf(w.rowNames, Math.max(2 * w.rowNames.length, w.rows + 1));
      }
      w.rowNames[w.rows] = name;
    }
    w.rows++;
  }

  /**
   * The names of the rows this thread's last frame sent by name, by row, if the frame is
   * numbered (other entries are stale: the core's answer names only rows sent by name in a
   * numbered frame); valid until the thread's next frame.
   */
  static String[] rowNames() {
    return WRITER.get().rowNames;
  }

  /** The names epoch {@code frame} (numbered, as {@link #finish} left it) carries. */
  static long epoch(ByteBuffer frame) {
    return frame.getLong(HEADER_BYTES + (frame.getShort(6) & 0xffff));
  }

  /** As {@link #row}, the name being the id {@code id} of the table the frame started with. */
  static void numberedRow(Writer w, ApplicationId app, int priority, long allocationRequestId,
      ResourceRequest r, int id) {
    w.ensure(ROW_FIXED_BYTES + MAX_EXTRA_BYTES + 4, app);
    putFixed(w, priority, allocationRequestId, r);
    w.i16(0);
    w.i32(id);
    putExtra(w, r.getCapability());
    // No name recorded: the core teaches only rows sent by name.
    w.rows++;
  }

  /** A row's fields before its name. */
  private static void putFixed(Writer w, int priority, long allocationRequestId,
      ResourceRequest r) {
    Resource c = r.getCapability();
    w.i32(priority);
    w.i64(allocationRequestId);
    // As in JSON: negative sizes only come from a broken request and mean "nothing".
    w.i64(Math.max(0L, c.getMemorySize()));
    w.i32(Math.max(0, c.getVirtualCores()));
    w.i32(Math.max(0, r.getNumContainers()));
    w.i8(r.getRelaxLocality() ? 1 : 0);
  }

  /** A row's extra resource types, after its name or id ({@link ResourceTypes}). */
  private static void putExtra(Writer w, Resource c) {
    int n = ResourceTypes.extraCount(c);
    w.i8(n);
    for (int i = 0; i < n; i++) {
      w.i64(ResourceTypes.extra(c, i));
    }
  }

  /** The bytes of the extra types' list at {@code at} of {@code frame}: its count and amounts. */
  static int extraBytes(ByteBuffer frame, int at) {
    return 1 + 8 * (frame.get(at) & 0xff);
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
      if (at >= frame.limit()) {
        break;
      }
      at += extraBytes(frame, at);
    }
    return false;
  }

  /**
   * Closes a frame of {@code rows} rows begun by {@link #start}: the row count and the digest
   * (null: none follows) go into its header, and the frame into this thread's direct buffer
   * (position 0, limit its length), valid until this thread's next frame.
   */
  static ByteBuffer finish(Writer w, int rows, Long digest) {
    byte[] b = w.buf;
    b[5] = (byte) ((b[5] & FLAG_NAME_IDS) | (digest == null ? 0 : FLAG_DIGEST));
    I32.set(b, 8, rows);
    I64.set(b, 12, digest == null ? 0L : digest);
    if (w.out.capacity() < w.pos) {
      w.out = allocate(Math.max(w.pos, 2 * w.out.capacity()));
    }
    ByteBuffer out = w.out;
    out.clear();
    out.put(b, 0, w.pos);
    out.flip();
    return out;
  }

  /**
   * Writes {@code name} as UTF-8; host and rack names are ASCII, copied a char at a time. (A
   * bulk copy of {@code getBytes} was tried: faster once compiled, but its array per name made
   * RmPathBench's encoding rounds spread to twice the median; see docs/results/2026-11-24-benchmarks.md.)
   */
  private static int putName(Writer w, String name) {
    int start = w.pos;
    byte[] b = w.buf;
    int n = name.length();
    for (int k = 0; k < n; k++) {
      char ch = name.charAt(k);
      if (ch >= 0x80) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(utf8, 0, b, start, utf8.length);
        w.pos = start + utf8.length;
        return utf8.length;
      }
      b[start + k] = (byte) ch;
    }
    w.pos = start + n;
    return n;
  }

  /**
   * Whether the core can hold a row named {@code name}: one it could not is one it holds none
   * of, so a row setting it to 0 has nothing to say.
   */
  static boolean carries(String name) {
    // UTF-8 takes at most three bytes per UTF-16 char: only a long name is measured.
    int n = name.length();
    return n <= MAX_NAME_BYTES && !blank(name) && (3 * n <= MAX_NAME_BYTES || utf8Length(name) <= MAX_NAME_BYTES);
  }

  /**
   * Whether the core refuses {@code name} as blank: empty, or only Unicode White_Space (what
   * Rust's {@code char::is_whitespace} and {@code str::trim} go by; Java's own
   * {@code isWhitespace} differs: it counts U+001C-U+001F and not the no-break spaces).
   */
  static boolean blank(String name) {
    int n = name.length();
    for (int k = 0; k < n; k++) {
      if (!unicodeWhiteSpace(name.charAt(k))) {
        return false;
      }
    }
    return true;
  }

  private static boolean unicodeWhiteSpace(char c) {
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f
        || c == 0x205f || c == 0x3000;
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
   * A row (or a number of rows) the core would refuse, so its frame is not sent: the
   * application's owner is told as for the core's own refusals (LocusAppAttempt#asksRefused).
   * Worded as the core words it.
   */
  static final class RowRefused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    RowRefused(ApplicationId app, int priority, long allocationRequestId, String name,
        int bytes) {
      super("application " + app + ", priority " + priority + ", allocation_request_id "
          + allocationRequestId + ": resource_name of " + bytes + " bytes (1 to "
          + MAX_NAME_BYTES + "), starting " + quoted(name));
    }

    /** A blank name, worded as the core words its refusal. */
    RowRefused(ApplicationId app, int priority, long allocationRequestId, String name) {
      super("application " + app + ", priority " + priority + ", allocation_request_id "
          + allocationRequestId + ": empty resource_name " + quoted(name));
    }

    private RowRefused(String message) {
      super(message);
    }

    /**
     * Asks of more rows than {@code locus.app.max-ask-rows} allows, worded as the core words
     * its refusal of a message over the limit ({@code ask::check_rows}).
     */
    static RowRefused overRowLimit(ApplicationId app, int rows, int limit) {
      return new RowRefused("application " + app + ": ask update refused, " + rows
          + " rows in one message, over " + MAX_ASK_ROWS_KEY + " = " + limit
          + "; its previous asks stay in force");
    }

    /** Asks (or an application id) the frame's bounds cannot carry. */
    static RowRefused overFrameBytes(ApplicationId app) {
      return new RowRefused("application " + app + ": asks need a frame of over "
          + MAX_FRAME_BYTES + " bytes (or an application id over 255), more than Locus holds"
          + " for one application; its previous asks stay in force");
    }

    private static String quoted(String name) {
      return '"' + (name.length() <= 40 ? name : name.substring(0, 40) + "...") + '"';
    }
  }
}
