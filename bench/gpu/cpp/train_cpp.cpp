// LibTorch twin of bench/gpu/cnn_bench.py: the same CNN (five conv+BN+ReLU layers, 22 parameter tensors,
// 64x64 synthetic images on the GPU, SGD with momentum, 10 classes) and the same four logging modes:
//   none     nothing
//   loss     loss.item<float>() every step                       one sync per step
//   norms    p.grad().norm().item<float>() for each parameter     22 syncs per step
//   batched  the 22 norms and the loss stacked into a GPU buffer, copied to the host every --interval steps
//   compute  reference: the batched mode's GPU work without the copy (no sync at all)
//   unread   reference: the norms mode without its reads (the 22 norms computed and kept, never read)
//
//   usage: train_cpp [--mode none|loss|norms|batched|compute|unread|all] [--batch N[,N...]] [--steps 300]
//                    [--warmup 50] [--reps 3] [--interval 50] [--order rotate|fixed] [--json out.json]
//
// Prints JSON with ms/step per (mode, batch, rep), in the same shape as cnn_bench.py. With several modes,
// each has its own model and the repetitions are interleaved (rep 0 of every mode, then rep 1, ...).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

const std::vector<std::string> kModes = {"none", "loss", "norms", "batched", "compute", "unread"};

struct Options {
  std::vector<std::string> modes = kModes;
  std::vector<int> batches = {16, 128};
  int steps = 300, warmup = 50, reps = 3, interval = 50;
  bool rotate = true;  // --order rotate|fixed: the modes' order within each repetition
  std::string json_path;
};

constexpr const char* kUsage =
    "usage: train_cpp [--mode none|loss|norms|batched|compute|unread|all] [--batch N[,N...]] [--steps N] [--warmup N] "
    "[--reps N] [--interval N] [--order rotate|fixed] [--json PATH]\n";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "train_cpp: %s\n%s", msg.c_str(), kUsage);
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

int to_int(const std::string& flag, const std::string& v, int min) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < min || n > 1000000)
    usage_error(flag + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return static_cast<int>(n);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error("missing value after " + a);
    std::string v = argv[++i];
    if (a == "--mode") {
      o.modes = v == "all" ? kModes : split(v);
      for (const auto& m : o.modes)
        if (std::find(kModes.begin(), kModes.end(), m) == kModes.end()) usage_error("unknown mode '" + m + "'");
      if (o.modes.empty()) usage_error("--mode is empty");
    } else if (a == "--batch") {
      o.batches.clear();
      for (const auto& b : split(v)) o.batches.push_back(to_int("--batch", b, 1));
      if (o.batches.empty()) usage_error("--batch is empty");
    } else if (a == "--steps") {
      o.steps = to_int(a, v, 1);
    } else if (a == "--warmup") {
      o.warmup = to_int(a, v, 0);
    } else if (a == "--reps") {
      o.reps = to_int(a, v, 1);
    } else if (a == "--interval") {
      o.interval = to_int(a, v, 1);
    } else if (a == "--order") {
      if (v != "rotate" && v != "fixed") usage_error("--order is rotate or fixed, got '" + v + "'");
      o.rotate = v == "rotate";
    } else if (a == "--json") {
      o.json_path = v;
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  return o;
}

torch::nn::Sequential build_model() {
  const int chans[] = {3, 32, 64, 128, 256, 256};
  torch::nn::Sequential net;
  for (int i = 0; i < 5; ++i) {
    net->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(chans[i], chans[i + 1], 3).padding(1)));
    net->push_back(torch::nn::BatchNorm2d(chans[i + 1]));
    net->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
    if (i < 4) net->push_back(torch::nn::MaxPool2d(2));
  }
  net->push_back(torch::nn::AdaptiveAvgPool2d(1));
  net->push_back(torch::nn::Flatten());
  net->push_back(torch::nn::Linear(chans[5], 10));
  return net;
}

// The logging functions are separate (and named log_*) so the probe's sites for them can be told apart
// from the harness's own synchronizations.
__attribute__((noinline)) void log_loss(const torch::Tensor& loss, std::vector<float>& sink) {
  sink.push_back(loss.item<float>());
}

__attribute__((noinline)) void log_norms(torch::nn::Sequential& model, std::vector<float>& sink) {
  for (auto& p : model->parameters()) sink.push_back(p.grad().norm().item<float>());
}

// The norms mode without its reads: the same 22 norms, kept until the next step instead of read.
__attribute__((noinline)) void keep_norms(torch::nn::Sequential& model, std::vector<torch::Tensor>& kept) {
  kept.clear();
  for (auto& p : model->parameters()) kept.push_back(p.grad().norm());
}

__attribute__((noinline)) void stats_on_gpu(torch::nn::Sequential& model, const torch::Tensor& loss,
                                            torch::Tensor& buf, long step, int interval) {
  std::vector<torch::Tensor> stats;
  for (auto& p : model->parameters()) stats.push_back(p.grad().norm());
  stats.push_back(loss.detach());
  buf[step % interval].copy_(torch::stack(stats));
}

__attribute__((noinline)) void log_batched(torch::nn::Sequential& model, const torch::Tensor& loss,
                                           torch::Tensor& buf, long step, int interval,
                                           std::vector<float>& sink) {
  stats_on_gpu(model, loss, buf, step, interval);
  if (step % interval == interval - 1) {
    torch::Tensor host = buf.cpu();
    sink.push_back(host[0][0].item<float>());
  }
}

struct Result {
  std::string mode;
  int batch, rep;
  double ms;
};

