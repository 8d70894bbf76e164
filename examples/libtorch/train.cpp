// A small CNN trained on synthetic 64x64 images, with four ways of logging training statistics: the
// LibTorch twin of examples/cnn_logging/train.py.
//
//   ./train [none|loss|norms|batched] [batch=16] [steps=300] [log_every=50]
//
//   none     no statistics at all
//   loss     the loss read as a host number every step (one host-device synchronization per step)
//   norms    the gradient norm of each of the 22 parameter tensors read as a host number every step
//            (22 synchronizations per step)
//   batched  the same statistics stacked on the GPU and copied to the host once every log_every steps
//
// Prints the mean time per step. Runs on the GPU when there is one, on the CPU otherwise.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

// Five convolution + batch-norm blocks and a linear head: 22 parameter tensors.
struct SmallCNNImpl : torch::nn::Module {
  explicit SmallCNNImpl(int64_t num_classes = 10) {
    const std::vector<int64_t> channels = {3, 32, 64, 64, 128, 128};
    for (size_t i = 0; i + 1 < channels.size(); ++i) {
      blocks.push_back(register_module(
          "block" + std::to_string(i),
          torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(channels[i], channels[i + 1], 3).padding(1)),
                                torch::nn::BatchNorm2d(channels[i + 1]), torch::nn::ReLU())));
    }
    head = register_module("head", torch::nn::Linear(channels.back(), num_classes));
  }

  torch::Tensor forward(torch::Tensor x) {
    for (auto& block : blocks) x = torch::max_pool2d(block->forward(x), 2);
    return head->forward(x.mean({2, 3}));
  }

  std::vector<torch::nn::Sequential> blocks;
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(SmallCNN);

int main(int argc, char** argv) {
  const std::string log = argc > 1 ? argv[1] : "none";
  const int64_t batch = argc > 2 ? std::atoll(argv[2]) : 16;
  const int64_t steps = argc > 3 ? std::atoll(argv[3]) : 300;
  const int64_t log_every = argc > 4 ? std::atoll(argv[4]) : 50;
  const int64_t warmup = 20;
  if (log != "none" && log != "loss" && log != "norms" && log != "batched") {
    std::fprintf(stderr, "usage: %s [none|loss|norms|batched] [batch] [steps] [log_every]\n", argv[0]);
    return 2;
  }
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::manual_seed(0);

  SmallCNN model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  // A few synthetic batches, made on the device once, so the loop measures training and logging only.
  auto images = torch::randn({8, batch, 3, 64, 64}, device);
  auto labels = torch::randint(0, 10, {8, batch}, torch::TensorOptions().dtype(torch::kLong).device(device));

  const auto n_params = static_cast<int64_t>(model->parameters().size());
  std::vector<float> history;
  std::vector<std::map<std::string, float>> norm_history;
  // The statistics of the steps since the last copy: the loss and one gradient norm per parameter.
  auto stats = torch::zeros({log_every, 1 + n_params}, device);
  auto start = std::chrono::steady_clock::now();
  for (int64_t step = 0; step < warmup + steps; ++step) {
    if (step == warmup) {
      // Start the clock once the warm-up work queued on the GPU has finished.
      if (device.is_cuda()) torch::cuda::synchronize();  // synclint: ignore[SYNC007]
      start = std::chrono::steady_clock::now();
    }

    auto x = images[step % 8];
    auto y = labels[step % 8];
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();

    if (log == "loss") {
      history.push_back(loss.item<float>());
    } else if (log == "norms") {
      std::map<std::string, float> norms;
      for (const auto& param : model->named_parameters()) {
        norms[param.key()] = param.value().grad().norm().item<float>();
      }
      norm_history.push_back(std::move(norms));
    } else if (log == "batched") {
      const int64_t row = step % log_every;
      stats[row][0] = loss.detach();
      std::vector<torch::Tensor> norms;
      for (const auto& param : model->parameters()) norms.push_back(param.grad().norm());
      stats[row].slice(0, 1) = torch::stack(norms);
      if ((step + 1) % log_every == 0) {
        auto host = stats.to(torch::kCPU);
        auto rows = host.accessor<float, 2>();
        for (int64_t r = 0; r < rows.size(0); ++r) history.push_back(rows[r][0]);
      }
    }
  }

  if (device.is_cuda()) torch::cuda::synchronize();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("device=%s batch=%lld log=%s parameter_tensors=%lld steps=%lld: %.2f ms/step (%zu records)\n",
              device.is_cuda() ? "cuda" : "cpu", static_cast<long long>(batch), log.c_str(),
              static_cast<long long>(n_params), static_cast<long long>(steps), 1000 * elapsed / steps,
              history.size() + norm_history.size());
  return 0;
}
