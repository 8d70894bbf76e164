#include "engine/discover.h"

#include <linux/magic.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/vfs.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "engine/gitignore.h"

namespace synclint::engine {
namespace fs = std::filesystem;

std::optional<Language> language_of(const fs::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".py") return Language::Python;
  static constexpr std::array<std::string_view, 7> kCxx = {".cpp", ".cc", ".cxx", ".cu", ".h", ".hpp", ".hh"};
  if (std::find(kCxx.begin(), kCxx.end(), ext) != kCxx.end()) return Language::Cxx;
  return std::nullopt;
}

bool frontend_available(Language lang) { return lang == Language::Python || (SYNCLINT_HAVE_CXX && lang == Language::Cxx); }

bool is_skipped_dir_name(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kSkipped = {
      ".git",          ".hg",         ".svn",        ".bzr",          ".venv",   "venv",    "build",
      "dist",          "__pycache__", "node_modules", ".tox",         ".nox",    ".mypy_cache",
      ".pytest_cache", ".ruff_cache", "site-packages", "__pypackages__", ".eggs", ".ipynb_checkpoints",
      ".direnv"};
  return std::find(kSkipped.begin(), kSkipped.end(), name) != kSkipped.end();
}

bool is_virtualenv(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec) || fs::exists(dir / "bin" / "activate", ec);
}

namespace {

using FileId = std::pair<dev_t, ino_t>;

// A folder on a kernel file system (/proc, /sys and the like): reached through a link, it leads to every
// process's working folder and root, and to files that never end.
bool on_kernel_file_system(const fs::path& dir) {
  struct statfs fs_info{};
  if (::statfs(dir.c_str(), &fs_info) != 0) return false;
  static constexpr std::array<unsigned long, 11> kKernel = {
      PROC_SUPER_MAGIC, SYSFS_MAGIC,    DEVPTS_SUPER_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, CGROUP_SUPER_MAGIC,
      CGROUP2_SUPER_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC};
  return std::find(kKernel.begin(), kKernel.end(), static_cast<unsigned long>(fs_info.f_type)) != kKernel.end();
}

std::string display_of(const fs::path& p) {
  std::string s = p.lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s.empty() ? "." : s;
}

class Walker {
 public:
  Walker(Discovery& out, const ExcludeFn& excluded) : out_(out), excluded_(excluded) {}

  void add_named(const std::string& arg) {
    const fs::path path(arg);
    struct stat link_st{}, st{};
    if (::lstat(path.c_str(), &link_st) != 0) {
      error(display_of(path), std::string("no such file or directory") + errno_suffix(errno), true);
      return;
    }
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      if (S_ISLNK(link_st.st_mode) && err == ELOOP)
        error(display_of(path), "symbolic link loop", true);
      else if (S_ISLNK(link_st.st_mode) && err == ENOENT)
        error(display_of(path), "dangling symbolic link (its target does not exist)", true);
      else
        error(display_of(path), std::string("cannot access") + errno_suffix(err), true);
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      std::error_code ec;
      fs::path abs = fs::absolute(path, ec).lexically_normal();
      note_folders_above(path);
      IgnoreStack ignores;
      ignores.push_parents(abs);
      ignores_ = &ignores;
      walk(path, abs, st);
      ignores_ = nullptr;
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      error(display_of(path), "not a regular file (a FIFO, socket or device); skipped", true);
      return;
    }
    // A named file is always checked; its language comes from the extension, Python by default.
    add_file(path, display_of(path), language_of(path).value_or(Language::Python), true, st);
  }

 private:
  static std::string errno_suffix(int err) { return std::string(" (") + std::strerror(err) + ")"; }

  void error(std::string path, std::string message, bool fatal) {
    out_.errors.push_back(FileError{std::move(path), std::move(message), fatal, std::nullopt});
  }

