// Parameter tensors of torch.nn layers (PyTorch 2.x constructor signatures).
#include "python/nn_layers.h"

#include <array>
#include <string>
#include <unordered_set>

namespace synclint::python {
namespace {

// A boolean argument: 1/0, or -1 when it is not a literal.
int flag(const LayerArgFn& arg, std::string_view keyword, int position, bool fallback) {
  LayerArg a = arg(keyword, position);
  switch (a.kind) {
    case LayerArg::Kind::Absent: return fallback ? 1 : 0;
    case LayerArg::Kind::Literal: return a.value != 0 ? 1 : 0;
    case LayerArg::Kind::Other: break;
  }
  return -1;
}

// A non-negative integer argument, or -1 when it is not a literal.
long integer(const LayerArgFn& arg, std::string_view keyword, int position, long fallback) {
  LayerArg a = arg(keyword, position);
  if (a.kind == LayerArg::Kind::Absent) return fallback;
  if (a.kind == LayerArg::Kind::Literal && a.value >= 0) return a.value;
  return -1;
}

// weight + optional bias.
int weight_and_bias(const LayerArgFn& arg, int bias_position) {
  const int bias = flag(arg, "bias", bias_position, true);
  return bias < 0 ? -1 : 1 + bias;
}

// weight and bias when `affine`, else none.
int affine_pair(const LayerArgFn& arg, std::string_view keyword, int position, bool fallback) {
  const int affine = flag(arg, keyword, position, fallback);
  return affine < 0 ? -1 : 2 * affine;
}

// RNN/LSTM/GRU: per layer and direction w_ih, w_hh and, with bias, b_ih, b_hh (LSTM with proj_size:
// also w_hr). Positions after (input_size, hidden_size, num_layers); nn.RNN has `nonlinearity` before
// `bias`.
int recurrent(const LayerArgFn& arg, bool rnn) {
  const int shift = rnn ? 1 : 0;
  const long layers = integer(arg, "num_layers", 2, 1);
  const int bias = flag(arg, "bias", 3 + shift, true);
  const int bidirectional = flag(arg, "bidirectional", 6 + shift, false);
  const long proj = rnn ? 0 : integer(arg, "proj_size", 7, 0);
  if (layers < 0 || bias < 0 || bidirectional < 0 || proj < 0) return -1;
  const long per = 2 + 2 * bias + (proj > 0 ? 1 : 0);
  return static_cast<int>(layers * (bidirectional ? 2 : 1) * per);
}

// MultiheadAttention: in_proj_weight (or q/k/v weights when kdim/vdim differ), in_proj_bias, out_proj,
// bias_k/bias_v.
int attention(const LayerArgFn& arg) {
  const int bias = flag(arg, "bias", 3, true);
  const int bias_kv = flag(arg, "add_bias_kv", 4, false);
  const LayerArg kdim = arg("kdim", 6), vdim = arg("vdim", 7);
  auto same_dim = [](const LayerArg& a) {
    return a.kind == LayerArg::Kind::Absent || (a.kind == LayerArg::Kind::Literal && a.value == 0);  // None
  };
  if (bias < 0 || bias_kv < 0 || !same_dim(kdim) || !same_dim(vdim)) return -1;
  return 1 + bias + 1 + bias + 2 * bias_kv;
}

// Transformer layers: attention blocks, two linear layers, layer norms; one `bias` for all of them.
int transformer(const LayerArgFn& arg, int attentions, int norms) {
  const int bias = flag(arg, "bias", 8, true);
  if (bias < 0) return -1;
  return attentions * (2 + 2 * bias) + 2 * (1 + bias) + norms * (1 + bias);
}

bool parameter_free(std::string_view layer) {
  static const std::unordered_set<std::string_view> kFree = {
      "ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
      "Softmax", "Softmax2d", "LogSoftmax", "Softmin", "Softplus", "Softsign", "Softshrink", "Hardshrink",
      "Tanhshrink", "Hardswish", "Hardsigmoid", "Hardtanh", "LogSigmoid", "Threshold", "GLU",
      "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
      "Identity", "Flatten", "Unflatten", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
      "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Fold", "Unfold", "LocalResponseNorm",
      "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d",
      "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
      "AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
      "MaxUnpool3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
      "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
      "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "CosineSimilarity",
      "PairwiseDistance", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
      "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "CTCLoss", "PoissonNLLLoss", "GaussianNLLLoss",
      "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "MultiLabelMarginLoss",
      "MultiLabelSoftMarginLoss", "MultiMarginLoss", "SoftMarginLoss", "TripletMarginLoss",
      "TripletMarginWithDistanceLoss"};
  return kFree.count(layer) > 0;
}

}  // namespace

int nn_layer_parameters(std::string_view layer, const LayerArgFn& arg) {
  if (parameter_free(layer)) return 0;
  if (layer == "Parameter" || layer == "Embedding" || layer == "EmbeddingBag" || layer == "PReLU") return 1;
  if (layer == "Linear") return weight_and_bias(arg, 2);
  if (layer == "Bilinear") return weight_and_bias(arg, 3);
  if (layer == "LazyLinear") return weight_and_bias(arg, 1);
  static constexpr std::array<std::string_view, 6> kConv = {"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                                                            "ConvTranspose2d", "ConvTranspose3d"};
  for (std::string_view c : kConv) {
    if (layer == c) return weight_and_bias(arg, 7);
    if (layer.size() == c.size() + 4 && layer.starts_with("Lazy") && layer.substr(4) == c)
      return weight_and_bias(arg, 6);
  }
  if (layer == "BatchNorm1d" || layer == "BatchNorm2d" || layer == "BatchNorm3d" || layer == "SyncBatchNorm")
    return affine_pair(arg, "affine", 3, true);
  if (layer == "LazyBatchNorm1d" || layer == "LazyBatchNorm2d" || layer == "LazyBatchNorm3d")
    return affine_pair(arg, "affine", 2, true);
  if (layer == "InstanceNorm1d" || layer == "InstanceNorm2d" || layer == "InstanceNorm3d")
    return affine_pair(arg, "affine", 3, false);
  if (layer == "GroupNorm") return affine_pair(arg, "affine", 3, true);
  if (layer == "LayerNorm") {
    const int affine = flag(arg, "elementwise_affine", 2, true), bias = flag(arg, "bias", 3, true);
    return affine < 0 || bias < 0 ? -1 : affine * (1 + bias);
  }
  if (layer == "RMSNorm") {
    const int affine = flag(arg, "elementwise_affine", 2, true);
    return affine;
  }
  if (layer == "LSTM" || layer == "GRU") return recurrent(arg, false);
  if (layer == "RNN") return recurrent(arg, true);
  if (layer == "MultiheadAttention") return attention(arg);
  if (layer == "TransformerEncoderLayer") return transformer(arg, 1, 2);
  if (layer == "TransformerDecoderLayer") return transformer(arg, 2, 3);
  return -1;
}

}  // namespace synclint::python