// One (mode, batch) training setup: its own model, optimizer, data and step counter.
class Config {
 public:
  Config(std::string mode, int batch, const Options& o)
      : mode_(std::move(mode)), interval_(o.interval), model_(make_model()),
        opt_(model_->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9)) {
    const auto opts = torch::TensorOptions().device(torch::kCUDA);
    images_ = torch::randn({kBatches, batch, 3, 64, 64}, opts);
    labels_ = torch::randint(0, 10, {kBatches, batch}, opts.dtype(torch::kLong));
    buf_ = torch::zeros({interval_, static_cast<long>(model_->parameters().size()) + 1}, opts);
  }

  void train_step() {
    const long i = step_ % kBatches;
    auto out = model_->forward(images_[i]);
    auto loss = torch::nn::functional::cross_entropy(out, labels_[i]);
    opt_.zero_grad();
    loss.backward();
    opt_.step();
    if (mode_ == "loss")
      log_loss(loss, sink_);
    else if (mode_ == "norms")
      log_norms(model_, sink_);
    else if (mode_ == "batched")
      log_batched(model_, loss, buf_, step_, interval_, sink_);
    else if (mode_ == "compute")
      stats_on_gpu(model_, loss, buf_, step_, interval_);
    else if (mode_ == "unread")
      keep_norms(model_, kept_);
    ++step_;
    if (sink_.size() > 10000) sink_.clear();
  }

  // ms/step over `steps` steps, the GPU drained before both clock reads.
  double timed(int steps) {
    torch::cuda::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) train_step();
    torch::cuda::synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count() / steps;
  }

  const std::string& mode() const { return mode_; }
  long steps_run() const { return step_; }

 private:
  static constexpr int kBatches = 4;  // a few distinct batches, all resident on the GPU

  static torch::nn::Sequential make_model() {
    torch::manual_seed(0);
    auto model = build_model();
    model->to(torch::kCUDA);
    if (const auto n = model->parameters().size(); n != 22) {
      std::fprintf(stderr, "train_cpp: expected 22 parameter tensors, got %zu\n", n);
      std::exit(1);
    }
    return model;
  }

  std::string mode_;
  int interval_;
  torch::nn::Sequential model_;
  torch::optim::SGD opt_;
  torch::Tensor images_, labels_, buf_;
  std::vector<float> sink_;
  std::vector<torch::Tensor> kept_;
  long step_ = 0;
};

// All modes of one batch size, the repetitions interleaved (rep 0 of every mode, then rep 1...) so that
// slow drifts of the machine spread over all modes instead of favouring one. With --order rotate (the
// default) rep k starts with the k-th mode, so each mode follows each other one equally often.
void run_batch(int batch, const Options& o, std::vector<Result>& results, std::map<std::string, long>& total_steps) {
  std::vector<std::unique_ptr<Config>> configs;
  for (const auto& mode : o.modes) configs.push_back(std::make_unique<Config>(mode, batch, o));
  for (auto& c : configs)
    for (int s = 0; s < o.warmup; ++s) c->train_step();
  for (int rep = 0; rep < o.reps; ++rep)
    for (size_t i = 0; i < configs.size(); ++i) {
      auto& c = configs[(i + (o.rotate ? rep : 0)) % configs.size()];
      const double ms = c->timed(o.steps);
      results.push_back({c->mode(), batch, rep, ms});
      std::fprintf(stderr, "cpp mode=%-8s batch=%-4d rep=%d  %.3f ms/step\n", c->mode().c_str(), batch, rep, ms);
    }
  for (auto& c : configs) total_steps[c->mode() + "/" + std::to_string(batch)] = c->steps_run();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "train_cpp: no CUDA device is available\n");
    return 1;
  }
  std::vector<Result> results;
  std::map<std::string, long> total_steps;
  std::map<std::string, std::vector<double>> per_config;
  for (int batch : o.batches) run_batch(batch, o, results, total_steps);
  for (const auto& r : results) per_config[r.mode + "/" + std::to_string(r.batch)].push_back(r.ms);

  std::ostringstream js;
  js << "{\n \"bench\": \"train_cpp\",\n \"lang\": \"cpp\",\n \"pid\": " << getpid() << ",\n \"config\": {\"steps\": "
     << o.steps << ", \"warmup\": " << o.warmup << ", \"reps\": " << o.reps << ", \"interval\": " << o.interval
     << ", \"order\": \"" << (o.rotate ? "rotate" : "fixed") << "\""
     << "},\n \"total_steps\": {";
  bool first = true;
  for (const auto& [k, v] : total_steps) {
    js << (first ? "" : ", ") << "\"" << k << "\": " << v;
    first = false;
  }
  js << "},\n \"results\": [";
  first = true;
  char num[64];
  for (const auto& r : results) {
    std::snprintf(num, sizeof num, "%.6f", r.ms);
    js << (first ? "\n" : ",\n") << "  {\"lang\": \"cpp\", \"mode\": \"" << r.mode << "\", \"batch\": " << r.batch
       << ", \"rep\": " << r.rep << ", \"ms_per_step\": " << num << "}";
    first = false;
  }
  js << "\n ],\n \"median_ms_per_step\": {";
  first = true;
  for (const auto& [k, v] : per_config) {
    std::snprintf(num, sizeof num, "%.6f", median(v));
    js << (first ? "" : ", ") << "\"" << k << "\": " << num;
    first = false;
  }
  js << "}\n}\n";
  std::cout << js.str();
  if (!o.json_path.empty()) {
    std::ofstream f(o.json_path);
    if (!f) {
      std::fprintf(stderr, "train_cpp: cannot write %s\n", o.json_path.c_str());
      return 1;
    }
    f << js.str();
  }
  return 0;
}
