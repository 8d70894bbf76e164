// textDocument/hover: on a flagged site, the rule's explanation from the catalog and, when the probe
// report covers the site, what it measured there.
#include <cstdio>

#include "core/catalog.h"
#include "lsp/server.h"

namespace synclint::lsp {

namespace {

std::string number(const char* format, double value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string explain(const Finding& f) {
  std::string md = "**" + f.rule_id + "** `" + f.rule_name + "`: " + f.message + "\n";
  if (f.cost) {
    const SiteCost& c = *f.cost;
    md += "\n**Measured by the probe**\n\n| calls | host blocked | GPU idle after | predicted saving | share of run |\n"
          "|---:|---:|---:|---:|---:|\n| " +
          std::to_string(c.calls) + " | " + number("%.1f ms", c.host_blocked_ms) + " | " +
          number("%.1f ms", c.gpu_idle_ms) + " | " + number("%.1f ms", c.predicted_saving_ms) + " | " +
          number("%.1f%%", c.share_of_run * 100) + " |\n";
  }
  if (const Rule* rule = Catalog::builtin().find(f.rule_id)) {
    if (!rule->docs.what.empty()) md += "\n**What it does**\n\n" + rule->docs.what + "\n";
    if (!rule->docs.why.empty()) md += "\n**Why it stalls the GPU**\n\n" + rule->docs.why + "\n";
    if (!rule->docs.use_instead.empty()) md += "\n**Use instead**\n\n" + rule->docs.use_instead + "\n";
  }
  if (!f.fix.empty()) md += "\n**Here:** " + f.fix + "\n";
  return md;
}

}  // namespace

std::optional<Hover> Server::hover(const std::string& uri, Position position) {
  if (dirty_) analyze();
  const std::vector<const Finding*> at = findings_at(path_of(uri), Range{position, position});
  if (at.empty()) return std::nullopt;
  Hover h;
  h.range = range_of(at.front()->range);
  for (const Finding* f : at) {
    if (!h.markdown.empty()) h.markdown += "\n---\n\n";
    h.markdown += explain(*f);
  }
  return h;
}

}  // namespace synclint::lsp
