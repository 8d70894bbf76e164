// A fixed synthetic Report, its source files and a small rule catalog, shared by the golden tests, the
// SARIF validator test and the emitter unit tests. Everything here is machine-independent.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/catalog.h"
#include "core/finding.h"
#include "emit/emit.h"

namespace synclint::testing {

inline std::string rule_toml(const std::string& id, const std::string& name, const std::string& severity,
                             const std::string& summary) {
  return "id = \"" + id + "\"\nname = \"" + name + "\"\nsummary = \"" + summary + "\"\nseverity = \"" + severity +
         "\"\nlanguages = [\"python\"]\n\n[apis.python]\nmethods = [\"item\"]\n\n[docs]\n"
         "what = '''\nFlags `" + name + "` in hot code.\n'''\n"
         "why = '''\nThe host waits for the GPU & the GPU then waits for the host.\n'''\n"
         "example = '''\n```python\nfor x in loader:\n    total += loss.item()\n```\n'''\n"
         "use_instead = '''\nKeep the value on the GPU and copy it once per interval.\n'''\n"
         "options = '''\n- `hot-functions`: more per-step callbacks.\n'''\n";
}

// Two rules, as `Catalog::from_files` reads them from TOML.
inline Catalog sample_catalog() {
  return Catalog::from_files({
      {"SYNC001.toml", rule_toml("SYNC001", "tensor-item", "warning", "`.item()` on a GPU tensor in hot code.")},
      {"SYNC005.toml", rule_toml("SYNC005", "tensor-formatting", "warning", "Formatting a GPU tensor in hot code.")},
  });
}

inline std::map<std::string, std::string> sample_sources() {
  return {
      {"src/train.py",
       "import torch\n"
       "\n"
       "def train(model, loader, optimizer):\n"
       "    total = 0.0\n"
       "    for step, (x, y) in enumerate(loader):\n"
       "        loss = model.step(x, y)\n"
       "        total += loss.item()\n"
       "\tif step % 100 == 0:\n"
       "\t\tprint(f\"pérte {loss} → ok\")\n"
       "    return total\n"},
      {"src/model.py",
       "class Model:\n"
       "    def step(self, x, y):\n"
       "        norms = [p.grad.norm().item() for p in self.parameters()]\n"
       "        return self.loss(x, y)\n"},
  };
}

inline std::function<std::optional<std::string>(const std::string&)> sample_reader() {
  return [sources = sample_sources()](const std::string& path) -> std::optional<std::string> {
    const auto it = sources.find(path);
    if (it == sources.end()) return std::nullopt;
    return it->second;
  };
}

inline SourceRange range(std::string path, std::uint32_t line, std::uint32_t column, std::uint32_t end_line,
                         std::uint32_t end_column) {
  return SourceRange{std::move(path), {line, column}, {end_line, end_column}};
}

inline Finding finding(std::string id, std::string name, Severity severity, SourceRange where, std::string message) {
  Finding f;
  f.rule_id = std::move(id);
  f.rule_name = std::move(name);
  f.severity = severity;
  f.range = std::move(where);
  f.message = std::move(message);
  return f;
}

inline Report sample_report() {
  Report report;
  report.files_checked = 4;
  report.checked_paths = {"src/broken.py", "src/model.py", "src/train.py", "src/utils/clean.py"};
  report.has_costs = true;

  Finding loss = finding("SYNC001", "tensor-item", Severity::Warning, range("src/train.py", 7, 18, 7, 29),
                         "`loss.item()` waits for the GPU every step of the loop at line 5");
  loss.related = {{range("src/train.py", 5, 5, 5, 43), "the loop that makes this hot"}};
  loss.function = "train";
  loss.fix = "accumulate on the GPU (`total += loss.detach()`) and copy once per logging interval";
  loss.edits = {{range("src/train.py", 7, 18, 7, 29), "loss.detach()"}};
  loss.cost = SiteCost{1234, 12.34, 4.5, 15.06, 0.032};

  Finding print = finding("SYNC005", "tensor-formatting", Severity::Note, range("src/train.py", 9, 18, 9, 22),
                          "f-string formats `loss` < 0 & 100%, a GPU tensor: copies it, every 100 steps");
  print.related = {{range("src/train.py", 8, 2, 8, 21), "periodic guard: runs every 100 steps"}};
  print.periodic = true;
  print.function = "train";
  print.confidence = Confidence::Medium;

  Finding norms = finding("SYNC001", "tensor-item", Severity::Warning, range("src/model.py", 3, 18, 3, 38),
                          "`.item()` on a gradient norm: 22 reads per step, each one a separate stall");
  norms.related = {{range("src/train.py", 6, 16, 6, 32), "called from src/train.py:6, inside the loop at src/train.py:5"},
                   {range("src/train.py", 5, 5, 5, 43), "the loop"}};
  norms.reads_per_step = 22;
  norms.function = "Model.step";
  norms.fix = "stack the norms with torch.stack and read them with one .cpu() per interval";
  norms.cost = SiteCost{27148, 301.2, 280.75, 402.5, 0.41};

  report.findings = {norms, loss, print};

  report.errors = {FileError{"src/broken.py", "invalid syntax: expected ':'", true, Position{3, 5}}};
  report.missed_by_static = {RuntimeSite{range("src/data.py", 12, 0, 12, 0), "Loader.__iter__", "cudaStreamSynchronize",
                                         SiteCost{300, 3.2, 1.1, 4.0, 0.0085}}};
  return report;
}

// The options the goldens are written with: fixed version and working directory, no information URI,
// sources in memory.
inline emit::Options sample_options() {
  emit::Options options;
  options.tool_version = "1.2.3";
  options.working_directory = "/project";
  options.information_uri = "";  // where the docs live differs between machines
  options.read_source = sample_reader();
  return options;
}

}  // namespace synclint::testing
