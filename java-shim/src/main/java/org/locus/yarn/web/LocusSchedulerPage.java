package org.locus.yarn.web;

import org.apache.hadoop.yarn.server.resourcemanager.webapp.RmView;
import org.apache.hadoop.yarn.webapp.SubView;
import org.apache.hadoop.yarn.webapp.hamlet2.Hamlet;
import org.apache.hadoop.yarn.webapp.view.HtmlPage;

/**
 * The classic UI's scheduler page ({@code /cluster/scheduler}) under Locus, in the RM's own
 * layout (header, navigation, footer). The RM renders the class named by
 * {@code yarn.http.rmwebapp.scheduler.page.class} for a scheduler it does not know; without it
 * the page would fall back to DefaultSchedulerPage, which assumes FifoScheduler.
 */
public class LocusSchedulerPage extends RmView {
  /** Bar colours: guarantee (light), use within it (green), use beyond it (orange). */
  private static final String[] CSS = {
      ".lq-bar { position: relative; width: 240px; height: 14px; border: 1px solid #888;"
          + " background: #fff; }",
      ".lq-bar div { position: absolute; top: 0; left: 0; height: 100%; }",
      ".lq-bar div.lq-over { left: auto; }",
      ".lq-max { background: #eee; border-right: 1px dashed #666; }",
      ".lq-cap { background: #c6dbef; }",
      ".lq-used { background: #5a9e4b; opacity: 0.85; }",
      ".lq-used.lq-over { background: #e08a2e; }",
      "table.lq { border-collapse: collapse; margin: 0.5em 0 1.5em; width: auto; }",
      "table.lq th, table.lq td { border-bottom: 1px solid #ddd; padding: 3px 10px;"
          + " text-align: left; vertical-align: middle; }",
      "table.lq td.num { text-align: right; }",
      ".lq-legend span { display: inline-block; width: 12px; height: 10px; margin: 0 4px 0 12px;"
          + " border: 1px solid #888; }",
  };

  @Override
  protected void preHead(Hamlet.HTML<HtmlPage.__> html) {
    commonPreHead(html);
    setTitle("Locus Scheduler");
  }

  @Override
  protected void postHead(Hamlet.HTML<HtmlPage.__> html) {
    html.style().$type("text/css").__((Object[]) CSS).__();
  }

  @Override
  protected Class<? extends SubView> content() {
    return LocusSchedulerBlock.class;
  }
}
