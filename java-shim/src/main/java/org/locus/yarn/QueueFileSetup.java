package org.locus.yarn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementManager;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementRule;
import org.locus.yarn.queue.QueueFile;
import org.locus.yarn.queue.QueueMappingRule;

/**
 * What the shim takes from {@code capacity-scheduler.xml} once the core accepted the queues
 * (at start and on every {@code -refreshQueues}): the ACLs of the queues now in the tree,
 * handed to the RM's authorizer as CapacityScheduler hands them, the queue mappings
 * (installed in the RM's placement manager, which places every submission before the
 * scheduler sees it), and one warning per key Locus does not honour; a file asking for a
 * limit or policy Locus does not implement is refused, naming the key ({@link
 * QueueFile#refused}).
 */
final class QueueFileSetup {
  private QueueFileSetup() {}

  /** Caller holds the scheduler lock; {@code root} already has the core's leaves. */
  static String apply(QueueFile file, LocusRootQueue root, Configuration conf,
      RMContext rmContext, YarnAuthorizationProvider authorizer) throws IOException {
    boolean fileInForce = root.isCapacity() && file.treeJson() != null
        && conf.getTrimmed(CAPACITY_QUEUES, "").isEmpty();
    if (fileInForce && !file.refused().isEmpty()) {
      throw new LocusConfigException("capacity-scheduler.xml sets "
          + String.join("; and ", file.refused())
          + ". Locus cannot honour this; remove the key or set it to CapacityScheduler's"
          + " default (docs/operator/queues.md lists what Locus honours)");
    }
    root.installAcls(conf, authorizer, file.configuration(), file::isCreated);
    // The file's labels hold whatever the policy, as the RM's checks of labelled asks do.
    root.setLabels(LabelPolicy.of(file.configuration()));
    root.setWeights(fileInForce ? file.weights() : Collections.<String, Float>emptyMap());
    root.setAbsolute(fileInForce ? file.absolute() : null);
    root.setParallelLimits(fileInForce ? file::maxParallelApps : p -> Integer.MAX_VALUE);
    QueueMappingRule rule = fileInForce
        ? QueueMappingRule.of(file, conf)
        : null;
    PlacementManager placement = rmContext == null ? null : rmContext.getQueuePlacementManager();
    if (placement != null) {
      List<PlacementRule> rules = rule == null ? Collections.<PlacementRule>emptyList()
          : new ArrayList<>(Collections.singletonList(rule));
      placement.updateRules(rules);
    }
    if (fileInForce) {
      file.logUnhonoured();
    }
    return (root.acls().enabled()
            ? ", queue ACLs decided by " + root.acls().decidedBy() + " ("
                + YarnConfiguration.YARN_AUTHORIZATION_PROVIDER + ")"
            : ", queue ACLs not enforced (" + YarnConfiguration.YARN_ACL_ENABLE + " is false)")
        + (fileInForce ? ", queues from capacity-scheduler.xml" : "")
        + (rule != null ? ", queue mappings applied" : "");
  }

  private static final String CAPACITY_QUEUES = "locus.capacity.queues";
}
