package org.locus.it;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.TableMapping;

/**
 * The NameNode's rack mapping: the same topology table as {@link TableMapping}, looked up by host name.
 *
 * <p>The NameNode resolves a {@code CachedDNSToSwitchMapping} (which {@code TableMapping} is) by the
 * DataNode's IP address as seen on its registration RPC. In the embedded cluster every DataNode's RPC
 * comes from 127.0.0.1, so only the registered host name (127.0.0.x) tells the DataNodes apart. Not
 * being a cached mapping makes the NameNode pass that host name instead; the table itself is unchanged.
 */
public class HostTableMapping extends Configured implements DNSToSwitchMapping {
  private final TableMapping table = new TableMapping();

  @Override
  public void setConf(Configuration conf) {
    super.setConf(conf);
    if (conf != null) {
      table.setConf(conf);
    }
  }

  @Override
  public List<String> resolve(List<String> names) {
    return table.resolve(names);
  }

  @Override
  public void reloadCachedMappings() {
    table.reloadCachedMappings();
  }

  @Override
  public void reloadCachedMappings(List<String> names) {
    table.reloadCachedMappings(names);
  }
}
