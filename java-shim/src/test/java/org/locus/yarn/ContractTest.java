package org.locus.yarn;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.Test;

/**
 * The shim's side of the shim-core contract checked against its one definition,
 * {@code contract/wire.json}: the natives {@link LocusNative} declares, the ABI number, every
 * frame's constants, and the bytes each writer puts down (or the reader takes up), compared
 * with bytes built from the spec's field lists alone. rust-core's {@code tests/contract.rs}
 * checks the core against the same file.
 */
public class ContractTest {
  private static final Path SPEC_FILE = Paths.get(
      System.getProperty("locus.contract", "../contract/wire.json"));
  private static final JsonNode SPEC = read();

  private static JsonNode read() {
    try {
      return CoreMessages.JSON.readTree(Files.readAllBytes(SPEC_FILE));
    } catch (Exception e) {
      throw new IllegalStateException(SPEC_FILE.toAbsolutePath() + ": " + e, e);
    }
  }

  private static int code(String table, String name) {
    JsonNode c = SPEC.path("codes").path(table).path(name);
    assertTrue("the spec has no code " + table + "." + name, c.isInt());
    return c.asInt();
  }

  private static int limit(String name) {
    JsonNode l = SPEC.path("limits").path(name);
    assertTrue("the spec has no limit " + name, l.isInt());
    return l.asInt();
  }

  private static JsonNode frame(String name) {
    return SPEC.path("frames").path(name);
  }

