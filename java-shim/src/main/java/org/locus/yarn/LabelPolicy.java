package org.locus.yarn;

import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node labels (partitions) are not scheduled by Locus yet: the core places containers on the
 * default partition only. An application or ask naming any other label would wait forever, so
 * it is refused where it arrives, naming the label: a submission is failed by the RM with that
 * diagnostic, an allocate call carrying a labelled ask fails for that AM before any of its asks
 * is recorded. (With {@code yarn.node-labels.enabled=false} the RM refuses labels itself before
 * Locus sees them; this is what holds when an operator enables labels.)
 */
final class LabelPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(LocusScheduler.class);

  private final RMContext rmContext;

  LabelPolicy(RMContext rmContext) {
    this.rmContext = rmContext;
  }

  /** A label expression naming a partition other than the default one. */
  static boolean names(String expression) {
    return expression != null && !expression.trim().isEmpty();
  }

  static String refusal(String who, String label) {
    return who + " asks for node label '" + label.trim() + "'; Locus schedules only the "
        + "default partition (no node label) and refuses labelled applications and asks "
        + "until partitions are supported";
  }

  /** The first label the submission names (application-wide or on an AM request), or null. */
  static String labelOf(ApplicationSubmissionContext ctx) {
    if (ctx == null) {
      return null;
    }
    if (names(ctx.getNodeLabelExpression())) {
      return ctx.getNodeLabelExpression();
    }
    List<ResourceRequest> am = ctx.getAMContainerResourceRequests();
    return am == null ? null : labelOf(am);
  }

  static String labelOf(List<ResourceRequest> asks) {
    if (asks == null) {
      return null;
    }
    for (ResourceRequest r : asks) {
      if (r != null && names(r.getNodeLabelExpression())) {
        return r.getNodeLabelExpression();
      }
    }
    return null;
  }

  /**
   * APP_ADDED: true when the application names a label and was failed (rejected; killed when
   * recovering, as a recovering application cannot be rejected). Runs on the dispatcher thread:
   * never throws.
   */
  boolean refusedAtSubmission(ApplicationId appId, boolean isAppRecovering) {
    RMApp rmApp = rmContext.getRMApps().get(appId);
    String label = rmApp == null ? null : labelOf(rmApp.getApplicationSubmissionContext());
    if (label == null) {
      return false;
    }
    String message = refusal("Application " + appId, label);
    LOG.warn(message);
    rmContext.getDispatcher().getEventHandler().handle(new RMAppEvent(appId,
        isAppRecovering ? RMAppEventType.KILL : RMAppEventType.APP_REJECTED, message));
    return true;
  }

  /** allocate: the AM's call fails naming the label; nothing of the call is applied. */
  static void refuseLabelledAsks(ApplicationAttemptId attempt, List<ResourceRequest> asks) {
    String label = labelOf(asks);
    if (label != null) {
      throw new YarnRuntimeException(refusal("Application attempt " + attempt, label));
    }
  }
}
