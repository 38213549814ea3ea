package org.locus.yarn;

import java.io.IOException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.yarn.nodelabels.CommonNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;

/**
 * Node labels (partitions) as CapacityScheduler reads them from {@code capacity-scheduler.xml}:
 * which labels a queue may ask for ({@code accessible-node-labels}, inherited from the parent
 * when unset, {@code *} at root) and the label its asks get when they name none ({@code
 * default-node-label-expression}, inherited likewise). The RM checks submissions and asks
 * against what the queues report here ({@code SchedulerUtils.normalizeAndValidateRequest}) and
 * fills in the queue's default; the core places each scheduler key in the partition its
 * {@code *} row names (see {@link LocusAppAttempt#keyPartitions}).
 */
final class LabelPolicy {
  /** A queue tree without a file: every queue may use every label, none has a default. */
  static final LabelPolicy NONE = new LabelPolicy(null);

  private final CapacitySchedulerConfiguration cs;

  private LabelPolicy(CapacitySchedulerConfiguration cs) {
    this.cs = cs;
  }

  static LabelPolicy of(CapacitySchedulerConfiguration cs) {
    return cs == null ? NONE : new LabelPolicy(cs);
  }

  /** The labels the queue at {@code path} may ask for, as CapacityScheduler resolves them. */
  Set<String> accessible(String path) {
    for (String p = path; p != null; p = parentOf(p)) {
      if (cs == null || LocusRootQueue.NAME.equals(p)) {
        break;
      }
      Set<String> own = cs.getAccessibleNodeLabels(new QueuePath(p));
      if (own != null) {
        Set<String> out = new HashSet<>(own);
        out.remove("");
        return Collections.unmodifiableSet(out);
      }
    }
    return Collections.singleton(RMNodeLabelsManager.ANY);
  }

  /** The label asks of the queue at {@code path} get when they name none; null: none. */
  String defaultExpression(String path) {
    for (String p = path; p != null && cs != null; p = parentOf(p)) {
      String own = cs.getDefaultNodeLabelExpression(new QueuePath(p));
      if (own != null && !own.trim().isEmpty()) {
        return own.trim();
      }
    }
    return null;
  }

  private static String parentOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? null : path.substring(0, dot);
  }

  /**
   * Whether {@code label} is exclusive in the RM's node label manager: its nodes run only asks
   * for it (the RM's default for a new label). An unknown label is taken as exclusive, so
   * nothing is lent that the RM would not lend.
   */
  static boolean isExclusive(RMContext rmContext, String label) {
    if (label == null || label.isEmpty()) {
      return false;
    }
    try {
      return rmContext.getNodeLabelManager().isExclusiveNodeLabel(label);
    } catch (IOException | RuntimeException unknown) {
      return true;
    }
  }

  /** The node's partition: its one label (YARN allows one per node), or the default "". */
  static String partitionOf(Set<String> labels) {
    if (labels == null || labels.isEmpty()) {
      return CommonNodeLabelsManager.NO_LABEL;
    }
    return labels.iterator().next();
  }
}
