package org.locus.yarn.web;

import com.google.inject.Inject;
import java.io.IOException;
import java.util.Locale;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.webapp.hamlet2.Hamlet;
import org.apache.hadoop.yarn.webapp.view.HtmlBlock;

/**
 * The body of {@link LocusSchedulerPage}: Locus's figures, the queue tree with capacity / used /
 * maximum bars (all relative to the cluster, as CapacityScheduler's page draws them), and the
 * applications in each leaf. Everything comes from {@link QueueView} and {@link LocusFigures},
 * the same model the REST resource writes.
 */
public class LocusSchedulerBlock extends HtmlBlock {
  private final ResourceManager rm;

  @Inject
  LocusSchedulerBlock(ResourceManager rm, ViewContext ctx) {
    super(ctx);
    this.rm = rm;
  }

  @Override
  protected void render(Block html) {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    QueueView root;
    try {
      root = QueueView.root(scheduler, rm.getRMContext());
    } catch (IOException e) {
      html.p().__("The scheduler could not describe its queues: " + e.getMessage()).__();
      return;
    }
    figures(html, LocusFigures.of(scheduler));
    queues(html, root);
    for (QueueView q : root.flatten()) {
      if (q.isLeaf()) {
        apps(html, q);
      }
    }
  }

  private static void figures(Block html, LocusFigures f) {
    html.h3("Locus");
    if (f == null) {
      html.p().__("The running scheduler is not Locus.").__();
      return;
    }
    Hamlet.TABLE<Hamlet> t = html.table("#locus-figures").$class("lq");
    row(t, "Policy and layers", f.policy);
    if (!f.available) {
      row(t, "Core", "being rebuilt after a failure; counters return shortly");
    }
    row(t, "Node heartbeats handled", Long.toString(f.heartbeats));
    row(t, "Placement decisions", Long.toString(f.decisions));
    row(t, "Allocations (node-local / rack-local / off-switch)", f.allocations + " ("
        + f.nodeLocal + " / " + f.rackLocal + " / " + f.offSwitch + ")");
    row(t, "Decisions rejected by the shim", Long.toString(f.rejections));
    row(t, "Decisions lost (no answer by the next heartbeat)", Long.toString(f.lostDecisions));
    row(t, "Core rebuilds", Long.toString(f.coreRebuilds));
    row(t, "In flight / pending / running containers", f.inFlight + " / "
        + f.pendingContainers + " / " + f.runningContainers);
    row(t, "Scheduler time per node heartbeat", timing(f.heartbeatCount,
        f.heartbeatMeanMicros, f.heartbeatMaxMicros));
    row(t, "Scheduler time per allocate()", timing(f.allocateCount, f.allocateMeanMicros,
        f.allocateMaxMicros));
    row(t, "Heartbeats queued for bookkeeping (oldest waited)", f.queuedHeartbeats + " ("
        + f.oldestQueuedHeartbeatAgeMs + " ms)");
    t.__();
  }

  private static String timing(long count, double mean, long max) {
    return String.format(Locale.ROOT, "mean %.1f us, max %d us over %d calls", mean, max, count);
  }

  private static void row(Hamlet.TABLE<Hamlet> t, String name, String value) {
    t.tr().th(name).td(value).__();
  }

  private static void queues(Block html, QueueView root) {
    html.h3("Queues");
    html.div().$class("lq-legend").__("Bars are shares of the cluster:")
        .span().$class("lq-cap").__().__("guaranteed")
        .span().$class("lq-used").__().__("used")
        .span().$class("lq-used lq-over").__().__("used beyond the guarantee")
        .span().$class("lq-max").__().__("maximum").__();
    Hamlet.TABLE<Hamlet> t = html.table("#locus-queues").$class("lq");
    t.tr().th("Queue").th("Cluster share").th("Capacity").th("Used").th("Max")
        .th("Apps running").th("Apps pending").th("Containers").th("Pending containers")
        .th("Preempted containers").th("Used memory (MB)").th("State").__();
    addQueueRows(t, root, 0);
    t.__();
  }

  private static void addQueueRows(Hamlet.TABLE<Hamlet> t, QueueView q, int depth) {
    Hamlet.TR<Hamlet.TABLE<Hamlet>> tr = t.tr();
    // A queue created on a submission says so, as CapacityScheduler's creationMethod does.
    tr.td().$style("padding-left:" + (10 + 18 * depth) + "px").$title(q.path)
        .__(q.name + ("static".equals(q.creationMethod) ? "" : " (auto-created)")).__();
    // Use within the guarantee in green, the part borrowed beyond it in orange after it.
    float within = Math.min(q.absoluteUsedCapacity, q.absoluteCapacity);
    float beyond = Math.max(0f, q.absoluteUsedCapacity - q.absoluteCapacity);
    tr.td().div().$class("lq-bar").$title(String.format(Locale.ROOT,
            "guaranteed %.1f%%, used %.1f%%, max %.1f%% of the cluster", q.absoluteCapacity,
            q.absoluteUsedCapacity, q.absoluteMaxCapacity))
        .div().$class("lq-max").$style(width(q.absoluteMaxCapacity)).__()
        .div().$class("lq-cap").$style(width(q.absoluteCapacity)).__()
        .div().$class("lq-used").$style(width(within)).__()
        .div().$class("lq-used lq-over")
            .$style(left(q.absoluteCapacity) + ";" + width(beyond)).__()
        .__().__();
    tr.td(pct(q.capacity)).td(pct(q.usedCapacity)).td(pct(q.maxCapacity))
        .td(Integer.toString(q.appsRunning)).td(Integer.toString(q.appsPending))
        .td(Integer.toString(q.allocatedContainers)).td(Integer.toString(q.pendingContainers))
        .td(Long.toString(q.preemptedContainers)).td(Long.toString(q.usedMemoryMb))
        .td(q.state.toString()).__();
    for (QueueView c : q.children) {
      addQueueRows(t, c, depth + 1);
    }
  }

  private void apps(Block html, QueueView q) {
    html.h3("Applications in " + q.path);
    if (q.apps.isEmpty()) {
      html.p().__("none").__();
      return;
    }
    Hamlet.TABLE<Hamlet> t = html.table().$class("lq");
    t.tr().th("Application").th("User").th("Name").th("State").th("Priority").th("Progress")
        .__();
    for (QueueView.AppView a : q.apps) {
      t.tr().td().a(root_url("app", a.id), a.id).__().td(a.user).td(a.name).td(a.state)
          .td(Integer.toString(a.priority)).td(pct(a.progress * 100f)).__();
    }
    t.__();
    if (q.numApplications > q.apps.size()) {
      html.p().__((q.numApplications - q.apps.size()) + " more not listed").__();
    }
  }

  private static String width(float percent) {
    float w = Math.max(0f, Math.min(100f, percent));
    return String.format(Locale.ROOT, "width:%.1f%%", w);
  }

  private static String left(float percent) {
    float l = Math.max(0f, Math.min(100f, percent));
    return String.format(Locale.ROOT, "left:%.1f%%", l);
  }

  private static String pct(float percent) {
    return String.format(Locale.ROOT, "%.1f%%", percent);
  }
}
