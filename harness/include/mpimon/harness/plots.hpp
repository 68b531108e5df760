#pragma once
// What `mpimon plot` and `mpimon report` do besides parsing and printing: the tables and checks
// behind the figures, and the runs of the Python scripts that draw them (docs/plots.md).

#include <chrono>
#include <string>
#include <vector>

#include "mpimon/base/scratch.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon::harness {

/// Debian's interpreter, which sees python3-matplotlib, rather than whatever python3 comes first.
std::string default_python();

/// A script of the data directory (scripts/NAME), or ENV_VARIABLE's value when it is set.
std::string plot_script(const std::string& name, const char* env_variable = nullptr);

/// Runs PYTHON SCRIPT ARGS... and returns its output. A failure (the script missing, or its exit
/// status not 0) is a system error naming the script, its exit code, what it needs (Debian's
/// python3-matplotlib and python3-h5py) and its output.
std::string run_plot_script(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                            std::chrono::seconds timeout);

/// DATA in a temporary file (TMPDIR/mpimon-TAG-XXXXXX, gone with it and on Ctrl-C) for a script
/// to read.
TemporaryFile script_input(const std::string& data, const std::string& tag);

/// "MPI_Bcast" for bcast, and so on.
std::string mpi_call_name(CollectiveOp op);

/// The table plot_heatmaps.py reads for `mpimon plot collective`: the point-to-point messages the
/// monitoring records for the call (E and I summed per pair) next to the PMPI-level view, as
/// "size N", two "panel NAME UNIT TITLE" lines and "cell PANEL SRC DST VALUE" lines, tab-separated.
std::string collective_heatmap_table(const CollectiveSpec& spec, Metric metric);

/// The figure's title: "MPI_Bcast, coll/tuned basic_linear, 3 processes, root 1, 8 B".
std::string collective_heatmap_title(const CollectiveSpec& spec);

/// Fig. 3 is the only figure of an application results file: an input error, in one message, when
/// INPUT (mpimon bench app) has no pairs of stencil launches with a communication share, or is
/// one of mpimon bench placement (arms other than off and on).
void require_stencil_pairs(const std::string& input);

/// The figure of a simulation's results file (mpimon simulate): every mapping's simulated time
/// beside its modelled cost, drawn by plot_placement_measured.py as `mpimon plot placement` draws
/// it; returns the figure's title ("mpimon simulate, np N, SimGrid ..."). An input error, in one
/// message, when a mapping was not simulated.
std::string simulated_figure_title(const std::string& input);

}  // namespace mpimon::harness
