package org.locus.yarn;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.junit.Test;

/** The shim writes the frame rust-core/src/frame.rs reads, and the core applies it. */
public class AsksFrameTest {
  private static ResourceRequest row(String name, int count) {
    ResourceRequest r = ResourceRequest.newInstance(Priority.newInstance(20), name,
        Resource.newInstance(1024, 1), count);
    r.setAllocationRequestId(3);
    return r;
  }

  /**
   * Names are UTF-8 whatever their characters, each row's length is its bytes (not its chars),
   * and a frame larger than the thread's buffer grows it without losing what was written.
   */
  @Test
  public void namesAreUtf8AndLargeFramesGrowTheBuffer() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1, 1);
    String odd = "h\u00e9te-\u6f22.example";
    java.util.List<ResourceRequest> rows = new java.util.ArrayList<>();
    StringBuilder longName = new StringBuilder();
    for (int i = 0; i < 40; i++) { // under the core's MAX_NAME_BYTES, 4,000 of them
      longName.append("node-").append(i).append(".example.");
    }
    for (int i = 0; i < 4_000; i++) {
      rows.add(row(i == 1234 ? odd : longName + "-" + i, 1));
    }
    // On a thread of its own: the writer is per thread, and one an earlier test on this thread
    // grew would take the frame without growing.
    ByteBuffer[] frame = new ByteBuffer[1];
    long[] bytes = new long[2];
    Thread t = new Thread(() -> {
      bytes[0] = AsksFrame.writerBytes();
      ByteBuffer written = AsksFrame.encode(AsksFrame.KIND_CHANGED, id, rows, null);
      bytes[1] = AsksFrame.writerBytes();
      // The writer's buffer is reused by the thread's next frame: keep a copy to check.
      frame[0] = ByteBuffer.allocate(written.remaining()).order(written.order());
      frame[0].put(written.duplicate()).flip();
    });
    t.start();
    t.join(60_000);
    ByteBuffer f = frame[0];
    assertTrue("the frame is larger than a new writer's buffers: " + f.limit() + " > " + bytes[0],
        f.limit() > bytes[0]);
    assertTrue("grown for it: " + bytes[0] + " -> " + bytes[1], bytes[1] >= 2L * f.limit());
    String app = id.toString();
    int at = AsksFrame.HEADER_BYTES + app.length();
    assertEquals(4_000, f.getInt(8));
    for (int i = 0; i < rows.size(); i++) {
      byte[] want = rows.get(i).getResourceName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      int len = f.getShort(at + AsksFrame.ROW_FIXED_BYTES - 2) & 0xffff;
      assertEquals("row " + i, want.length, len);
      byte[] got = new byte[len];
      ByteBuffer d = f.duplicate();
      d.position(at + AsksFrame.ROW_FIXED_BYTES);
      d.get(got);
      assertArrayEquals("row " + i, want, got);
      at += AsksFrame.ROW_FIXED_BYTES + len;
      at += AsksFrame.extraBytes(f, at);
    }
    assertEquals(f.limit(), at);
  }

  @Test
  public void theCoreAppliesAFrameAndRefusesABrokenOne() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[{\"type\":\"node_added\",\"node\":\"h1:8041\",\"host\":\"h1\",\"rack\":\"/r1\","
          + "\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
          + "{\"type\":\"app_added\",\"app\":\"" + id + "\",\"queue\":\"default\",\"user\":\"u\"},"
          + "{\"type\":\"attempt_added\",\"app\":\"" + id + "\",\"attempt\":\"a1\"}]");
      long digest = AsksDigest.term(20, 3, 4);
      assertNull(core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
          Arrays.asList(row("h1", 4), row("/r1", 4), row("*", 4)), digest)));
      JsonNode stats = CoreMessages.JSON.readTree(core.stats());
      assertEquals(4, stats.get("pending_containers").asInt());
      String drifted = core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
          Collections.singletonList(row("*", 4)), digest + 1));
      assertEquals("[\"" + id + "\"]", drifted);

      ByteBuffer cut = AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
          Collections.singletonList(row("*", 9)), null);
      cut.limit(cut.limit() - 1);
      LocusException e = assertThrows(LocusException.class, () -> core.asks(cut));
      assertTrue(e.getMessage(), e.getMessage().startsWith("malformed asks frame at byte"));
      assertTrue(e.getMessage(), e.getMessage().contains("truncated"));
      assertEquals(4, CoreMessages.JSON.readTree(core.stats()).get("pending_containers").asInt());
      assertThrows(LocusException.class, () -> LocusNative.asks(0, cut, cut.limit(), null));
    }
  }

  /**
   * A frame numbers only the names its table gives ids (the numbered layout's bytes are checked
   * against contract/wire.json by ContractTest), and a table takes no other core's answer.
   */
  @Test
  public void numberedRowsNumberOnlyWhatTheTableGives() {
    ApplicationId id = ApplicationId.newInstance(1, 1);
    NameIds ids = new NameIds(-5L);
    ids.learn(Arrays.asList("h", "gone"),
        NameIds.Answer.parse("{\"epoch\":-5,\"ids\":[7,null]}", 2));
    assertEquals(Integer.valueOf(7), ids.id("h"));
    assertNull(ids.id("gone"));
    ByteBuffer frame = AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
        Arrays.asList(row("h", 2), row("*", 2)), null, ids);
    assertTrue(AsksFrame.numbered(frame));
    assertTrue(AsksFrame.hasNumberedRow(frame));
    assertTrue("numbers nothing it was not given", !AsksFrame.hasNumberedRow(AsksFrame.encode(
        AsksFrame.KIND_CHANGED, id, Arrays.asList(row("gone", 1), row("*", 2)), null, ids)));
    // Another core's answer is not taken into this table.
    assertTrue(!ids.learn(Arrays.asList("x"),
        NameIds.Answer.parse("{\"epoch\":9,\"ids\":[1]}", 1)));
    assertNull(ids.id("x"));
  }

  /**
   * Round trip through the core: the ids it publishes for its nodes' hosts number a frame it
   * applies as the same rows by name; an id it never gave is refused naming the application
   * and the row, with nothing applied; a removed node's host is no longer published.
   */
  @Test
  public void theCoreAppliesNumberedRowsAndRefusesAnIdItNeverGave() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[{\"type\":\"node_added\",\"node\":\"h1:8041\",\"host\":\"h1\",\"rack\":\"/r1\","
          + "\"capability\":{\"memory_mb\":8192,\"vcores\":8}},"
          + "{\"type\":\"app_added\",\"app\":\"" + id + "\",\"queue\":\"default\",\"user\":\"u\"},"
          + "{\"type\":\"attempt_added\",\"app\":\"" + id + "\",\"attempt\":\"a1\"}]");
      java.util.List<String> hosts = Arrays.asList("h1", "ghost");
      NameIds.Answer answer = NameIds.Answer.parse(core.nameIds("[\"h1\",\"ghost\"]"), 2);
      NameIds ids = new NameIds(answer.epoch);
      assertTrue(ids.learn(hosts, answer));
      assertTrue("h1 is a node's host", ids.id("h1") != null);
      assertNull("no node carries ghost", ids.id("ghost"));
      assertNull(core.asks(AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, id,
          Arrays.asList(row("h1", 4), row("ghost", 1), row("*", 4)), null, ids)));
      assertEquals(4, CoreMessages.JSON.readTree(core.stats()).get("pending_containers").asInt());

      NameIds wrong = new NameIds(answer.epoch);
      wrong.learn(Collections.singletonList("h2"),
          NameIds.Answer.parse("{\"epoch\":" + answer.epoch + ",\"ids\":[40000]}", 1));
      LocusException e = assertThrows(LocusException.class,
          () -> core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
              Arrays.asList(row("*", 9), row("h2", 1)), null, wrong)));
      assertTrue(e.getMessage(), e.getMessage().contains(id.toString())
          && e.getMessage().contains("row 1") && e.getMessage().contains("id 40000"));
      assertEquals("nothing applied", 4,
          CoreMessages.JSON.readTree(core.stats()).get("pending_containers").asInt());

      core.events("[{\"type\":\"node_removed\",\"node\":\"h1:8041\"}]");
      NameIds.Answer after = NameIds.Answer.parse(core.nameIds("[\"h1\"]"), 1);
      assertNull("gone with its node", after.ids[0]);
      assertEquals("same core, same numbering", answer.epoch, after.epoch);
    }
  }

  private static String repeat(String s, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(s);
    }
    return b.toString();
  }

  /** A one-row changed frame naming {@code name}, written by hand (no check of its length). */
  private static ByteBuffer rawFrame(ApplicationId id, byte[] name) {
    byte[] app = id.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocateDirect(AsksFrame.HEADER_BYTES + app.length
        + AsksFrame.ROW_FIXED_BYTES + name.length + 1).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.put("LSK1".getBytes()).put((byte) 1).put((byte) 0).putShort((short) app.length)
        .putInt(1).putLong(0L).put(app)
        .putInt(20).putLong(3L).putLong(1024L).putInt(1).putInt(1).put((byte) 1)
        .putShort((short) name.length).put(name).put((byte) 0);
    b.flip();
    return b;
  }

  /**
   * The shim's bound on a resource name is the core's: the core takes a name of
   * MAX_NAME_BYTES and refuses one a byte longer, which the shim refuses itself (counted in
   * UTF-8 bytes, not chars), naming the row, before writing it.
   */
  @Test
  public void theShimRefusesExactlyTheNamesTheCoreRefuses() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    String longest = repeat("h", AsksFrame.MAX_NAME_BYTES);
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[{\"type\":\"app_added\",\"app\":\"" + id
          + "\",\"queue\":\"default\",\"user\":\"u\"},"
          + "{\"type\":\"attempt_added\",\"app\":\"" + id + "\",\"attempt\":\"a1\"}]");
      assertNull(core.asks(AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
          Collections.singletonList(row(longest, 1)), null)));
      LocusException e = assertThrows(LocusException.class,
          () -> core.asks(rawFrame(id, (longest + "h").getBytes())));
      assertTrue(e.getMessage(), e.getMessage().contains("resource_name of "
          + (AsksFrame.MAX_NAME_BYTES + 1) + " bytes"));
    }
    for (String name : Arrays.asList(longest + "h", repeat("\u00e9", 513), repeat("h", 70_000))) {
      AsksFrame.RowRefused refused = assertThrows(AsksFrame.RowRefused.class,
          () -> AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, id,
              Collections.singletonList(row(name, 1)), null));
      int bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      assertTrue(refused.getMessage(), refused.getMessage().contains(
          "priority 20, allocation_request_id 3: resource_name of " + bytes + " bytes"));
      assertTrue(name.length() + " chars", !AsksFrame.carries(name));
    }
    assertTrue(AsksFrame.carries(longest));
    assertTrue(AsksFrame.carries(repeat("\u00e9", 512)));
  }
  /**
   * An empty resource name is one the core refuses (by name: "resource_name of 0 bytes"). In a
   * frame that may carry ids its length 0 would also read as "an id follows", and the core would
   * take the next row's first bytes for a host's id. The shim refuses it before writing, as it
   * refuses a name too long, and a row setting it to 0 has nothing to withdraw.
   */
  @Test
  public void anEmptyNameIsRefusedByTheShimAndNeverReadAsAnId() {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    NameIds ids = new NameIds(7L);
    // The id the next row's priority (20) would be read as.
    assertTrue(ids.learn(Collections.singletonList("h1"),
        NameIds.Answer.parse("{\"epoch\":7,\"ids\":[20]}", 1)));
    for (NameIds table : Arrays.asList(ids, null)) {
      AsksFrame.RowRefused refused = assertThrows(AsksFrame.RowRefused.class,
          () -> AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
              Arrays.asList(row("", 1), row("h1", 1), row("*", 1)), null, table));
      assertTrue(refused.getMessage(), refused.getMessage().contains(
          "priority 20, allocation_request_id 3: empty resource_name"));
    }
    assertFalse(AsksFrame.carries(""));
  }
  /**
   * A table larger than any frame the core takes grows the thread's writer for its frame only:
   * the next frame starts from fresh buffers, so a hostile application's table does not stay
   * in the RM's memory for the thread's life. (Its own thread: the writer is per thread.)
   */
  @Test
  public void aWriterGrownPastWhatItKeepsStartsTheNextFrameSmall() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    String name = repeat("h", 1000);
    java.util.List<ResourceRequest> huge = new java.util.ArrayList<>();
    for (int i = 0; i < AsksFrame.RETAINED_BYTES / 1000 + 100; i++) {
      huge.add(row(name + i, 1));
    }
    long[] bytes = new long[2];
    Thread t = new Thread(() -> {
      AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, id, huge, null);
      bytes[0] = AsksFrame.writerBytes();
      AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, id, Collections.singletonList(row("h1", 1)), null);
      bytes[1] = AsksFrame.writerBytes();
    });
    t.start();
    t.join(60_000);
    assertTrue("grown for the large frame: " + bytes[0], bytes[0] > 2L * AsksFrame.RETAINED_BYTES);
    assertTrue("kept after it: " + bytes[1], bytes[1] <= AsksFrame.RETAINED_BYTES);
  }
  /**
   * A name of white space only is blank to the core (Rust's char::is_whitespace, Unicode's
   * White_Space) and refused there with the whole frame; the shim refuses exactly those names
   * itself, and a row setting one to 0 has nothing to withdraw. U+001C is white space to Java
   * but not to Unicode: the core takes it, and so does the shim.
   */
  @Test
  public void blankNamesAreRefusedAsTheCoreRefusesThem() throws Exception {
    ApplicationId id = ApplicationId.newInstance(1700000000000L, 1);
    for (String blank : Arrays.asList(" ", "\t", " \u00a0 ", "\u3000", "\u0085")) {
      assertThrows(blank, AsksFrame.RowRefused.class,
          () -> AsksFrame.encode(AsksFrame.KIND_CHANGED, id,
              Collections.singletonList(row(blank, 1)), null));
      assertFalse(AsksFrame.carries(blank));
    }
    try (LocusCore core = LocusCore.open("{}")) {
      core.events("[{\"type\":\"app_added\",\"app\":\"" + id
          + "\",\"queue\":\"default\",\"user\":\"u\"},"
          + "{\"type\":\"attempt_added\",\"app\":\"" + id + "\",\"attempt\":\"a1\"}]");
      LocusException e = assertThrows(LocusException.class,
          () -> core.asks(rawFrame(id, "\u00a0".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
      assertTrue(e.getMessage(), e.getMessage().contains("empty resource_name"));
      assertNull("not white space to the core", core.asks(AsksFrame.encode(
          AsksFrame.KIND_CHANGED, id, Collections.singletonList(row("\u001c", 1)), null)));
    }
    assertTrue(AsksFrame.carries("\u001c"));
  }

  /**
   * A frame's size is bounded whatever the row limit an operator set (up to 10,000,000 rows of
   * names up to 1,024 bytes: over 10 GB): past {@link AsksFrame.MAX_FRAME_BYTES} the asks are the
   * application's refusal, as a table over the row limit is, before the heap holds more.
   */
  @Test
  public void aFrameOverTheByteBoundIsTheApplicationsRefusal() {
    char[] name = new char[AsksFrame.MAX_NAME_BYTES];
    Arrays.fill(name, 'h');
    String host = new String(name);
    int rows = AsksFrame.MAX_FRAME_BYTES / (31 + AsksFrame.MAX_NAME_BYTES) + 1;
    java.util.List<ResourceRequest> table = new java.util.ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      table.add(ResourceRequest.newInstance(Priority.newInstance(i), host,
          Resource.newInstance(1024, 1), 1));
    }
    ApplicationId app = ApplicationId.newInstance(1, 1);
    AsksFrame.RowRefused e = assertThrows(AsksFrame.RowRefused.class,
        () -> AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, app, table, null));
    assertTrue(e.getMessage(), e.getMessage().startsWith("application " + app
        + ": asks need a frame of over " + AsksFrame.MAX_FRAME_BYTES + " bytes"));
    assertTrue("the writer keeps no buffer over the bound: " + AsksFrame.writerBytes(),
        AsksFrame.writerBytes() <= 2L * AsksFrame.MAX_FRAME_BYTES);
  }
}
