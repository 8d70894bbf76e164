// Parameter tensors of torch.nn layers from their constructor arguments (the counts PyTorch 2.x gives
// for len(list(layer.parameters()))).
#include "python/nn_layers.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace synclint::python {
namespace {

LayerArg lit(long v) { return {LayerArg::Kind::Literal, v}; }
LayerArg other() { return {LayerArg::Kind::Other, 0}; }

// Count for a call written with these positional and keyword arguments.
int count(std::string_view layer, std::vector<LayerArg> positional = {},
          std::map<std::string, LayerArg, std::less<>> keywords = {}) {
  return nn_layer_parameters(layer, [&](std::string_view kw, int pos) {
    if (auto it = keywords.find(kw); it != keywords.end()) return it->second;
    if (pos >= 0 && static_cast<std::size_t>(pos) < positional.size()) return positional[pos];
    return LayerArg{};
  });
}

TEST(NnLayers, ConvolutionsAndLinearHaveWeightAndOptionalBias) {
  EXPECT_EQ(count("Conv2d", {lit(3), lit(32), lit(3)}, {{"padding", lit(1)}}), 2);
  EXPECT_EQ(count("Conv2d", {lit(3), lit(32), lit(3)}, {{"bias", lit(0)}}), 1);
  EXPECT_EQ(count("Conv1d", {lit(3), lit(32), lit(3), lit(1), lit(0), lit(1), lit(1), lit(0)}), 1);
  EXPECT_EQ(count("ConvTranspose2d", {lit(3), lit(32), lit(3)}), 2);
  EXPECT_EQ(count("LazyConv2d", {lit(32), lit(3)}, {{"bias", lit(0)}}), 1);
  EXPECT_EQ(count("Linear", {lit(256), lit(10)}), 2);
  EXPECT_EQ(count("Linear", {lit(256), lit(10), lit(0)}), 1);
  EXPECT_EQ(count("Linear", {lit(256), lit(10)}, {{"bias", other()}}), -1);
  EXPECT_EQ(count("Bilinear", {lit(2), lit(3), lit(4)}), 2);
}

TEST(NnLayers, NormalisationLayersFollowTheirAffineDefaults) {
  EXPECT_EQ(count("BatchNorm2d", {lit(32)}), 2);
  EXPECT_EQ(count("BatchNorm2d", {lit(32)}, {{"affine", lit(0)}}), 0);
  EXPECT_EQ(count("InstanceNorm2d", {lit(32)}), 0);  // affine=False by default
  EXPECT_EQ(count("InstanceNorm2d", {lit(32)}, {{"affine", lit(1)}}), 2);
  EXPECT_EQ(count("GroupNorm", {lit(4), lit(32)}), 2);
  EXPECT_EQ(count("LayerNorm", {lit(10)}), 2);
  EXPECT_EQ(count("LayerNorm", {lit(10)}, {{"bias", lit(0)}}), 1);
  EXPECT_EQ(count("LayerNorm", {lit(10)}, {{"elementwise_affine", lit(0)}}), 0);
  EXPECT_EQ(count("RMSNorm", {lit(10)}), 1);
}

TEST(NnLayers, RecurrentLayersCountPerLayerAndDirection) {
  EXPECT_EQ(count("LSTM", {lit(10), lit(20)}), 4);
  EXPECT_EQ(count("LSTM", {lit(10), lit(20), lit(2)}), 8);
  EXPECT_EQ(count("LSTM", {lit(10), lit(20), lit(2)}, {{"bidirectional", lit(1)}}), 16);
  EXPECT_EQ(count("LSTM", {lit(10), lit(20)}, {{"proj_size", lit(5)}}), 5);
  EXPECT_EQ(count("GRU", {lit(10), lit(20)}, {{"bias", lit(0)}}), 2);
  EXPECT_EQ(count("RNN", {lit(10), lit(20), lit(2), other(), lit(0)}), 4);  // nonlinearity before bias
  EXPECT_EQ(count("LSTM", {lit(10), lit(20)}, {{"num_layers", other()}}), -1);
}

TEST(NnLayers, AttentionAndTransformerLayers) {
  EXPECT_EQ(count("MultiheadAttention", {lit(64), lit(8)}), 4);
  EXPECT_EQ(count("MultiheadAttention", {lit(64), lit(8)}, {{"bias", lit(0)}}), 2);
  EXPECT_EQ(count("MultiheadAttention", {lit(64), lit(8)}, {{"add_bias_kv", lit(1)}}), 6);
  EXPECT_EQ(count("MultiheadAttention", {lit(64), lit(8)}, {{"kdim", lit(32)}}), -1);
  EXPECT_EQ(count("TransformerEncoderLayer", {lit(512), lit(8)}), 12);
  EXPECT_EQ(count("TransformerEncoderLayer", {lit(512), lit(8)}, {{"bias", lit(0)}}), 6);
  EXPECT_EQ(count("TransformerDecoderLayer", {lit(512), lit(8)}), 18);
}

TEST(NnLayers, LayersWithoutParametersAndUnknownOnes) {
  for (std::string_view layer : {"ReLU", "MaxPool2d", "AdaptiveAvgPool2d", "Flatten", "Dropout", "Identity",
                                 "CrossEntropyLoss", "GELU"})
    EXPECT_EQ(count(layer), 0) << layer;
  EXPECT_EQ(count("Embedding", {lit(100), lit(16)}), 1);
  EXPECT_EQ(count("Parameter", {other()}), 1);
  EXPECT_EQ(count("Sequential"), -1);  // the sum of its items: the caller's business
  EXPECT_EQ(count("MyCustomBlock"), -1);
}

}  // namespace
}  // namespace synclint::python
