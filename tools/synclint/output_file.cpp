#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace synclint::cli {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, int err) {
  throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(err));
}

bool write_all(int fd, std::string_view text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A FIFO, device or pipe: opened (blocking until a reader comes, as a shell redirection does) and written.
void write_in_place(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, errno);
  const bool ok = write_all(fd, text);
  const int err = errno;
  ::close(fd);
  if (!ok) fail(path, err);
}

// The descriptor a path names when it is one of this process's own (/dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N) and open; -1 otherwise. Writing to it keeps the shell's redirection (its offset, and
// appending for >>) instead of reopening or replacing what it points at.
int own_descriptor(const fs::path& path) {
  const std::string p = path.string();
  int fd = -1;
  if (p == "/dev/stdout") fd = 1;
  else if (p == "/dev/stderr") fd = 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"})
    if (p.starts_with(prefix) && p.size() > std::strlen(prefix) &&
        p.find_first_not_of("0123456789", std::strlen(prefix)) == std::string::npos && p.size() < std::strlen(prefix) + 9)
      fd = std::stoi(p.substr(std::strlen(prefix)));
  return fd >= 0 && ::fcntl(fd, F_GETFD) != -1 ? fd : -1;
}

// The file a chain of symbolic links ends at (relative targets resolved against the link's folder).
fs::path resolve_links(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) return path;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path;
}

void replace_atomically(const fs::path& path, std::string_view text, const struct stat* old) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string temp = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail(path, errno);
  bool ok = write_all(fd, text);
  int err = errno;
  mode_t mode;
  if (old != nullptr) {
    mode = old->st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);  // mkstemp makes 0600; a new file gets the usual mode
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(fd, mode);
  if (ok && ::fsync(fd) != 0) ok = false, err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && std::rename(temp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(temp.c_str());
    fail(path, err);
  }
}

}  // namespace

void write_output_file(const fs::path& path, std::string_view text) {
  if (const int fd = own_descriptor(path); fd >= 0) {
    if (!write_all(fd, text)) fail(path, errno);
    return;
  }
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, EISDIR);
    if (!S_ISREG(st.st_mode)) return write_in_place(path, text);
    return replace_atomically(resolve_links(path), text, &st);
  }
  if (errno != ENOENT) fail(path, errno);
  replace_atomically(resolve_links(path), text, nullptr);
}

void check_output_writable(const fs::path& path, const char* what) {
  auto refuse = [&](int err) {
    throw std::runtime_error(std::string("cannot write the ") + what + " to " + path.string() + ": " +
                             std::strerror(err) + " (checked before running the command)");
  };
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse(EISDIR);
    if (::access(path.c_str(), W_OK) != 0) refuse(errno);
    return;
  }
  if (errno != ENOENT) refuse(errno);
  const fs::path target = resolve_links(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (::access(dir.c_str(), W_OK | X_OK) != 0) refuse(errno);
}

}  // namespace synclint::cli
