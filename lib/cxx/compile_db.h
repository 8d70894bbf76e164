// Where a translation unit's compile command comes from, as in clang-tidy: a compilation database (`-p
// BUILD_DIR`, or compile_commands.json in the file's parent folders or their build/), or fixed flags after
// `--`. Databases are loaded once; a file a database does not list gets the command of its nearest listed
// neighbour (said in a note).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace synclint::cxx {

// A database that cannot be used (missing, empty, malformed): the message names the file.
class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompileCommand {
  std::filesystem::path directory;  // working directory of the command
  std::vector<std::string> argv;    // argv[0] names the compiler (never run), the file included
  std::string source;               // "build/compile_commands.json" or "the flags after --"
  std::optional<std::string> note;  // e.g. the file is not in the database: flags inferred
};

class CommandSource {
 public:
  // -p: that folder's compile_commands.json (throws DatabaseError); fixed: flags after `--`; neither:
  // found per file.
  CommandSource(std::optional<std::filesystem::path> build_path,
                std::optional<std::vector<std::string>> fixed_args);
  ~CommandSource();
  CommandSource(const CommandSource&) = delete;
  CommandSource& operator=(const CommandSource&) = delete;

  // The command for an absolute, normal path. Throws DatabaseError for a database found but unusable;
  // nullopt when no database applies to the file (no -p, no `--`, none found above it).
  std::optional<CompileCommand> command_for(const std::filesystem::path& file);
  // Whether a database lists the file (`--` lists every file). Folders given to `check` take only those.
  bool lists(const std::filesystem::path& file);

 private:
  struct Database;
  Database* database_for(const std::filesystem::path& file);
  Database* load(const std::filesystem::path& json);

  std::optional<std::vector<std::string>> fixed_args_;
  Database* fixed_database_ = nullptr;  // -p
  std::map<std::filesystem::path, std::unique_ptr<Database>> loaded_;  // by compile_commands.json
  std::map<std::filesystem::path, std::optional<std::filesystem::path>> json_by_dir_;  // lookup cache
};

}  // namespace synclint::cxx
