package org.locus.it;

import com.google.inject.servlet.GuiceFilter;
import java.lang.reflect.Field;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.webapp.WebApp;

/**
 * Makes the embedded RM serve its classic UI pages ({@code /cluster/...}) again, as an RM does in
 * its own JVM.
 *
 * <p>Why they stop: Hadoop's {@code WebApps} registers Guice's {@code GuiceFilter} with Jetty by
 * class name, so Jetty's instance dispatches through GuiceFilter's static pipeline, which every
 * web app created later in the JVM replaces; the NodeManagers the embedded cluster starts after
 * the RM take it over, and the RM's port then answers the NodeManager's routes
 * (docs/operator/monitoring.md). The RM's web app keeps its own pipeline in the GuiceFilter Guice
 * injected into it; putting that one back as the static pipeline restores what a lone RM has.
 * The NodeManagers' classic pages are then the ones that stop; no test reads them.
 */
final class RmClassicPages {
  private RmClassicPages() {}

  static void restore(ResourceManager rm) throws ReflectiveOperationException {
    Field webAppField = ResourceManager.class.getDeclaredField("webApp");
    webAppField.setAccessible(true);
    WebApp webApp = (WebApp) webAppField.get(rm);
    if (webApp == null) {
      throw new IllegalStateException("the RM has not started its web app");
    }
    Field filterField = WebApp.class.getDeclaredField("guiceFilter");
    filterField.setAccessible(true);
    GuiceFilter rmFilter = (GuiceFilter) filterField.get(webApp);
    Field injected = GuiceFilter.class.getDeclaredField("injectedPipeline");
    injected.setAccessible(true);
    // FilterPipeline is package-private in Guice: carried as an Object.
    Object rmPipeline = injected.get(rmFilter);
    Field shared = GuiceFilter.class.getDeclaredField("pipeline");
    shared.setAccessible(true);
    shared.set(null, rmPipeline);
  }
}
