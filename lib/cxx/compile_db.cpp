#include "cxx/compile_db.h"

#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "core/json_reader.h"
#include "cxx/database_search.h"

namespace synclint::cxx {
namespace fs = std::filesystem;

struct CommandSource::Database {
  fs::path json;   // compile_commands.json
  std::string shown;  // as said in messages
  std::unique_ptr<clang::tooling::CompilationDatabase> commands;  // listed files, others inferred
  std::set<fs::path> files;                                       // listed files, absolute and normal
};

namespace {

std::string shown_path(const fs::path& p) {
  std::error_code ec;
  const fs::path rel = fs::relative(p, fs::current_path(ec), ec);
  if (!ec && !rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return p.generic_string();
}

bool is_blank_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
  return true;
}

}  // namespace

CommandSource::CommandSource(std::optional<fs::path> build_path, std::optional<std::vector<std::string>> fixed_args)
    : fixed_args_(std::move(fixed_args)) {
  if (fixed_args_ || !build_path) return;
  std::error_code ec;
  const fs::path json = fs::absolute(*build_path, ec).lexically_normal() / "compile_commands.json";
  if (!fs::is_regular_file(json, ec))
    throw DatabaseError(shown_path(json) + ": no such file (-p names the folder holding compile_commands.json)");
  fixed_database_ = load(json);
}

CommandSource::~CommandSource() = default;

CommandSource::Database* CommandSource::load(const fs::path& json) {
  if (auto it = loaded_.find(json); it != loaded_.end()) return it->second.get();
  auto db = std::make_unique<Database>();
  db->json = json;
  db->shown = shown_path(json);
  if (is_blank_file(json)) throw DatabaseError(db->shown + ": empty compilation database (no JSON in it)");
  // Checked here first, for a message with the place of the mistake (and none from the YAML reader).
  // A relative "directory" is taken relative to the database's folder (so a database can be checked in).
  std::string text = "[";
  try {
    std::ifstream in(json, std::ios::binary);
    json_reader::Options options;
    options.streamed = {""};  // the entries one at a time: never a tree of the whole database
    options.on_element = [&](const std::string&, std::size_t i, nlohmann::json&& entry) {
      if (entry.is_object() && entry.contains("directory") && entry["directory"].is_string()) {
        const fs::path dir(entry["directory"].get<std::string>());
        if (dir.is_relative()) entry["directory"] = (json.parent_path() / dir).lexically_normal().string();
      }
      text += (i == 0 ? "" : ",") + entry.dump();
    };
    if (!json_reader::parse(in, options).is_array())
      throw DatabaseError(db->shown + ": malformed compilation database: not a JSON array");
  } catch (const json_reader::Error& e) {
    throw DatabaseError(db->shown + ": malformed compilation database: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw DatabaseError(db->shown + ": malformed compilation database: " + e.what());
  }
  text += "]";
  std::string error;
  std::unique_ptr<clang::tooling::JSONCompilationDatabase> loaded = clang::tooling::JSONCompilationDatabase::loadFromBuffer(
      text, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  std::string().swap(text);  // the database keeps its own copy
  if (!loaded) throw DatabaseError(db->shown + ": malformed compilation database: " + error);
  for (const std::string& f : loaded->getAllFiles()) db->files.insert(fs::path(f).lexically_normal());
  if (db->files.empty()) throw DatabaseError(db->shown + ": the compilation database lists no files");
  db->commands = clang::tooling::inferMissingCompileCommands(std::move(loaded));
  Database* raw = db.get();
  loaded_.emplace(json, std::move(db));
  return raw;
}

CommandSource::Database* CommandSource::database_for(const fs::path& file) {
  if (fixed_database_ != nullptr) return fixed_database_;
  const std::optional<fs::path> json = nearest_database(file, json_by_dir_);
  return json ? load(*json) : nullptr;
}

bool CommandSource::lists(const fs::path& file) {
  if (fixed_args_) return true;
  try {
    Database* db = database_for(file);
    return db != nullptr && db->files.count(file) != 0;
  } catch (const DatabaseError&) {
    return true;  // command_for says what is wrong with it
  }
}

std::optional<CompileCommand> CommandSource::command_for(const fs::path& file) {
  if (fixed_args_) {
    CompileCommand c;
    std::error_code ec;
    c.directory = fs::current_path(ec);
    c.argv.emplace_back("clang++");
    c.argv.insert(c.argv.end(), fixed_args_->begin(), fixed_args_->end());
    c.argv.push_back(file.string());
    c.source = "the flags after --";
    return c;
  }
  Database* db = database_for(file);
  if (db == nullptr) return std::nullopt;
  std::vector<clang::tooling::CompileCommand> found = db->commands->getCompileCommands(file.string());
  if (found.empty() || found.front().CommandLine.empty()) return std::nullopt;
  CompileCommand c;
  c.directory = found.front().Directory;
  c.argv = std::move(found.front().CommandLine);
  c.source = db->shown;
  if (db->files.count(file) == 0)
    c.note = "not listed in " + db->shown + "; flags taken from a listed file in the nearest folder";
  return c;
}

}  // namespace synclint::cxx
