package org.locus.yarn;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;

/**
 * Builds the JSON messages of docs/design/architecture.md (rust-core/src/protocol.rs is the
 * authority on field names). Identifiers go over as YARN prints them (NodeId, ApplicationId,
 * ContainerId {@code toString()}), so a core log line can be grepped in the RM log.
 */
final class CoreMessages {
  static final ObjectMapper JSON = new ObjectMapper();

  private CoreMessages() {}

  static ObjectNode resource(Resource r) {
    ObjectNode o = JSON.createObjectNode();
    // Negative values only appear on an over-committed node; the core's unsigned fields
    // must never see them, and "nothing free" is the truth for scheduling.
    o.put("memory_mb", Math.max(0L, r.getMemorySize()));
    o.put("vcores", Math.max(0, r.getVirtualCores()));
    int types = ResourceTypes.extraCount(r);
    if (types > 0) {
      ArrayNode extra = o.putArray("extra");
      for (int i = 0; i < types; i++) {
        extra.add(ResourceTypes.extra(r, i));
      }
    }
    return o;
  }

  static String locality(NodeType type) {
    switch (type) {
      case NODE_LOCAL:
        return "node_local";
      case RACK_LOCAL:
        return "rack_local";
      default:
        return "off_switch";
    }
  }

  private static ObjectNode event(String type) {
    ObjectNode o = JSON.createObjectNode();
    o.put("type", type);
    return o;
  }

  static ObjectNode nodeAdded(NodeId node, String host, String rack, Resource capability) {
    ObjectNode o = event("node_added");
    o.put("node", node.toString());
    o.put("host", host);
    o.put("rack", rack);
    o.set("capability", resource(capability));
    return o;
  }

  static ObjectNode nodeRemoved(NodeId node) {
    ObjectNode o = event("node_removed");
    o.put("node", node.toString());
    return o;
  }

  static ObjectNode nodeResourceUpdated(NodeId node, Resource capability) {
    ObjectNode o = event("node_resource_updated");
    o.put("node", node.toString());
    o.set("capability", resource(capability));
    return o;
  }

  static ObjectNode appAdded(ApplicationId app, String queue, String user, String name,
      String appType, Collection<String> tags, long submitMs) {
    return appAdded(app, queue, user, name, appType, tags, submitMs, 0);
  }

  /** {@code priority}: YARN's application priority (higher is served first). */
  static ObjectNode appAdded(ApplicationId app, String queue, String user, String name,
      String appType, Collection<String> tags, long submitMs, int priority) {
    ObjectNode o = event("app_added");
    o.put("app", app.toString());
    o.put("queue", queue);
    o.put("user", user == null ? "" : user);
    o.put("name", name == null ? "" : name);
    o.put("app_type", appType == null ? "" : appType);
    ArrayNode t = o.putArray("tags");
    if (tags != null) {
      List<String> sorted = new ArrayList<>(tags);
      sorted.sort(Comparator.naturalOrder());
      sorted.forEach(t::add);
    }
    o.put("submit_ms", Math.max(0L, submitMs));
    o.put("priority", priority);
    return o;
  }

  static ObjectNode appPriorityChanged(ApplicationId app, int priority) {
    ObjectNode o = event("app_priority_changed");
    o.put("app", app.toString());
    o.put("priority", priority);
    return o;
  }

  static ObjectNode appMoved(ApplicationId app, String queue) {
    ObjectNode o = event("app_moved");
    o.put("app", app.toString());
    o.put("queue", queue);
    return o;
  }

  /** The places (hosts, racks) {@code app}'s containers may not go to, replacing the last. */
  static ObjectNode appBlacklist(ApplicationId app, java.util.Collection<String> places) {
    ObjectNode o = event("app_blacklist");
    o.put("app", app.toString());
    com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("places");
    for (String place : places) {
      list.add(place);
    }
    return o;
  }

  /**
   * The node's partition (its node label, empty for the default partition) and whether that
   * partition is exclusive.
   */
  static ObjectNode nodePartition(NodeId node, String partition, boolean exclusive) {
    ObjectNode o = event("node_partition");
    o.put("node", node.toString());
    o.put("partition", partition == null ? "" : partition);
    o.put("exclusive", exclusive);
    return o;
  }

  /**
   * The scheduler keys of {@code app} that ask for a partition other than the default one,
   * replacing the last list.
   */
  static ObjectNode keyPartitions(ApplicationId app,
      java.util.Map<org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey, String> keys) {
    ObjectNode o = event("key_partitions");
    o.put("app", app.toString());
    com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("keys");
    for (java.util.Map.Entry<org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey,
        String> e : keys.entrySet()) {
      ObjectNode k = list.addObject();
      k.put("priority", e.getKey().getPriority().getPriority());
      k.put("allocation_request_id", e.getKey().getAllocationRequestId());
      k.put("partition", e.getValue());
    }
    return o;
  }

