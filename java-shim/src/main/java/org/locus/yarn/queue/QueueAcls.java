package org.locus.yarn.queue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueuePath;

/**
 * Who may submit to and administer each queue, read with CapacityScheduler's own parser
 * ({@link CapacitySchedulerConfiguration}: {@code yarn.scheduler.capacity.<path>.acl_submit_applications}
 * and {@code .acl_administer_queue}, from {@code capacity-scheduler.xml} on the RM's classpath
 * or the scheduler's own configuration). The rules are CapacityScheduler's: root's ACLs
 * default to {@code *}, every other queue's to nobody, and a user allowed at a queue is
 * allowed in every queue below it, so an operator who leaves root at {@code *} opens every
 * queue. Users in {@code yarn.admin.acl} are allowed everywhere. With {@code yarn.acl.enable}
 * false every check passes, as in every Hadoop scheduler.
 *
 * <p>Immutable: a refresh builds a new one, so a reader never sees half of a reload.
 */
public final class QueueAcls {
  private final boolean enabled;
  private final AccessControlList admins;
  /** By full queue path ({@code root}, {@code root.a}, ...), each queue's own lists. */
  private final Map<String, Map<QueueACL, AccessControlList>> byPath;

  private QueueAcls(boolean enabled, AccessControlList admins,
      Map<String, Map<QueueACL, AccessControlList>> byPath) {
    this.enabled = enabled;
    this.admins = admins;
    this.byPath = byPath;
  }

  /**
   * Reads the ACLs of {@code queuePaths} and of every queue above them.
   *
   * @param conf the RM's configuration ({@code yarn.acl.enable}, {@code yarn.admin.acl}, and
   *     any {@code yarn.scheduler.capacity.*} keys set in it)
   * @param queuePaths full paths such as {@code root.a}
   */
  public static QueueAcls read(Configuration conf, Collection<String> queuePaths) {
    // Adds capacity-scheduler.xml from the classpath to a copy of conf, as CapacityScheduler does.
    return read(conf, new CapacitySchedulerConfiguration(conf), queuePaths);
  }

  /**
   * As {@link #read(Configuration, Collection)}, from an already loaded
   * {@code capacity-scheduler.xml} ({@link QueueFile#configuration()}).
   */
  public static QueueAcls read(Configuration conf, CapacitySchedulerConfiguration cs,
      Collection<String> queuePaths) {
    boolean enabled = conf.getBoolean(YarnConfiguration.YARN_ACL_ENABLE,
        YarnConfiguration.DEFAULT_YARN_ACL_ENABLE);
    AccessControlList admins = new AccessControlList(
        conf.get(YarnConfiguration.YARN_ADMIN_ACL, YarnConfiguration.DEFAULT_YARN_ADMIN_ACL));
    Map<String, Map<QueueACL, AccessControlList>> byPath = new LinkedHashMap<>();
    for (String path : queuePaths) {
      for (String p = path; p != null; p = parentOf(p)) {
        if (byPath.containsKey(p)) {
          break;
        }
        Map<QueueACL, AccessControlList> lists = new EnumMap<>(QueueACL.class);
        for (QueueACL acl : QueueACL.values()) {
          lists.put(acl, cs.getAcl(new QueuePath(p), acl));
        }
        byPath.put(p, Collections.unmodifiableMap(lists));
      }
    }
    return new QueueAcls(enabled, admins, Collections.unmodifiableMap(byPath));
  }

  /** Everyone may do everything: for a scheduler whose ACLs are not read yet. */
  public static QueueAcls open() {
    return new QueueAcls(false, new AccessControlList("*"), Collections.emptyMap());
  }

  private static String parentOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? null : path.substring(0, dot);
  }

  /** True when {@code yarn.acl.enable} is on, i.e. when these lists are enforced. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * May {@code user} do {@code acl} on the queue at {@code queuePath}? A queue these ACLs were
   * not read for is refused (as CapacityScheduler refuses an unknown queue) unless ACLs are off
   * or the user is an admin.
   */
  public boolean isAllowed(UserGroupInformation user, QueueACL acl, String queuePath) {
    if (!enabled) {
      return true;
    }
    if (user == null) {
      return false;
    }
    if (admins.isUserAllowed(user)) {
      return true;
    }
    if (!byPath.containsKey(queuePath)) {
      return false;
    }
    for (String p = queuePath; p != null; p = parentOf(p)) {
      Map<QueueACL, AccessControlList> lists = byPath.get(p);
      if (lists != null && lists.get(acl).isUserAllowed(user)) {
        return true;
      }
    }
    return false;
  }

  /** The operations {@code user} may do on {@code queuePath}, for {@code mapred queue -showacls}. */
  public List<QueueACL> allowed(UserGroupInformation user, String queuePath) {
    List<QueueACL> out = new ArrayList<>();
    for (QueueACL acl : QueueACL.values()) {
      if (isAllowed(user, acl, queuePath)) {
        out.add(acl);
      }
    }
    return out;
  }

  /** A queue's own list (not inherited), as configured; null for a queue not read. */
  public AccessControlList ownList(String queuePath, QueueACL acl) {
    Map<QueueACL, AccessControlList> lists = byPath.get(queuePath);
    return lists == null ? null : lists.get(acl);
  }

  /** The paths read, root first. */
  public Collection<String> queuePaths() {
    return byPath.keySet();
  }
}
