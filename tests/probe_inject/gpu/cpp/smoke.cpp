// Known sync sites for the probe's C++ attribution: each line marked SITE must appear in the report.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <vector>

__attribute__((noinline)) float read_loss(const torch::Tensor& loss) {
  return loss.item<float>();  // SITE read_loss
}

__attribute__((noinline)) double grad_norms(torch::nn::Sequential& model) {
  double total = 0;
  for (auto& p : model->parameters()) total += p.grad().norm().item<double>();  // SITE grad_norms
  return total;
}

int main() {
  torch::Device dev(torch::kCUDA);
  torch::nn::Sequential model(torch::nn::Linear(256, 256), torch::nn::ReLU(), torch::nn::Linear(256, 10));
  model->to(dev);
  torch::optim::SGD opt(model->parameters(), 0.01);
  auto data = torch::randn({64, 256}).to(dev);
  auto target = torch::randint(0, 10, {64}, torch::TensorOptions().dtype(torch::kLong)).to(dev);
  float last = 0;
  for (int step = 0; step < 50; ++step) {
    auto loss = torch::nn::functional::cross_entropy(model->forward(data), target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    last = read_loss(loss);
    if (step % 5 == 0) grad_norms(model);
    if (step % 10 == 0) torch::cuda::synchronize();  // SITE synchronize
  }
  auto t = torch::ones({1}, torch::TensorOptions().device(dev));
  const int reads = 5000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reads; ++i) t.item<float>();  // SITE timed reads
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reads;
  std::printf("smoke_cpp: loss %.4f, %d scalar reads, %.2f us per item()\n", last, reads, us);
  return 0;
}
