#include <gtest/gtest.h>

#include "emit/emit.h"

namespace synclint::emit {
namespace {

TEST(Format, NamesRoundTrip) {
  ASSERT_EQ(all_formats().size(), 5u);
  for (Format f : all_formats()) EXPECT_EQ(parse_format(to_string(f)), f);
  EXPECT_EQ(parse_format("sarif"), Format::Sarif);
  EXPECT_EQ(parse_format("github"), Format::Github);
}

TEST(Format, RejectsUnknownNames) {
  EXPECT_FALSE(parse_format(""));
  EXPECT_FALSE(parse_format("SARIF"));
  EXPECT_FALSE(parse_format("xml"));
  EXPECT_FALSE(parse_format("json "));
}

TEST(Format, DefaultInformationUriIsAnAbsoluteDirectoryUri) {
  const std::string uri = default_information_uri();
  ASSERT_FALSE(uri.empty()) << "this test runs inside the source tree, whose docs/ exists";
  EXPECT_TRUE(uri.starts_with("file:///")) << uri;
  EXPECT_TRUE(uri.ends_with("/")) << uri;
}

}  // namespace
}  // namespace synclint::emit
