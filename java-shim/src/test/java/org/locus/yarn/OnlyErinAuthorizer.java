package org.locus.yarn;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.security.AccessRequest;
import org.apache.hadoop.yarn.security.AccessType;
import org.apache.hadoop.yarn.security.Permission;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;

/**
 * An authorization provider with policies of its own, as Ranger's is: the queues' XML lists
 * it is handed are ignored, and only erin may submit, anywhere; nobody administers a queue.
 */
public class OnlyErinAuthorizer extends YarnAuthorizationProvider {
  private volatile AccessControlList admins = new AccessControlList("*");

  @Override
  public void init(Configuration conf) {
  }

  @Override
  public boolean checkPermission(AccessRequest request) {
    return request.getAccessType() == AccessType.SUBMIT_APP
        && "erin".equals(request.getUser().getShortUserName());
  }

  @Override
  public void setPermission(List<Permission> permissions, UserGroupInformation ugi) {
  }

  @Override
  public void setAdmins(AccessControlList acls, UserGroupInformation ugi) {
    admins = acls;
  }

  @Override
  public boolean isAdmin(UserGroupInformation ugi) {
    return admins.isUserAllowed(ugi);
  }
}
