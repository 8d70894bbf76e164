// The parse-only floor for the corpus benchmark: reads the same files and parses them with the same
// tree-sitter build as synclint (synclint_tree_sitter_python), on N threads, and does nothing else.
// usage: synclint-parse-only [-j N] PATH...   (folders: every *.py below them)
#include <tree_sitter/api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  unsigned jobs = 1;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-j" && i + 1 < argc) {
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else if (fs::is_directory(arg)) {
      for (const auto& e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [-j N] PATH...\n", argv[0]);
    return 2;
  }

  std::atomic<std::size_t> next{0}, bytes{0}, with_errors{0};
  auto worker = [&] {
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
      std::ifstream in(files[i], std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      if (tree && ts_node_has_error(ts_tree_root_node(tree))) ++with_errors;
      ts_tree_delete(tree);
      bytes += text.size();
    }
    ts_parser_delete(parser);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, files.size()); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  std::printf("parsed %zu files, %zu bytes, %zu with syntax errors\n", files.size(), bytes.load(),
              with_errors.load());
  return 0;
}
