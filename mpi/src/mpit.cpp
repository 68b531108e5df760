#include "mpimon/mpi/mpit.hpp"

#include "mpimon/mpi/mpi_support.hpp"

namespace mpimon::mpi {

const char* pvar_class_name(int var_class) {
  switch (var_class) {
    case MPI_T_PVAR_CLASS_STATE:
      return "state";
    case MPI_T_PVAR_CLASS_LEVEL:
      return "level";
    case MPI_T_PVAR_CLASS_SIZE:
      return "size";
    case MPI_T_PVAR_CLASS_PERCENTAGE:
      return "percentage";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK:
      return "highwatermark";
    case MPI_T_PVAR_CLASS_LOWWATERMARK:
      return "lowwatermark";
    case MPI_T_PVAR_CLASS_COUNTER:
      return "counter";
    case MPI_T_PVAR_CLASS_AGGREGATE:
      return "aggregate";
    case MPI_T_PVAR_CLASS_TIMER:
      return "timer";
    case MPI_T_PVAR_CLASS_GENERIC:
      return "generic";
    default:
      return "?";
  }
}

const char* bind_name(int bind) {
  switch (bind) {
    case MPI_T_BIND_NO_OBJECT:
      return "none";
    case MPI_T_BIND_MPI_COMM:
      return "comm";
    case MPI_T_BIND_MPI_WIN:
      return "win";
    case MPI_T_BIND_MPI_FILE:
      return "file";
    case MPI_T_BIND_MPI_REQUEST:
      return "request";
    case MPI_T_BIND_MPI_GROUP:
      return "group";
    case MPI_T_BIND_MPI_DATATYPE:
      return "datatype";
    default:
      return "other";
  }
}

std::string mpit_error_name(int code) {
  switch (code) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS";
    case MPI_T_ERR_INVALID_INDEX:
      return "MPI_T_ERR_INVALID_INDEX";
    case MPI_T_ERR_INVALID_NAME:
      return "MPI_T_ERR_INVALID_NAME";
    case MPI_T_ERR_INVALID_HANDLE:
      return "MPI_T_ERR_INVALID_HANDLE";
    case MPI_T_ERR_INVALID_SESSION:
      return "MPI_T_ERR_INVALID_SESSION";
    case MPI_T_ERR_NOT_INITIALIZED:
      return "MPI_T_ERR_NOT_INITIALIZED";
    case MPI_T_ERR_PVAR_NO_STARTSTOP:
      return "MPI_T_ERR_PVAR_NO_STARTSTOP";
    case MPI_T_ERR_PVAR_NO_WRITE:
      return "MPI_T_ERR_PVAR_NO_WRITE";
    case MPI_T_ERR_INVALID:
      return "MPI_T_ERR_INVALID";
    default:
      return "MPI_T error " + std::to_string(code);
  }
}

std::vector<PvarInfo> list_pvars(std::vector<int>* failures) {
  int n = 0;
  check(MPI_T_pvar_get_num(&n), "MPI_T_pvar_get_num");
  std::vector<PvarInfo> out;
  for (int i = 0; i < n; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc;
    PvarInfo p;
    p.index = i;
    int readonly = 0, continuous = 0, atomic = 0;
    MPI_T_enum enumtype;
    int rc = MPI_T_pvar_get_info(i, name, &name_len, &p.verbosity, &p.var_class, &p.datatype, &enumtype, desc,
                                 &desc_len, &p.bind, &readonly, &continuous, &atomic);
    if (rc != MPI_SUCCESS) {
      if (failures) failures->push_back(i);
      continue;
    }
    p.name = name;
    p.description = desc;
    p.readonly = readonly != 0;
    p.continuous = continuous != 0;
    p.atomic = atomic != 0;
    out.push_back(p);
  }
  return out;
}

std::optional<int> find_pvar(const std::string& name, int var_class, int* error) {
  int index = -1;
  int rc = MPI_T_pvar_get_index(name.c_str(), var_class, &index);
  if (error) *error = rc;
  if (rc != MPI_SUCCESS) return std::nullopt;
  return index;
}

PvarSession::PvarSession() { check(MPI_T_pvar_session_create(&session_), "MPI_T_pvar_session_create"); }

PvarSession::~PvarSession() {
  for (auto& h : handles_) MPI_T_pvar_handle_free(session_, &h.handle);
  MPI_T_pvar_session_free(&session_);
}

std::size_t PvarSession::start(int index, MPI_Comm comm) {
  handles_.push_back({MPI_T_PVAR_HANDLE_NULL, 0, comm});
  Handle& h = handles_.back();
  // The bound object is passed by address, as MPI_T requires (Open MPI dereferences it).
  check(MPI_T_pvar_handle_alloc(session_, index, &h.comm, &h.handle, &h.count), "MPI_T_pvar_handle_alloc");
  check(MPI_T_pvar_start(session_, h.handle), "MPI_T_pvar_start");
  return handles_.size() - 1;
}

std::vector<std::uint64_t> PvarSession::read(std::size_t handle) {
  std::vector<std::uint64_t> values;
  check(try_read(handle, values), "MPI_T_pvar_read");
  return values;
}

int PvarSession::try_start(int index, MPI_Comm comm, std::size_t& handle) {
  handles_.push_back({MPI_T_PVAR_HANDLE_NULL, 0, comm});
  Handle& h = handles_.back();
  int rc = MPI_T_pvar_handle_alloc(session_, index, &h.comm, &h.handle, &h.count);
  if (rc == MPI_SUCCESS) rc = MPI_T_pvar_start(session_, h.handle);
  if (rc != MPI_SUCCESS) {
    if (h.handle != MPI_T_PVAR_HANDLE_NULL) MPI_T_pvar_handle_free(session_, &h.handle);
    handles_.pop_back();
    return rc;
  }
  handle = handles_.size() - 1;
  return MPI_SUCCESS;
}

int PvarSession::try_read(std::size_t handle, std::vector<std::uint64_t>& values) {
  Handle& h = handles_.at(handle);
  std::vector<unsigned long long> raw(static_cast<std::size_t>(h.count));
  const int rc = MPI_T_pvar_read(session_, h.handle, raw.data());
  if (rc == MPI_SUCCESS) values.assign(raw.begin(), raw.end());
  return rc;
}

void PvarSession::stop(std::size_t handle) {
  check(MPI_T_pvar_stop(session_, handles_.at(handle).handle), "MPI_T_pvar_stop");
}

void PvarSession::restart(std::size_t handle) {
  check(MPI_T_pvar_start(session_, handles_.at(handle).handle), "MPI_T_pvar_start");
}

}  // namespace mpimon::mpi
