#pragma once
// The bytes each rank sent each other in a simulation, read from SMPI's own Paje trace (written
// with tracing/smpi/display-sizes and tracing/smpi/internals): its header's event definitions, then
// one parser per event kind the count needs (containers, entity values, states pushed and popped,
// links started).

#include <cstdint>
#include <string>

#include "mpimon/matrices/matrix.hpp"

namespace mpimon::harness {

/// What each rank sent each other rank in a simulation: rank x rank matrices.
struct TraceTraffic {
  SparseMatrix bytes, messages;
};

/// The bytes each rank sent each other rank in an SMPI Paje trace written with
/// tracing/smpi/display-sizes and tracing/smpi/internals: every PTP link from its start (source
/// container, size) to its end (destination container), containers named rank-R. Throws
/// Error::Kind::format naming the file and line when the trace is not such a trace.
TraceTraffic read_trace_traffic(const std::string& path, std::uint32_t np);

}  // namespace mpimon::harness