  // The named folder's real location and every folder above it: a link to one of them (to "/", to "..")
  // would walk the folder again from higher up, or the whole machine.
  void note_folders_above(const fs::path& path) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) return;
    for (fs::path p = real;; p = p.parent_path()) {
      struct stat st{};
      if (::stat(p.c_str(), &st) == 0) above_.insert({st.st_dev, st.st_ino});
      if (p == p.root_path() || !p.has_parent_path() || p.parent_path() == p) break;
    }
  }

  void add_file(const fs::path& open_path, std::string display, Language lang, bool named,
                const struct stat& st) {
    if (!files_.insert({st.st_dev, st.st_ino}).second) return;  // the same file reached twice
    out_.files.push_back(Candidate{std::move(display), open_path, lang, named});
  }

  // `path`: as reached from the named path; `abs`: absolute, lexically normal.
  void walk(const fs::path& path, const fs::path& abs, const struct stat& st) {
    const FileId id{st.st_dev, st.st_ino};
    if (!dirs_.insert(id).second) return;  // reached before through another link: already walked
    ancestors_.insert(id);
    const std::size_t pushed = ignores_->push_dir(abs);

    std::vector<std::pair<std::string, fs::path>> entries;
    std::error_code ec;
    fs::directory_iterator it(path, fs::directory_options::none, ec);
    if (ec) {
      error(display_of(path), "cannot read folder (" + ec.message() + ")", true);
    } else {
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        entries.emplace_back(it->path().filename().string(), it->path());
        if (ec) break;
      }
      if (ec) error(display_of(path), "cannot read folder (" + ec.message() + ")", true);
    }
    std::sort(entries.begin(), entries.end());  // a stable order, whatever the file system returns

    // Entries are looked up in the open folder (one name each, not the whole path again).
    const int dir_fd = entries.empty() ? -1 : ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (const auto& [name, child] : entries) visit(name, child, abs / name, dir_fd);
    if (dir_fd >= 0) ::close(dir_fd);

    ignores_->pop(pushed);
    ancestors_.erase(id);
  }

  void visit(const std::string& name, const fs::path& child, const fs::path& abs, int dir_fd) {
    struct stat link_st{}, st{};
    const bool relative = dir_fd >= 0 && child.native().size() < PATH_MAX;
    if ((relative ? ::fstatat(dir_fd, name.c_str(), &link_st, AT_SYMLINK_NOFOLLOW) : ::lstat(child.c_str(), &link_st)) != 0) {
      // Vanished meanwhile (ENOENT) is no news; anything else (a path longer than PATH_MAX) is said.
      if (errno != ENOENT) error(display_of(child), "cannot access" + errno_suffix(errno) + "; skipped", false);
      return;
    }
    const bool is_link = S_ISLNK(link_st.st_mode);
    if (!is_link) st = link_st;  // only a link needs a second look
    else if (::stat(child.c_str(), &st) != 0) {
      const int err = errno;
      // Only links that could matter are reported: those named like a source file, or any link loop.
      if (is_link && err == ELOOP)
        error(display_of(child), "symbolic link loop; skipped", false);
      else if (is_link && language_of(child) && frontend_available(*language_of(child)))
        error(display_of(child), "dangling symbolic link (its target does not exist); skipped", false);
      return;
    }
    const bool is_dir = S_ISDIR(st.st_mode);
    if (is_dir) {
      if (is_skipped_dir_name(name) || is_virtualenv(child)) return;
      if (ignores_->ignored(abs, true) || (excluded_ && excluded_(abs, true))) return;
      if (ancestors_.count({st.st_dev, st.st_ino}) || above_.count({st.st_dev, st.st_ino})) {
        error(display_of(child), "symbolic link loop (points to a folder above it); skipped", false);
        return;
      }
      if (is_link && on_kernel_file_system(child)) {
        error(display_of(child), "symbolic link into /proc, /sys or another kernel file system; skipped", false);
        return;
      }
      walk(child, abs, st);
      return;
    }
    const auto lang = language_of(child);
    if (!lang || !frontend_available(*lang)) return;
    if (ignores_->ignored(abs, false) || (excluded_ && excluded_(abs, false))) return;
    if (!S_ISREG(st.st_mode)) {
      error(display_of(child), "not a regular file (a FIFO, socket or device); skipped", false);
      return;
    }
    add_file(child, display_of(child), *lang, false, st);
  }

  Discovery& out_;
  const ExcludeFn& excluded_;
  IgnoreStack* ignores_ = nullptr;
  std::set<FileId> files_;
  std::set<FileId> dirs_;
  std::set<FileId> ancestors_;
  std::set<FileId> above_;  // named folders and the folders above them
};

}  // namespace

Discovery discover(const std::vector<std::string>& paths, const ExcludeFn& excluded) {
  Discovery out;
  Walker walker(out, excluded);
  if (paths.empty()) {
    walker.add_named(".");
  } else {
    for (const std::string& p : paths) walker.add_named(p);
  }
  return out;
}

}  // namespace synclint::engine
