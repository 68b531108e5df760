#pragma once
// A thin, RAII view of the MPI tools information interface (MPI_T) performance variables.

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace mpimon::mpi {

struct PvarInfo {
  int index = -1;
  std::string name, description;
  int verbosity = 0, var_class = 0, bind = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  bool readonly = false, continuous = false, atomic = false;
};

const char* pvar_class_name(int var_class);
const char* bind_name(int bind);
/// "MPI_T_ERR_INVALID_NAME" and the like, for reports.
std::string mpit_error_name(int code);

/// Every performance variable the library reports now; variables whose info cannot be read
/// (Open MPI keeps counting those of unloaded components) are returned with `index` set and the
/// error in `description`.
std::vector<PvarInfo> list_pvars(std::vector<int>* failures = nullptr);

/// Looks a variable up by name and class; on failure returns nullopt and the MPI_T error code.
std::optional<int> find_pvar(const std::string& name, int var_class, int* error = nullptr);

/// One session with handles bound to communicators; handles are freed, never stopped: stopping
/// any monitoring handle switches all monitoring off in Open MPI (docs/defects.md, stopping-one-handle-stops-all).
class PvarSession {
 public:
  PvarSession();
  ~PvarSession();
  PvarSession(const PvarSession&) = delete;
  PvarSession& operator=(const PvarSession&) = delete;

  /// Allocates and starts a handle of variable `index` bound to `comm`; returns its position.
  std::size_t start(int index, MPI_Comm comm);
  /// Reads a started handle as unsigned 64-bit values (`count` of them, per MPI_T).
  std::vector<std::uint64_t> read(std::size_t handle);
  /// start() and read() for a library inside a user's application, which must not abort the job:
  /// they return the MPI_T error code (MPI_SUCCESS: `handle` or `values` set).
  int try_start(int index, MPI_Comm comm, std::size_t& handle);
  int try_read(std::size_t handle, std::vector<std::uint64_t>& values);
  /// Stops one handle (in Open MPI this switches every monitoring counter off: docs/defects.md).
  void stop(std::size_t handle);
  /// Starts a stopped handle again (in Open MPI this switches every monitoring counter back on).
  void restart(std::size_t handle);

 private:
  struct Handle {
    MPI_T_pvar_handle handle;
    int count;
    MPI_Comm comm;  // the bound object must outlive the handle
  };
  MPI_T_pvar_session session_;
  std::deque<Handle> handles_;  // stable addresses: MPI_T is given &comm
};

}  // namespace mpimon::mpi
