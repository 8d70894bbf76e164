// A scratch folder for one test, removed afterwards.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace synclint::testing {

class TempTree {
 public:
  TempTree() {
    std::string templ = (std::filesystem::temp_directory_path() / "synclint-engine-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    root_ = templ;
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::permissions(root_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path(std::string_view rel) const { return root_ / rel; }

  std::filesystem::path write(std::string_view rel, std::string_view text) const {
    const auto p = path(rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::filesystem::path mkdir(std::string_view rel) const {
    const auto p = path(rel);
    std::filesystem::create_directories(p);
    return p;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace synclint::testing
