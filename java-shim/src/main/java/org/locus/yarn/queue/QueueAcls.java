package org.locus.yarn.queue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AccessRequest;
import org.apache.hadoop.yarn.security.Permission;
import org.apache.hadoop.yarn.security.PrivilegedEntity;
import org.apache.hadoop.yarn.security.PrivilegedEntity.EntityType;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;

/**
 * Who may submit to and administer each queue, decided as CapacityScheduler decides it: by
 * the RM's {@link YarnAuthorizationProvider} ({@code yarn.authorization-provider}, Hadoop's
 * {@code ConfiguredYarnAuthorizer} unless the operator names another, e.g. Ranger's), which
 * is handed every queue's {@code acl_submit_applications} and {@code acl_administer_queue}
 * from {@code capacity-scheduler.xml} (read with CapacityScheduler's own parser) as
 * CapacityScheduler hands them over: one {@link Permission} per queue path.
 *
 * <p>With Hadoop's authorizer the rules are CapacityScheduler's: root's lists default to
 * {@code *}, every other queue's to nobody, and a user allowed at a queue is allowed in every
 * queue below it, so an operator who leaves root at {@code *} opens every queue.
 * {@code yarn.admin.acl} plays no part: it governs administration and the applications'
 * own ACLs in the RM, never a queue right. With {@code yarn.acl.enable} false every access
 * check passes, as in every Hadoop scheduler; {@code -showacls} still lists what the
 * authorizer grants, as CapacityScheduler does.
 *
 * <p>Immutable: a refresh builds a new one, so a reader never sees half of a reload.
 */
public final class QueueAcls {
  private final boolean enabled;
  /** Null only for {@link #open()}. */
  private final YarnAuthorizationProvider authorizer;
  /** Full queue paths ({@code root}, {@code root.a}, ...) whose lists were handed over. */
  private final Set<String> paths;

  private QueueAcls(boolean enabled, YarnAuthorizationProvider authorizer, Set<String> paths) {
    this.enabled = enabled;
    this.authorizer = authorizer;
    this.paths = paths;
  }

  /**
   * Hands {@code authorizer} the lists of {@code queuePaths} and of every queue above them,
   * as CapacityScheduler does at start and on every refresh.
   *
   * @param conf the RM's configuration ({@code yarn.acl.enable})
   * @param cs the loaded {@code capacity-scheduler.xml} ({@link QueueFile#configuration()})
   * @param queuePaths full paths such as {@code root.a}
   * @param created the queues created on the fly, whose lists CapacityScheduler does not hand
   *     its authorizer (their templates' lists admit only the submission that creates them;
   *     after it, the authorizer answers for them from the queues above)
   * @throws IOException when the RM's own user cannot be told (the authorizer's caller)
   */
  public static QueueAcls install(Configuration conf, YarnAuthorizationProvider authorizer,
      CapacitySchedulerConfiguration cs, Collection<String> queuePaths,
      java.util.function.Predicate<String> created) throws IOException {
    Set<String> paths = new LinkedHashSet<>();
    for (String path : queuePaths) {
      for (String p = path; p != null && paths.add(p); p = parentOf(p)) {
        // Each queue once, with its ancestors: the authorizer walks up by path.
      }
    }
    List<Permission> permissions = new ArrayList<>(paths.size());
    for (String p : paths) {
      if (!created.test(p)) {
        permissions.add(new Permission(entity(p), cs.getAcls(new QueuePath(p))));
      }
    }
    authorizer.setPermission(permissions, UserGroupInformation.getCurrentUser());
    return new QueueAcls(YarnConfiguration.isAclEnabled(conf), authorizer,
        Collections.unmodifiableSet(paths));
  }

  /** Everyone may do everything: for a scheduler whose ACLs are not read yet. */
  public static QueueAcls open() {
    return new QueueAcls(false, null, Collections.emptySet());
  }

  private static PrivilegedEntity entity(String path) {
    return new PrivilegedEntity(EntityType.QUEUE, path);
  }

  private static String parentOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? null : path.substring(0, dot);
  }

  /** True when {@code yarn.acl.enable} is on, i.e. when access checks are enforced. */
  public boolean enabled() {
    return enabled;
  }

  /** The class that decides, for the log. */
  public String decidedBy() {
    return authorizer == null ? "nobody" : authorizer.getClass().getName();
  }

  /**
   * May {@code user} do {@code acl} on the queue at {@code queuePath}? Everyone may when ACLs
   * are off; a queue not handed to the authorizer is refused (as an unknown queue is).
   */
  public boolean isAllowed(UserGroupInformation user, QueueACL acl, String queuePath) {
    return !enabled || granted(user, acl, queuePath);
  }

  /**
   * Whether the authorizer lets {@code user} submit to or administer {@code queuePath}, a
   * queue yet to be created: the RM asks it of the path itself for CapacityScheduler, and
   * Hadoop's authorizer answers from the lists of the queues above.
   */
  public boolean grantsAbove(UserGroupInformation user, String queuePath) {
    if (!enabled || authorizer == null) {
      return true;
    }
    if (user == null) {
      return false;
    }
    for (QueueACL acl : new QueueACL[] {QueueACL.SUBMIT_APPLICATIONS, QueueACL.ADMINISTER_QUEUE}) {
      if (authorizer.checkPermission(new AccessRequest(entity(queuePath), user,
          SchedulerUtils.toAccessType(acl), null, null, Server.getRemoteAddress(), null))) {
        return true;
      }
    }
    return false;
  }

  /** The authorizer's answer, whether or not ACLs are enforced. */
  private boolean granted(UserGroupInformation user, QueueACL acl, String queuePath) {
    if (authorizer == null) {
      return true;
    }
    if (user == null || !paths.contains(queuePath)) {
      return false;
    }
    return authorizer.checkPermission(new AccessRequest(entity(queuePath), user,
        SchedulerUtils.toAccessType(acl), null, null, Server.getRemoteAddress(), null));
  }

  /**
   * The operations {@code user} may do on {@code queuePath}, for {@code mapred queue
   * -showacls}: what the authorizer grants, with ACLs enforced or not, as CapacityScheduler
   * lists them.
   */
  public List<QueueACL> allowed(UserGroupInformation user, String queuePath) {
    List<QueueACL> out = new ArrayList<>();
    for (QueueACL acl : QueueACL.values()) {
      if (granted(user, acl, queuePath)) {
        out.add(acl);
      }
    }
    return out;
  }
}
