#include "src/sim/html.h"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/format.h"
#include "src/sim/what_if.h"

namespace ksched::sim {
namespace {

// Text for HTML: &, <, >, " and ' escaped. Written by hand: no Debian C++ library does only this.
std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A bar of `before` (grey) then `placed` (blue) against `allocatable`; past it, red. Widths are
// percentages of the bar, which stands for the larger of allocatable and what is requested.
std::string Bar(const char* resource, int64_t before, int64_t placed, int64_t allocatable,
                const std::string& label) {
  const int64_t total = before + placed;
  const double scale = static_cast<double>(std::max<int64_t>({allocatable, total, 1}));
  auto pct = [&](int64_t v) { return 100.0 * static_cast<double>(v) / scale; };
  const bool over = total > allocatable;
  return fmt::format(
      "<div class=\"bar{}\" title=\"{} {}\"><span class=\"before\" style=\"width:{:.2f}%\"></span>"
      "<span class=\"placed\" style=\"width:{:.2f}%\"></span><span class=\"cap\" "
      "style=\"left:{:.2f}%\"></span><em>{} {}</em></div>\n",
      over ? " over" : "", resource, Escape(label), pct(before), pct(placed), pct(allocatable),
      resource, Escape(label));
}

constexpr char kStyle[] = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
.nodes { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 12px; }
.node { border: 1px solid #ccc; border-radius: 6px; padding: 8px; }
.node h3 { font-size: 14px; margin: 0 0 6px; }
.bar { position: relative; height: 18px; background: #f2f2f2; margin: 4px 0; display: flex; }
.bar span.before { background: #9e9e9e; } .bar span.placed { background: #1e88e5; }
.bar.over { outline: 2px solid #e53935; }
.bar span.cap { position: absolute; top: 0; bottom: 0; width: 2px; background: #e53935; }
.bar em { position: absolute; left: 6px; top: 0; font-style: normal; font-size: 12px; line-height: 18px; }
.pod { display: inline-block; background: #e3f2fd; border-radius: 4px; padding: 0 6px; margin: 2px; font-size: 12px; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
)";

}  // namespace

std::string FormatHtml(const SimulationResult& result, const std::string& title) {
  // What each node's pods request: those the simulation placed, and the others.
  std::set<std::string> simulated;
  size_t scheduled = 0, pending = 0;
  for (const PodOutcome& o : result.pods) {
    simulated.insert(o.namespace_ + "/" + o.name);
    scheduled += o.node ? 1 : 0;
    pending += !o.node && o.status != "Preempted" ? 1 : 0;  // The preempted are among the evicted.
  }
  struct OnNode {
    int64_t cpu_before = 0, memory_before = 0, cpu_placed = 0, memory_placed = 0;
    std::vector<std::string> placed;
  };
  std::map<std::string, OnNode> on;
  for (const auto& p : result.final_pods) {
    if (p->spec.node_name.empty()) continue;
    const auto [cpu, memory] = CpuMemoryRequests(*p);
    OnNode& n = on[p->spec.node_name];
    const std::string key = p->metadata.namespace_ + "/" + p->metadata.name;
    if (simulated.contains(key)) {
      n.cpu_placed += cpu;
      n.memory_placed += memory;
      n.placed.push_back(key);
    } else {
      n.cpu_before += cpu;
      n.memory_before += memory;
    }
  }
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>ksched simulate: {0}</title><style>{1}</style></head><body>\n"
      "<h1>ksched simulate: {0}</h1>\n"
      "<p id=\"counts\">{2} pod(s) to schedule: {3} scheduled, {4} pending, {5} evicted by "
      "preemption; {6} node(s).</p>\n"
      "<p class=\"legend\">Requested of allocatable:<span style=\"background:#9e9e9e\"></span>"
      "running before<span style=\"background:#1e88e5\"></span>placed by the simulation"
      "<span style=\"background:#e53935\"></span>allocatable</p>\n<h2>Nodes</h2>\n"
      "<div class=\"nodes\">\n",
      Escape(title), kStyle, result.pods.size(), scheduled, pending, result.evicted.size(),
      result.final_nodes.size());
  for (const auto& node : result.final_nodes) {
    const NodeLoad load = LoadOf(*node);
    const OnNode& n = on[node->metadata.name];
    out += fmt::format("<div class=\"node\" id=\"node-{0}\"><h3>{0}{1}</h3>\n", Escape(load.node),
                       node->spec.unschedulable ? " (unschedulable)" : "");
    out +=
        Bar("cpu", n.cpu_before, n.cpu_placed, load.cpu_allocatable,
            fmt::format("{} of {}", Cpu(n.cpu_before + n.cpu_placed), Cpu(load.cpu_allocatable)));
    out += Bar("memory", n.memory_before, n.memory_placed, load.memory_allocatable,
               fmt::format("{} of {}", Memory(n.memory_before + n.memory_placed),
                           Memory(load.memory_allocatable)));
    for (const std::string& p : n.placed)
      out += fmt::format("<span class=\"pod\">{}</span>", Escape(p));
    out += "</div>\n";
  }
  out += "</div>\n<h2>Pending</h2>\n";
  std::string rows;
  for (const PodOutcome& o : result.pods) {
    if (o.node || o.status == "Preempted") continue;
    rows += fmt::format("<tr><td>{}/{}</td><td>{}</td><td>{}</td></tr>\n", Escape(o.namespace_),
                        Escape(o.name), Escape(o.status), Escape(o.message));
  }
  out += rows.empty() ? "<p id=\"pending\">None.</p>\n"
                      : "<table id=\"pending\"><tr><th>pod</th><th>status</th><th>why</th></tr>\n" +
                            rows + "</table>\n";
  // The PodGroups of the pods to schedule: how many of each were placed, and why not the others,
  // as the first pending one says it (a gang's says the group's reason).
  struct Group {
    int scheduled = 0, pods = 0;
    std::string why;
  };
  std::map<std::string, Group> groups;
  for (const PodOutcome& o : result.pods) {
    if (o.pod_group.empty()) continue;
    Group& g = groups[o.pod_group];
    ++g.pods;
    if (o.node) ++g.scheduled;
    if (!o.node && g.why.empty()) g.why = o.status + ": " + o.message;
  }
  if (!groups.empty()) {
    out +=
        "<h2>Pod groups</h2>\n<table id=\"groups\"><tr><th>group</th><th>scheduled</th>"
        "<th>why not all</th></tr>\n";
    for (const auto& [name, g] : groups) {
      out += fmt::format("<tr><td>{}</td><td>{} of {}</td><td>{}</td></tr>\n", Escape(name),
                         g.scheduled, g.pods, Escape(g.why));
    }
    out += "</table>\n";
  }
  if (!result.evicted.empty()) {
    out +=
        "<h2>Evicted by preemption</h2>\n<table "
        "id=\"evicted\"><tr><th>pod</th><th>from</th></tr>\n";
    for (const EvictedPod& e : result.evicted) {
      out += fmt::format("<tr><td>{}/{}</td><td>{}</td></tr>\n", Escape(e.namespace_),
                         Escape(e.name), Escape(e.node));
    }
    out += "</table>\n";
  }
  return out + "</body></html>\n";
}

}  // namespace ksched::sim
