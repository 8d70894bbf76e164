#include "site_filter.h"

namespace synclint::probe::inject {

bool SkipList::matches(std::string_view path) const {
  for (const auto& s : subs_)
    if (!s.empty() && path.find(s) != std::string_view::npos) return true;
  return false;
}

std::vector<std::string> split_list(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto pos = s.find(sep);
    auto item = s.substr(0, pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

SiteFilters make_site_filters(const char* env_value) {
  std::vector<std::string> python = {"/torch/", "/site-packages/", "/dist-packages/", "/lib/python3", "<frozen"};
  std::vector<std::string> modules = {
      "libcudart", "libtorch", "libc10", "libcupti", "libcuda.", "libsynclint_probe", "/libc.so", "/libc-",
      "libstdc++", "libgcc_s", "libpthread", "ld-linux", "libcublas", "libcudnn", "libnccl", "libnvrtc",
      "libnvJitLink", "libcufft", "libcurand", "libcusparse", "libcusolver", "libgomp", "libpython",
      "libnvToolsExt", "libnvshmem", "libcaffe2"};
  std::vector<std::string> files = {"/torch/include/", "/torch/csrc/", "/c10/", "/ATen/", "/usr/include/",
                                    "/bits/", "/c++/"};
  if (env_value != nullptr && *env_value != '\0') {
    std::string_view v(env_value);
    bool extend = v.front() == '+';
    if (extend) v.remove_prefix(1);
    auto extra = split_list(v);
    if (!extend) python.clear();
    for (const auto& e : extra) {
      python.push_back(e);
      modules.push_back(e);
      files.push_back(e);
    }
  }
  return {SkipList(std::move(python)), SkipList(std::move(modules)), SkipList(std::move(files))};
}

}  // namespace synclint::probe::inject