  static ObjectNode appRemoved(ApplicationId app) {
    ObjectNode o = event("app_removed");
    o.put("app", app.toString());
    return o;
  }

  static ObjectNode attemptAdded(ApplicationAttemptId attempt) {
    ObjectNode o = event("attempt_added");
    o.put("app", attempt.getApplicationId().toString());
    o.put("attempt", attempt.toString());
    return o;
  }

  static ObjectNode attemptRemoved(ApplicationAttemptId attempt) {
    ObjectNode o = event("attempt_removed");
    o.put("app", attempt.getApplicationId().toString());
    o.put("attempt", attempt.toString());
    return o;
  }

  /**
   * The rows of a snapshot ({@link AsksFrame#KIND_SNAPSHOT}): those with containers
   * outstanding, sorted so that two snapshots of the same asks are written identically.
   */
  static List<ResourceRequest> snapshotRows(Collection<ResourceRequest> requests) {
    List<ResourceRequest> rows = new ArrayList<>();
    for (ResourceRequest r : requests) {
      if (r.getNumContainers() > 0) {
        rows.add(r);
      }
    }
    rows.sort(Comparator
        .comparingInt((ResourceRequest r) -> r.getPriority().getPriority())
        .thenComparingLong(ResourceRequest::getAllocationRequestId)
        .thenComparing(ResourceRequest::getResourceName));
    return rows;
  }

  /** The RM's digest of the application's asks ({@link AsksDigest}), for the core to compare. */
  static ObjectNode asksDigest(ApplicationId app, long digest) {
    ObjectNode o = event("asks_digest");
    o.put("app", app.toString());
    o.put("digest", digest);
    return o;
  }

  static ObjectNode containerAllocated(ContainerId container, NodeId node, int priority,
      long allocationRequestId, Resource resource, NodeType locality, boolean recovered) {
    ObjectNode o = event("container_allocated");
    o.put("container", container.toString());
    o.put("app", container.getApplicationAttemptId().getApplicationId().toString());
    o.put("node", node.toString());
    o.put("priority", priority);
    o.put("allocation_request_id", allocationRequestId);
    o.set("resource", resource(resource));
    o.put("locality", locality(locality));
    o.put("recovered", recovered);
    return o;
  }

  static ObjectNode containerReleased(ContainerId container, NodeId node, Resource resource) {
    ObjectNode o = event("container_released");
    o.put("app", container.getApplicationAttemptId().getApplicationId().toString());
    o.put("container", container.toString());
    o.put("node", node.toString());
    o.set("resource", resource(resource));
    return o;
  }

  /**
   * The core's capacity queues ({@link LocusCore#capacityQueues}) by name, in configured
   * order; null for null (the policy is not {@code capacity}).
   *
   * @throws IOException if the text is not what the core sends
   */
  static Map<String, LocusQueue.Limits> capacityQueues(String json) throws IOException {
    if (json == null) {
      return null;
    }
    JsonNode queues = JSON.readTree(json);
    if (queues == null || !queues.isArray()) {
      throw new IOException("capacity queues: expected a JSON array, got " + json);
    }
    Map<String, LocusQueue.Limits> out = new LinkedHashMap<>();
    for (JsonNode q : queues) {
      JsonNode name = q.get("name");
      JsonNode capacity = q.get("capacity");
      JsonNode maximum = q.get("maximum_capacity");
      if (name == null || !name.isTextual() || capacity == null || !capacity.isNumber()
          || maximum == null || !maximum.isNumber()) {
        throw new IOException("capacity queues: expected name, capacity and maximum_capacity, got "
            + q);
      }
      JsonNode path = q.get("path");
      JsonNode state = q.get("state");
      out.put(name.asText(), new LocusQueue.Limits(capacity.asDouble(), maximum.asDouble(), false,
          path != null && path.isTextual() ? path.asText() : null,
          state != null && "STOPPED".equals(state.asText())));
    }
    return out;
  }

  static String array(List<? extends JsonNode> events) {
    ArrayNode a = JSON.createArrayNode();
    a.addAll(events);
    return write(a);
  }

  static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      // Tree nodes built above always serialise; reaching this is a Jackson bug.
      throw new IllegalStateException("cannot serialise " + node, e);
    }
  }
}
