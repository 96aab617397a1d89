#pragma once
// The shared bytecode cache: the .pyc files of the workers' Python libraries (torch, Triton,
// Inductor, the standard library), compiled once by a trusted process and read by every worker.
// Without it each worker's private PYTHONPYCACHEPREFIX (sandbox.cpp) started empty, so every
// worker compiled torch's and Inductor's sources again: on the H200 machine, whose Python
// environment ships no .pyc files, that was about 20 s of each job (docs/sandbox.md#bytecode).
//
// Trust: the fill only compiles (compileall executes nothing) the directories on the workers'
// sys.path, in a process of the controller with no candidate code; workers read the cache and
// cannot write it (Landlock; without Landlock the cache is off, as the extension cache is, since
// one candidate could then plant bytecode every later worker would run). Python checks each
// .pyc against its source's mtime and size, so an upgraded package is compiled afresh, in memory.
#include <filesystem>
#include <string>

namespace kbench {

struct BytecodeCacheFill {
  std::filesystem::path dir;
  bool ok = false;
  bool filled = false;  // work was done (else the stamp said the cache was already complete)
  double seconds = 0;
  std::string message;  // why not ok
};

class BytecodeCache {
 public:
  // $KBENCH_CACHE_DIR/pycache, else $XDG_CACHE_HOME/kbench/pycache, else ~/.cache/kbench/pycache.
  static std::filesystem::path default_dir();
  // KBENCH_BYTECODE_CACHE=off (or 0) turns it off.
  static bool enabled_by_environment();

  // Compiles every directory on `python`'s sys.path into `dir` unless the stamp left there by
  // the last fill for this interpreter still matches (the directories' and their entries'
  // mtimes: installing or upgrading a package changes one). Blocking; a few seconds to a
  // minute the first time, about 0.1 s after.
  static BytecodeCacheFill fill(const std::filesystem::path& dir, const std::string& python);

  // The process-wide cache, filled once at its first use (every later caller gets the same
  // outcome): what job launches give their workers.
  static const BytecodeCacheFill& shared();
};

}  // namespace kbench
