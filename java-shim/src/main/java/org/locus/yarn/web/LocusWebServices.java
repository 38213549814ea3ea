package org.locus.yarn.web;

import java.io.IOException;
import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.RMWebServices;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;
import org.locus.yarn.LocusScheduler;

/**
 * The RM's REST API ({@code /ws/v1/cluster/...}) with {@code /scheduler} answering for Locus.
 *
 * <p>Hadoop 3.5.0's RMWebServices builds the scheduler record only for Capacity, Fair and FIFO
 * and answers 404 "Unknown scheduler configured" for any other; its JSON writer (MOXy) only
 * writes record classes it was built with. The RM serves the class named by
 * {@code yarn.webapp.custom.webservice.class} in place of RMWebServices, so this subclass keeps
 * every other endpoint and serves {@code /scheduler} itself, as JSON written by Jackson (JSON
 * only: CS's XML form of this record is not served under Locus).
 * LocusScheduler names it by default (see {@link WebDefaults}).
 */
@Singleton
@Path("/ws/v1/cluster")
public class LocusWebServices extends RMWebServices {
  private final ResourceManager rm;

  @Inject
  public LocusWebServices(@Named("rm") ResourceManager rm, @Named("conf") Configuration conf) {
    super(rm, conf);
    this.rm = rm;
  }

  /**
   * No longer a resource method: JAX-RS ignores a superclass method's annotations once the
   * override carries any of its own, so {@code GET /scheduler} is {@link #scheduler()} alone.
   * Kept callable for code that uses RMWebServices as a Java API.
   */
  @Override
  @Produces(MediaType.APPLICATION_JSON)
  public SchedulerTypeInfo getSchedulerInfo() {
    return super.getSchedulerInfo();
  }

  @GET
  @Path("/scheduler")
  @Produces(MediaType.APPLICATION_JSON + "; charset=utf-8")
  public Response scheduler() throws IOException {
    ResourceScheduler scheduler = rm.getResourceScheduler();
    if (!(scheduler instanceof LocusScheduler)) {
      // Someone kept this class after switching back to CS/FS/FIFO: Hadoop's own answer.
      return Response.ok(super.getSchedulerInfo()).build();
    }
    QueueView root = QueueView.root(scheduler, rm.getRMContext());
    String body = SchedulerInfoJson.render(root, LocusFigures.of(scheduler)).toString();
    return Response.ok(body, MediaType.APPLICATION_JSON_TYPE.withCharset("utf-8")).build();
  }
}
