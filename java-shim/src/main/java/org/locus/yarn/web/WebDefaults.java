package org.locus.yarn.web;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Points the RM's web app at Locus's REST resource and scheduler page, so that switching
 * {@code yarn.resourcemanager.scheduler.class} is the only change an operator makes. Runs in the
 * scheduler's serviceInit, before the RM starts its web app from the same Configuration; a value
 * the operator set is kept (and logged), never overridden.
 */
public final class WebDefaults {
  /** Hadoop 3.5: the class the RM serves in place of RMWebServices. */
  public static final String WEBSERVICE_CLASS_KEY = "yarn.webapp.custom.webservice.class";
  /** Hadoop 3.5: the View the RM renders at /cluster/scheduler for a scheduler it does not know. */
  public static final String SCHEDULER_PAGE_KEY = "yarn.http.rmwebapp.scheduler.page.class";
  private static final Logger LOG = LoggerFactory.getLogger(WebDefaults.class);

  private WebDefaults() {
  }

  public static void install(Configuration conf) {
    setUnlessOperatorDid(conf, WEBSERVICE_CLASS_KEY, LocusWebServices.class.getName());
    setUnlessOperatorDid(conf, SCHEDULER_PAGE_KEY, LocusSchedulerPage.class.getName());
  }

  private static void setUnlessOperatorDid(Configuration conf, String key, String ours) {
    String theirs = conf.getTrimmed(key);
    if (theirs == null || theirs.isEmpty()) {
      conf.set(key, ours, "Locus default (org.locus.yarn.web.WebDefaults)");
    } else if (!theirs.equals(ours)) {
      LOG.warn("{} is set to {}: Locus's {} is not installed, so the RM web app shows that "
          + "class's view of the scheduler instead", key, theirs, ours);
    }
  }
}
