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
    byte[][] names = new byte[rows.size()][];
    long size = HEADER_BYTES + appBytes.length;
    int i = 0;
    for (ResourceRequest r : rows) {
      byte[] name = r.getResourceName().getBytes(StandardCharsets.UTF_8);
      if (name.length > 0xffff) {
        throw new IllegalArgumentException("resource name of " + name.length + " bytes in the asks"
            + " of " + app);
      }
      names[i++] = name;
      size += ROW_FIXED_BYTES + name.length;
    }
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("asks of " + app + " need a frame of " + size + " bytes");
    }
    ByteBuffer b = BUFFER.get();
    if (b.capacity() < size) {
      b = allocate((int) Math.min(Integer.MAX_VALUE, Math.max(size, 2L * b.capacity())));
      BUFFER.set(b);
    }
    b.clear();
    b.putInt(MAGIC);
    b.put(kind);
    b.put(digest == null ? 0 : FLAG_DIGEST);
    b.putShort((short) appBytes.length);
    b.putInt(names.length);
    b.putLong(digest == null ? 0L : digest);
    b.put(appBytes);
    i = 0;
    for (ResourceRequest r : rows) {
      Resource c = r.getCapability();
      b.putInt(r.getPriority().getPriority());
      b.putLong(r.getAllocationRequestId());
      // As in JSON: negative sizes only come from a broken request and mean "nothing".
      b.putLong(Math.max(0L, c.getMemorySize()));
      b.putInt(Math.max(0, c.getVirtualCores()));
      b.putInt(Math.max(0, r.getNumContainers()));
      b.put(r.getRelaxLocality() ? (byte) 1 : (byte) 0);
      byte[] name = names[i++];
      b.putShort((short) name.length);
      b.put(name);
    }
    b.flip();
    return b;
  }
}
