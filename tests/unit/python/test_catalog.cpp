#include "test_catalog.h"

namespace synclint::python::test {

namespace {
std::string rule(const std::string& id, const std::string& name, const std::string& apis) {
  return "id = \"" + id + "\"\nname = \"" + name + "\"\nsummary = \"" + name +
         "\"\nlanguages = [\"python\"]\n" + (apis.empty() ? "" : "[apis.python]\n" + apis + "\n") +
         "[docs]\nwhat = \"w\"\nwhy = \"w\"\nexample = \"```python\\nx\\n```\"\nuse_instead = \"u\"\noptions = \"o\"\n";
}
}  // namespace

const Catalog& catalog() {
  static const Catalog c = Catalog::from_files({
      {"SYNC001.toml", rule("SYNC001", "tensor-item", "returns = \"host\"\nmethods = [\"item\"]")},
      {"SYNC002.toml", rule("SYNC002", "tensor-tolist", "returns = \"host\"\nmethods = [\"tolist\"]")},
      {"SYNC003.toml", rule("SYNC003", "device-to-host-copy",
                            "methods = [\"cpu\", \"numpy\", \"to\"]\nfunctions = [\"numpy.array\", \"numpy.asarray\"]")},
      {"SYNC004.toml", rule("SYNC004", "scalar-conversion",
                            "returns = \"host\"\nbuiltins = [\"float\", \"int\", \"bool\", \"round\"]\nfunctions = [\"math.isnan\", \"math.isclose\"]")},
      {"SYNC005.toml", rule("SYNC005", "tensor-formatting",
                            "builtins = [\"print\", \"str\"]\nfunctions = [\"logging.info\"]\nmethods = [\"format\", \"info\"]")},
      {"SYNC006.toml", rule("SYNC006", "branch-on-device-value", "")},
      {"SYNC007.toml", rule("SYNC007", "explicit-synchronize",
                            "functions = [\"torch.cuda.synchronize\"]\nmethods = [\"synchronize\"]")},
      {"SYNC008.toml", rule("SYNC008", "data-dependent-shape",
                            "methods = [\"nonzero\", \"repeat_interleave\"]\nfunctions = [\"torch.where\", "
                            "\"torch.nn.functional.one_hot\"]")},
      {"SYNC009.toml", rule("SYNC009", "syncing-library-call",
                            "functions = [\"torch.equal\", \"torch.nn.utils.clip_grad_norm_\"]\nmethods = [\"step\", "
                            "\"get_scale\"]")},
      {"SYNC010.toml", rule("SYNC010", "logger-sink", "functions = [\"wandb.log\"]\nmethods = [\"add_scalar\"]")},
      {"SYNC011.toml", rule("SYNC011", "blocking-host-to-device-copy",
                            "methods = [\"to\", \"cuda\"]\nfunctions = [\"torch.tensor\"]")},
      {"SYNC012.toml", rule("SYNC012", "unsynchronized-timing", "returns = \"timer\"\nfunctions = [\"time.time\", \"time.perf_counter\"]")},
  });
  return c;
}

Options options(bool report_cold) {
  Options o;
  o.catalog = &catalog();
  o.hot_functions = {"training_step", "validation_step", "forward", "compute_loss", "on_train_batch_end"};
  o.report_cold = report_cold;
  o.jobs = 1;
  return o;
}

FileResult analyze(const std::string& source, const Options& opts) {
  return analyze_files({{"train.py", source}}, opts).front();
}

std::vector<FileResult> analyze_files(const std::vector<SourceFile>& files, const Options& opts) {
  return analyze_project(files, opts);
}

std::vector<std::string> sites(const FileResult& r, const std::string& rule_id) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings)
    if (f.rule_id == rule_id) out.push_back(std::to_string(f.range.begin.line) + ":" + std::to_string(f.range.begin.column));
  return out;
}

const Finding* find(const FileResult& r, const std::string& rule_id, std::uint32_t line) {
  for (const Finding& f : r.findings)
    if (f.rule_id == rule_id && f.range.begin.line == line) return &f;
  return nullptr;
}

}  // namespace synclint::python::test