  private static int magic(String frame) {
    byte[] ascii = frame(frame).path("magic").asText().getBytes(StandardCharsets.US_ASCII);
    assertEquals(4, ascii.length);
    return ByteBuffer.wrap(ascii).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  /** The bytes a layout takes whatever its texts and lists hold (their length prefixes count). */
  private static int fixedBytes(JsonNode layout) {
    int n = 0;
    for (JsonNode f : layout) {
      switch (f.get(1).asText()) {
        case "u8":
        case "list8_i64":
          n += 1;
          break;
        case "u16":
        case "str16":
          n += 2;
          break;
        case "u32":
        case "i32":
        case "str32":
          n += 4;
          break;
        case "i64":
          n += 8;
          break;
        case "utf8":
          break;
        default:
          throw new AssertionError("the spec's type " + f.get(1) + " is not one this test knows");
      }
    }
    return n;
  }

  /** Field values by name, for {@link #write}. */
  private static Map<String, Object> values(Object... pairs) {
    Map<String, Object> m = new TreeMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], pairs[i + 1]);
    }
    return m;
  }

  /** Writes {@code values} in {@code layout}'s order and widths: the spec's bytes alone. */
  private static void write(ByteArrayOutputStream out, JsonNode layout, Map<String, Object> v) {
    for (JsonNode f : layout) {
      String name = f.get(0).asText();
      String type = f.get(1).asText();
      Object value = v.get(name);
      assertTrue("the sample has no field " + name, value != null);
      ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      switch (type) {
        case "u8":
          b.put((byte) number(name, value, 0, 0xFF));
          break;
        case "u16":
          b.putShort((short) number(name, value, 0, 0xFFFF));
          break;
        case "u32":
          b.putInt((int) number(name, value, 0, 0xFFFF_FFFFL));
          break;
        case "i32":
          b.putInt((int) number(name, value, Integer.MIN_VALUE, Integer.MAX_VALUE));
          break;
        case "i64":
          b.putLong(number(name, value, Long.MIN_VALUE, Long.MAX_VALUE));
          break;
        case "utf8":
          out.writeBytes(((String) value).getBytes(StandardCharsets.UTF_8));
          continue;
        case "str16":
        case "str32": {
          byte[] text = ((String) value).getBytes(StandardCharsets.UTF_8);
          if (type.equals("str16")) {
            b.putShort((short) number(name, (long) text.length, 0, 0xFFFF));
          } else {
            b.putInt(text.length);
          }
          out.write(b.array(), 0, b.position());
          out.writeBytes(text);
          continue;
        }
        case "list8_i64": {
          long[] items = (long[]) value;
          out.write((byte) number(name, (long) items.length, 0, 0xFF));
          for (long item : items) {
            ByteBuffer i = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(item);
            out.writeBytes(i.array());
          }
          continue;
        }
        default:
          throw new AssertionError("the spec's type " + type + " is not one this test knows");
      }
      out.write(b.array(), 0, b.position());
    }
  }

  private static long number(String name, Object value, long lo, long hi) {
    long n = ((Number) value).longValue();
    assertTrue(name + " = " + n + " does not fit", n >= lo && n <= hi);
    return n;
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static void assertBytes(String what, byte[] expected, byte[] got) {
    int at = 0;
    while (at < Math.min(expected.length, got.length) && expected[at] == got[at]) {
      at++;
    }
    if (at < Math.max(expected.length, got.length)) {
      throw new AssertionError(what + ": the writer's bytes differ from contract/wire.json's at "
          + "byte " + at + " (" + got.length + " written, " + expected.length + " specified)\n"
          + " got      " + Arrays.toString(got) + "\n expected " + Arrays.toString(expected));
    }
  }

  /**
   * The ABI number as the spec's bytes make it: FNV-1a (32-bit) over every byte that is not
   * ASCII white space, its top two bits cleared. jni-bridge's {@code ABI} is the same function
   * of the same file, computed when the library is compiled.
   */
  static int abiOf(byte[] spec) {
    int h = 0x811C9DC5;
    for (byte b : spec) {
      if (b == ' ' || b == '\t' || b == '\n' || b == '\r') {
        continue;
      }
      h ^= b & 0xFF;
      h *= 0x01000193;
    }
    return h & 0x3FFF_FFFF;
  }

  @Test
  public void theAbiNumberIsTheSpecsHash() throws Exception {
    int derived = abiOf(Files.readAllBytes(SPEC_FILE));
    assertEquals("contract/wire.json changed: set NativeLoader.ABI to " + derived
        + " (the native library derives the same number when it is built)", derived,
        NativeLoader.ABI);
  }

  private static String descriptor(Class<?> c) {
    if (c.isArray()) {
      return "[" + descriptor(c.getComponentType());
    }
    if (c.isPrimitive()) {
      return c == int.class ? "I" : c == long.class ? "J" : c == void.class ? "V"
          : c == byte.class ? "B" : c == boolean.class ? "Z" : "?" + c;
    }
    return "L" + c.getName().replace('.', '/') + ";";
  }

  private static Map<String, String> natives(Class<?> c) {
    Map<String, String> out = new TreeMap<>();
    for (Method m : c.getDeclaredMethods()) {
      if (Modifier.isNative(m.getModifiers())) {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
          d.append(descriptor(p));
        }
        out.put(m.getName(), d.append(')').append(descriptor(m.getReturnType())).toString());
      }
    }
    return out;
  }

  private static Map<String, String> specNatives(JsonNode natives) {
    Map<String, String> out = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = natives.path("methods").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  @Test
  public void theNativesAreTheSpecs() {
    JsonNode natives = SPEC.path("natives");
    assertEquals(LocusNative.class.getName(), natives.path("class").asText());
    assertEquals(specNatives(natives), natives(LocusNative.class));
    JsonNode hooks = natives.path("test_hooks");
    assertEquals(CoreFaults.class.getName(), hooks.path("class").asText());
    assertEquals(specNatives(hooks), natives(CoreFaults.class));
  }

  @Test
  public void magicsCodesLimitsAndFixedSizesAreTheSpecs() {
    assertEquals(magic("asks"), AsksFrame.MAGIC);
    assertEquals(magic("offers"), OffersFrame.MAGIC);
    assertEquals(magic("decisions"), DecisionsFrame.MAGIC);
    assertEquals(magic("events"), EventsFrame.MAGIC);

    assertEquals(fixedBytes(frame("asks").path("header")), AsksFrame.HEADER_BYTES);
    // The row's fixed part before its name, and the extra types' count byte after it.
    assertEquals(fixedBytes(frame("asks").path("row")), AsksFrame.ROW_FIXED_BYTES + 1);
    assertEquals(fixedBytes(frame("offers").path("header")), OffersFrame.HEADER_BYTES);
    assertEquals(fixedBytes(frame("offers").path("node")), OffersFrame.NODE_FIXED_BYTES);
    assertEquals(fixedBytes(frame("decisions").path("header")), DecisionsFrame.HEADER_BYTES);
    assertEquals(fixedBytes(frame("decisions").path("decision")),
        DecisionsFrame.DECISION_FIXED_BYTES);
    assertEquals(fixedBytes(frame("decisions").path("refused")),
        DecisionsFrame.REFUSED_FIXED_BYTES);
    assertEquals(fixedBytes(frame("events").path("header")), EventsFrame.HEADER_BYTES);

    assertEquals(code("asks_kind", "asks_changed"), AsksFrame.KIND_CHANGED);
    assertEquals(code("asks_kind", "asks_updated"), AsksFrame.KIND_SNAPSHOT);
    assertEquals(code("asks_flag", "digest"), AsksFrame.FLAG_DIGEST);
    assertEquals(code("asks_flag", "name_ids"), AsksFrame.FLAG_NAME_IDS);
    assertEquals(code("offer_kind", "heartbeat"), OffersFrame.KIND_HEARTBEAT);
    assertEquals(code("offer_kind", "sweep"), OffersFrame.KIND_SWEEP);
    assertEquals(code("offer_kind", "eager"), OffersFrame.KIND_EAGER);
    assertEquals(code("event_record", "container_allocated"), EventsFrame.CONTAINER_ALLOCATED);
    assertEquals(code("event_record", "container_released"), EventsFrame.CONTAINER_RELEASED);
    assertEquals(code("event_record", "decision_rejected"), EventsFrame.DECISION_REJECTED);
    assertEquals(code("event_record", "asks_digest"), EventsFrame.ASKS_DIGEST);
    assertEquals(code("event_record", "json"), EventsFrame.JSON);
    assertEquals(5, SPEC.path("codes").path("event_record").size());
    assertEquals(3, SPEC.path("codes").path("locality").size());
    for (NodeType t : NodeType.values()) {
      String name = CoreMessages.locality(t);
      assertEquals(name, code("locality", name), EventsFrame.localityCode(t));
    }

    assertEquals(limit("name_bytes"), AsksFrame.MAX_NAME_BYTES);
    assertEquals(limit("name_bytes"), OffersFrame.MAX_ID_BYTES);
    assertEquals(limit("text_bytes"), EventsFrame.MAX_TEXT_BYTES);
    assertEquals(limit("extra_types"), ResourceTypes.MAX_EXTRA);
  }

  private static ResourceRequest request(String name, int priority, int count, boolean relax) {
    ResourceRequest r = ResourceRequest.newInstance(Priority.newInstance(priority), name,
        Resource.newInstance(3072, 2), count, relax);
    r.setAllocationRequestId(-7);
    return r;
  }

  private static Map<String, Object> row(ResourceRequest r) {
    return values("priority", r.getPriority().getPriority(),
        "allocation_request_id", r.getAllocationRequestId(),
        "memory_mb", r.getCapability().getMemorySize(),
        "vcores", r.getCapability().getVirtualCores(), "count", r.getNumContainers(),
        "relax_locality", r.getRelaxLocality() ? 1 : 0, "resource_name", r.getResourceName(),
        "extra", ResourceTypes.extras(r.getCapability()));
  }

  @Test
  public void asksFramesAreWrittenAsSpecified() {
    JsonNode f = frame("asks");
    ApplicationId app = ApplicationId.newInstance(1_700_000_000_000L, 42);
    List<ResourceRequest> rows = Arrays.asList(request("h1.example", 20, 2, false),
        request("*", -1, 0, true));

    byte[] got = bytes(AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, app, rows, -99L));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    write(expected, f.path("header"), values("magic", magic("asks"),
        "kind", code("asks_kind", "asks_updated"), "flags", code("asks_flag", "digest"),
        "app_len", app.toString().length(), "rows", rows.size(), "digest", -99L));
    write(expected, f.path("app"), values("app", app.toString()));
    for (ResourceRequest r : rows) {
      write(expected, f.path("row"), row(r));
    }
    assertBytes("asks frame by name", expected.toByteArray(), got);

    // Numbered: the name a node carries crosses as the id the core published for it.
    long epoch = 0x1234_5678_9abc_def0L;
    NameIds ids = new NameIds(epoch);
    ids.learn(Collections.singletonList("h1.example"),
        NameIds.Answer.parse("{\"epoch\":" + epoch + ",\"ids\":[5]}", 1));
    got = bytes(AsksFrame.encode(AsksFrame.KIND_CHANGED, app, rows, null, ids));
    expected = new ByteArrayOutputStream();
    write(expected, f.path("header"), values("magic", magic("asks"),
        "kind", code("asks_kind", "asks_changed"), "flags", code("asks_flag", "name_ids"),
        "app_len", app.toString().length(), "rows", rows.size(), "digest", 0L));
    write(expected, f.path("app"), values("app", app.toString()));
    write(expected, f.path("epoch"), values("names_epoch", epoch));
    Map<String, Object> numbered = row(rows.get(0));
    numbered.put("name_len", 0);
    numbered.put("name_id", 5);
    write(expected, f.path("numbered_row"), numbered);
    write(expected, f.path("row"), row(rows.get(1)));
    assertBytes("asks frame numbered", expected.toByteArray(), got);
  }

  @Test
  public void offersFramesAreWrittenAsSpecified() {
    JsonNode f = frame("offers");
    List<NodeId> nodes = Arrays.asList(NodeId.newInstance("h1", 8041),
        NodeId.newInstance("h2.example", 45454));
    List<Resource> free = Arrays.asList(Resource.newInstance(8192, 8),
        Resource.newInstance(1L << 40, 96));
    byte[] got = bytes(OffersFrame.encode(nodes, free, Arrays.asList(false, true),
        1_700_000_000_123L, new ArrayList<>()));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    write(expected, f.path("header"), values("magic", magic("offers"), "nodes", 2,
        "now_ms", 1_700_000_000_123L));
    String[] kinds = {"heartbeat", "sweep"};
    for (int i = 0; i < 2; i++) {
      write(expected, f.path("node"), values("memory_mb", free.get(i).getMemorySize(),
          "vcores", free.get(i).getVirtualCores(), "offer_kind", code("offer_kind", kinds[i]),
          "node", nodes.get(i).toString(), "extra", ResourceTypes.extras(free.get(i))));
    }
    assertBytes("offers frame", expected.toByteArray(), got);
  }

  @Test
  public void decisionsFramesAreReadAsSpecified() throws Exception {
    JsonNode f = frame("decisions");
    List<NodeId> offered = Arrays.asList(NodeId.newInstance("h1", 1),
        NodeId.newInstance("h2", 1), NodeId.newInstance("h3", 1));
    // The leaf's and its two parents' maxima in vcores and each extra type.
    long[] typeMaxima = new long[3 * DecisionsFrame.TYPE_STRIDE];
    for (int i = 0; i < typeMaxima.length; i++) {
      typeMaxima[i] = 10 * i;
    }
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    write(in, f.path("header"), values("magic", magic("decisions"), "decisions", 2,
        "refused", 1));
    write(in, f.path("decision"), values("node_index", 0,
        "locality", code("locality", "rack_local"), "priority", 10,
        "allocation_request_id", 4L, "count", 3, "memory_mb", 2048L, "vcores", 1,
        "app", "application_1_0001", "resource_name", "/rack-a", "queue_max_mb", 1L << 20,
        "user_limit_mb", -1L, "ancestor_max_mb", new long[] {4096, 8192},
        "extra", new long[] {0, 2}, "type_maxima", typeMaxima));
    write(in, f.path("decision"), values("node_index", 2,
        "locality", code("locality", "off_switch"), "priority", -1,
        "allocation_request_id", -5L, "count", 1, "memory_mb", 512L, "vcores", 2,
        "app", "application_1_0002", "resource_name", "*", "queue_max_mb", -1L,
        "user_limit_mb", 700L, "ancestor_max_mb", new long[0], "extra", new long[0],
        "type_maxima", new long[0]));
    write(in, f.path("refused"), values("node_index", 1, "reason", "node h2:1 is unknown"));

    DecisionsFrame.Answer a = DecisionsFrame.decode(in.toByteArray(), offered);
    assertEquals(2, a.decisions.size());
    DecisionsFrame.Decision d = a.decisions.get(0);
    assertEquals(offered.get(0), d.node);
    assertEquals(NodeType.RACK_LOCAL, d.locality);
    assertEquals(10, d.priority);
    assertEquals(4L, d.allocationRequestId);
    assertEquals(3, d.count);
    assertEquals(2048L, d.memoryMb);
    assertEquals(1, d.vcores);
    assertEquals("application_1_0001", d.app);
    assertEquals("/rack-a", d.resourceName);
    assertEquals(1L << 20, d.queueMaxMb);
    assertEquals(-1L, d.userLimitMb);
    assertArrayEquals(new long[] {4096, 8192}, d.ancestorMaxMb);
    assertArrayEquals(new long[] {0, 2}, d.extra);
    assertArrayEquals(typeMaxima, d.typeMaxima);
    DecisionsFrame.Decision e = a.decisions.get(1);
    assertEquals(offered.get(2), e.node);
    assertEquals(NodeType.OFF_SWITCH, e.locality);
    assertEquals(-1, e.priority);
    assertEquals(-5L, e.allocationRequestId);
    assertEquals("*", e.resourceName);
    assertEquals(-1L, e.queueMaxMb);
    assertEquals(700L, e.userLimitMb);
    assertEquals(0, e.ancestorMaxMb.length);
    assertEquals(0, e.extra.length);
    assertEquals(0, e.typeMaxima.length);
    assertEquals(1, a.refused.size());
    assertEquals(offered.get(1), a.refused.get(0).node);
    assertEquals("node h2:1 is unknown", a.refused.get(0).reason);
  }

  @Test
  public void eventsFramesAreWrittenAsSpecified() {
    JsonNode f = frame("events").path("records");
    ApplicationId app = ApplicationId.newInstance(1, 1);
    ContainerId allocated = ContainerId.newContainerId(
        ApplicationAttemptId.newInstance(app, 1), 2);
    ContainerId released = ContainerId.newContainerId(
        ApplicationAttemptId.newInstance(app, 1), 3);
    NodeId h1 = NodeId.newInstance("h1", 1);
    // A node id too long for a record's u16 text: its event rides as one JSON record.
    char[] longHost = new char[70_000];
    Arrays.fill(longHost, 'h');
    NodeId huge = NodeId.newInstance(new String(longHost), 1);
    DecisionsFrame.Decision rejected = new DecisionsFrame.Decision(NodeId.newInstance("h3", 1),
        (byte) code("locality", "off_switch"), 5, -1L, 4, 4096L, 3, "application_1_0002", "*");

    EventsFrame frame = new EventsFrame();
    frame.containerAllocated(allocated, h1, 20, 6L, Resource.newInstance(1024, 1),
        NodeType.NODE_LOCAL, true);
    frame.containerReleased(released, h1, Resource.newInstance(512, 2));
    frame.decisionRejected(rejected, 1, "queue full");
    frame.asksDigest(app, Long.MIN_VALUE);
    frame.containerReleased(released, huge, Resource.newInstance(512, 2));
    byte[] got = bytes(frame.direct());

    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    write(expected, frame("events").path("header"), values("magic", magic("events"),
        "records", 5));
    write(expected, f.path("container_allocated"), values(
        "kind", code("event_record", "container_allocated"), "app", app.toString(),
        "container", allocated.toString(), "node", h1.toString(), "priority", 20,
        "allocation_request_id", 6L, "memory_mb", 1024L, "vcores", 1,
        "locality", code("locality", "node_local"), "recovered", 1, "extra", new long[0]));
    write(expected, f.path("container_released"), values(
        "kind", code("event_record", "container_released"), "app", app.toString(),
        "container", released.toString(), "node", h1.toString(), "memory_mb", 512L,
        "vcores", 2, "extra", new long[0]));
    write(expected, f.path("decision_rejected"), values(
        "kind", code("event_record", "decision_rejected"), "app", "application_1_0002",
        "node", "h3:1", "resource_name", "*", "priority", 5, "allocation_request_id", -1L,
        "locality", code("locality", "off_switch"), "count", 4, "memory_mb", 4096L,
        "vcores", 3, "executed", 1, "reason", "queue full", "extra", new long[0]));
    write(expected, f.path("asks_digest"), values(
        "kind", code("event_record", "asks_digest"), "app", app.toString(),
        "digest", Long.MIN_VALUE));
    write(expected, f.path("json"), values("kind", code("event_record", "json"),
        "event", CoreMessages.write(CoreMessages.containerReleased(released, huge,
            Resource.newInstance(512, 2)))));
    assertBytes("events frame", expected.toByteArray(), got);
  }

  /**
   * With a resource type beyond memory and vcores configured (JVM-wide, reset after), each
   * writer puts a resource's amounts of it in the spec's {@code extra} list, and JSON carries
   * them as the spec's {@code extra} field.
   */
  @Test
  public void extraResourceTypesAreWrittenAsSpecified() {
    Configuration types = new Configuration();
    types.set(YarnConfiguration.RESOURCE_TYPES, "yarn.io/gpu");
    ResourceUtils.resetResourceTypes(types);
    try {
      Resource gpus = Resource.newInstance(2048, 2);
      gpus.setResourceValue("yarn.io/gpu", 3);
      ApplicationId app = ApplicationId.newInstance(1, 1);
      ResourceRequest r = ResourceRequest.newInstance(Priority.newInstance(1), "*", gpus, 1);
      byte[] got = bytes(AsksFrame.encode(AsksFrame.KIND_SNAPSHOT, app,
          Collections.singletonList(r), null));
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      JsonNode f = frame("asks");
      write(expected, f.path("header"), values("magic", magic("asks"),
          "kind", code("asks_kind", "asks_updated"), "flags", 0, "app_len",
          app.toString().length(), "rows", 1, "digest", 0L));
      write(expected, f.path("app"), values("app", app.toString()));
      Map<String, Object> row = row(r);
      assertArrayEquals(new long[] {3}, (long[]) row.get("extra"));
      write(expected, f.path("row"), row);
      assertBytes("asks frame with a GPU", expected.toByteArray(), got);

      NodeId h1 = NodeId.newInstance("h1", 1);
      got = bytes(OffersFrame.encode(Collections.singletonList(h1),
          Collections.singletonList(gpus), Collections.singletonList(false), 5L,
          new ArrayList<>()));
      expected = new ByteArrayOutputStream();
      write(expected, frame("offers").path("header"), values("magic", magic("offers"),
          "nodes", 1, "now_ms", 5L));
      write(expected, frame("offers").path("node"), values("memory_mb", 2048L, "vcores", 2,
          "offer_kind", code("offer_kind", "heartbeat"), "node", h1.toString(),
          "extra", new long[] {3}));
      assertBytes("offers frame with a GPU", expected.toByteArray(), got);

      JsonNode json = CoreMessages.resource(gpus);
      assertTrue(json.toString(), isOf(json, "resource"));
      assertEquals(3, json.path("extra").get(0).asLong());
    } finally {
      ResourceUtils.resetResourceTypes(new Configuration());
    }
  }

  private static boolean isOf(JsonNode v, String type) {
    switch (type) {
      case "str":
        return v.isTextual();
      case "int":
        return v.isIntegralNumber();
      case "bool":
        return v.isBoolean();
      case "strs": {
        boolean all = v.isArray();
        for (JsonNode e : v) {
          all &= e.isTextual();
        }
        return all;
      }
      case "resource": {
        JsonNode extra = v.path("extra");
        boolean extraOk = extra.isMissingNode() || extra.isArray() && extra.size() > 0
            && extra.size() <= limit("extra_types");
        for (JsonNode e : extra) {
          extraOk &= e.isIntegralNumber() && e.asLong() >= 0;
        }
        return v.isObject() && v.size() == (extra.isMissingNode() ? 2 : 3)
            && v.path("memory_mb").isIntegralNumber() && v.path("vcores").isIntegralNumber()
            && extraOk;
      }
      case "locality":
        return v.isTextual() && SPEC.path("codes").path("locality").has(v.asText());
      default:
        throw new AssertionError("the spec's JSON type " + type + " is not one this test knows");
    }
  }

  /**
   * Every event the shim builds as JSON is of a kind the spec lists, with only the spec's fields,
   * each of its type, and every field the spec does not mark optional.
   */
  @Test
  public void jsonEventsAreTheSpecs() {
    ApplicationId app = ApplicationId.newInstance(1, 1);
    ApplicationAttemptId attempt = ApplicationAttemptId.newInstance(app, 1);
    ContainerId container = ContainerId.newContainerId(attempt, 2);
    NodeId node = NodeId.newInstance("h1", 1);
    Resource r = Resource.newInstance(1024, 1);
    List<com.fasterxml.jackson.databind.node.ObjectNode> built = Arrays.asList(
        CoreMessages.nodeAdded(node, "h1", "/r", r),
        CoreMessages.nodeRemoved(node),
        CoreMessages.nodeResourceUpdated(node, r),
        CoreMessages.appAdded(app, "q", "u", "n", "MAPREDUCE", Collections.singleton("t"), 5, 1),
        CoreMessages.appPriorityChanged(app, 2),
        CoreMessages.appMoved(app, "q"),
        CoreMessages.appBlacklist(app, Collections.singleton("h1")),
        CoreMessages.appRemoved(app),
        CoreMessages.attemptAdded(attempt),
        CoreMessages.attemptRemoved(attempt),
        CoreMessages.asksDigest(app, -3L),
        CoreMessages.containerAllocated(container, node, 1, 4L, r, NodeType.RACK_LOCAL, true),
        CoreMessages.containerReleased(container, node, r));
    JsonNode kinds = SPEC.path("json_events").path("kinds");
    assertEquals("a builder for every kind of the spec", kinds.size(), built.size());
    for (JsonNode event : built) {
      String kind = event.path("type").asText();
      JsonNode fields = kinds.path(kind);
      assertTrue(kind + " is not in the spec's json_events", fields.isObject());
      Iterator<String> names = event.fieldNames();
      while (names.hasNext()) {
        String name = names.next();
        if (name.equals("type")) {
          continue;
        }
        String type = fields.path(name).asText();
        assertTrue(kind + " has " + name + ", which the spec does not name", !type.isEmpty());
        assertTrue(kind + "." + name + " = " + event.get(name) + ", not " + type,
            isOf(event.get(name), type.replace("?", "")));
      }
      Iterator<Map.Entry<String, JsonNode>> specified = fields.fields();
      while (specified.hasNext()) {
        Map.Entry<String, JsonNode> f = specified.next();
        assertTrue(kind + " lacks " + f.getKey(),
            f.getValue().asText().endsWith("?") || event.has(f.getKey()));
      }
    }
    assertTrue(!kinds.has("asks_updated") && !kinds.has("asks_changed"));
  }
}
