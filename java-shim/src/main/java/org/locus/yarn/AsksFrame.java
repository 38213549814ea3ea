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
  static final int HEADER_BYTES = 20;
  static final int ROW_FIXED_BYTES = 31;
  private static final int INITIAL_BYTES = 64 * 1024;

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
   * @throws IllegalArgumentException for an application id or resource name the layout cannot
   *     carry (the core would refuse such a name anyway; the RM never makes such an id)
   */
  public static ByteBuffer encode(byte kind, ApplicationId app, Collection<ResourceRequest> rows,
      Long digest) {
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
    b.put(digest == null ? 0 : FLAG_DIGEST);
    b.putShort((short) appBytes.length);
    b.putInt(rows.size());
    b.putLong(digest == null ? 0L : digest);
    b.put(appBytes);
    for (ResourceRequest r : rows) {
      String name = r.getResourceName();
      if (name.length() > 0xffff) {
        throw tooLong(name.length(), app);
      }
      // UTF-8 takes at most three bytes per UTF-16 char.
      int most = ROW_FIXED_BYTES + 3 * name.length();
      if (b.remaining() < most) {
        b = grow(b, most, app);
      }
      Resource c = r.getCapability();
      b.putInt(r.getPriority().getPriority());
      b.putLong(r.getAllocationRequestId());
      // As in JSON: negative sizes only come from a broken request and mean "nothing".
      b.putLong(Math.max(0L, c.getMemorySize()));
      b.putInt(Math.max(0, c.getVirtualCores()));
      b.putInt(Math.max(0, r.getNumContainers()));
      b.put(r.getRelaxLocality() ? (byte) 1 : (byte) 0);
      int lengthAt = b.position();
      b.putShort((short) 0);
      int length = putName(b, name);
      if (length > 0xffff) {
        throw tooLong(length, app);
      }
      b.putShort(lengthAt, (short) length);
    }
    b.flip();
    return b;
  }

  /** Writes {@code name} as UTF-8; host and rack names are ASCII, copied a char at a time. */
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

  private static IllegalArgumentException tooLong(int bytes, ApplicationId app) {
    return new IllegalArgumentException("resource name of " + bytes + " bytes in the asks of "
        + app);
  }
}
