#include "cli/runtime_process.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "util/error.h"

extern char** environ;

namespace vq::cli {
namespace {

using json = nlohmann::json;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The last lines of what the child wrote to stderr, for a message when it died.
std::string tail_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.size() > 2000) text = text.substr(text.size() - 2000);
  return text;
}

}  // namespace

RuntimeProcess::RuntimeProcess(const std::string& engine) {
  // A write to a runner that died must be an error we report, not a signal that ends the CLI.
  std::signal(SIGPIPE, SIG_IGN);
  // The child's stderr goes to a file in a private folder (mode 0700), read only when it dies.
  std::string templ = env_or("TMPDIR", "/tmp") + "/visualquant-runtime-XXXXXX";
  if (!mkdtemp(templ.data()))
    throw Error(ErrorCode::RuntimeFailure, "cannot make a private temporary folder in " + env_or("TMPDIR", "/tmp"));
  temp_dir_ = templ;
  stderr_path_ = temp_dir_ + "/runner-stderr.txt";

  const std::string node = env_or("VISUALQUANT_NODE", "node");
  const std::string runner = env_or("VISUALQUANT_RUNNER", std::string(VQ_SOURCE_DIR) + "/runtime/node/ort_runner.mjs");
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw Error(ErrorCode::RuntimeFailure, "cannot make pipes for the runtime");
#ifdef F_SETPIPE_SZ
  // Tensors of hundreds of megabytes come through these: 1 MiB pipes (Linux's default upper limit
  // for users) wake each side sixteen times less often than the 64 KiB default. Best effort.
  for (int fd : {in_pipe[1], out_pipe[1]}) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#endif
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  std::vector<std::string> argv_s = {node, runner, "--engine", engine};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, node.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  fcntl(to_child_, F_SETFD, FD_CLOEXEC);
  fcntl(from_child_, F_SETFD, FD_CLOEXEC);
  if (rc != 0)
    throw Error(ErrorCode::RuntimeFailure, "cannot start Node (" + node + "): " + std::strerror(rc) +
                                               "; scripts/bootstrap installs it, VISUALQUANT_NODE names another");
  pid_ = pid;
  const json hello = json::parse(read_header(), nullptr, false);
  if (!hello.is_object() || !hello.value("ok", false)) died("starting");
  engine_label_ = hello.value("engine", std::string("onnxruntime"));
}

RuntimeProcess::~RuntimeProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (!stderr_path_.empty()) unlink(stderr_path_.c_str());
  if (!temp_dir_.empty()) rmdir(temp_dir_.c_str());
}

void RuntimeProcess::died(const std::string& doing) {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  std::string tail = tail_of(stderr_path_);
  throw Error(ErrorCode::RuntimeFailure, "the ONNX Runtime process stopped while " + doing +
                                             (tail.empty() ? std::string() : ": " + printable(tail)) +
                                             " (npm dependencies: scripts/bootstrap installs onnxruntime-node)");
}

void RuntimeProcess::read_exact(std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = read(from_child_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) died("running");
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void RuntimeProcess::write_all(const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(to_child_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) died("receiving a request");
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

std::string RuntimeProcess::read_header() {
  std::uint8_t length_bytes[4];
  read_exact(length_bytes, 4);
  const std::uint32_t length = length_bytes[0] | (length_bytes[1] << 8) | (length_bytes[2] << 16) |
                               (static_cast<std::uint32_t>(length_bytes[3]) << 24);
  std::string header(length, '\0');
  read_exact(reinterpret_cast<std::uint8_t*>(header.data()), length);
  return header;
}

void RuntimeProcess::send(const RunRequest& r, const std::string& model_path, const std::vector<std::string>& external_files,
                          const std::vector<RunFeed>& feeds) {
  const std::vector<std::uint8_t>* model_bytes = r.model.get();
  const std::vector<std::uint8_t>& suffix = r.suffix;
  json request = {{"id", r.model_id},
                  {"new_model", r.new_model},
                  {"last_use", r.last_use},
                  {"model", model_path},
                  {"external", external_files},
                  {"model_bytes", model_bytes ? model_bytes->size() : 0},
                  {"weights_file", r.weights_file},
                  {"suffix", suffix.size()},
                  {"fetches", r.fetches}};
  json f = json::array();
  for (const RunFeed& t : feeds) f.push_back({{"name", t.name}, {"type", t.type->name}, {"dims", t.dims}, {"bytes", t.bytes.size}});
  request["feeds"] = f;
  const std::string header = request.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::uint32_t n = static_cast<std::uint32_t>(header.size());
  const std::uint8_t length[4] = {static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8),
                                  static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 24)};
  write_all(length, 4);
  write_all(reinterpret_cast<const std::uint8_t*>(header.data()), header.size());
  if (model_bytes) write_all(model_bytes->data(), model_bytes->size());
  write_all(suffix.data(), suffix.size());
  for (const RunFeed& t : feeds) write_all(t.bytes.data, t.bytes.size);
}

std::vector<HostTensor> RuntimeProcess::receive(const RunRequest& r) {
  const json reply = json::parse(read_header(), nullptr, false);
  if (!reply.is_object()) died("answering");
  if (!reply.value("ok", false))
    throw Error(ErrorCode::RuntimeFailure, "ONNX Runtime could not " +
                                               std::string(reply.value("stage", "") == "session" ? "load" : "run") +
                                               " " + r.model_label + ": " + printable(reply.value("error", std::string("unknown error"))));
  std::vector<HostTensor> outputs;
  for (const json& o : reply["outputs"]) {
    HostTensor t;
    t.name = o.value("name", "");
    t.type = element_type_named(o.value("type", ""));
    for (const json& d : o["dims"]) t.dims.push_back(d.get<std::int64_t>());
    t.bytes.resize(o.value("bytes", std::size_t{0}));
    read_exact(t.bytes.data(), t.bytes.size());
    if (!t.type) throw Error(ErrorCode::RuntimeFailure, "the runtime returned '" + printable(t.name) + "' of an unknown type");
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace vq::cli
