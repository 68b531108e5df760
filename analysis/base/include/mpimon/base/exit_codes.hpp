#pragma once
// Every exit code of mpimon's commands, in one table: the constants the commands and the gates
// return, and the rows of docs/cli.md's exit-code table (the unit test unit.cli.ExitCodes checks
// that the page lists exactly these codes, each with its commands). The mapping of an error's kind
// to a code is cli/cli_support.cpp's exit_code_of.

#include <array>
#include <string_view>

namespace mpimon {

inline constexpr int kExitOk = 0;
/// Bad input or a failed operation (Error::Kind input, format, system).
inline constexpr int kExitFailure = 1;
/// A usage error (Error::Kind usage, Boost.Program_options).
inline constexpr int kExitUsage = 2;
/// mpimon gate: a confirmed regression in instructions, timing or both; rows it could not judge.
inline constexpr int kExitGateInstructions = 3;
inline constexpr int kExitGateTiming = 4;
inline constexpr int kExitGateBoth = 5;
inline constexpr int kExitGateRerecord = 6;
inline constexpr int kExitGateMissing = 7;
inline constexpr int kExitGateUnstable = 8;
/// mpimon bench app --fail-above: an overhead that may exceed the limit; one the interval leaves open.
inline constexpr int kExitAppGateAbove = 6;
inline constexpr int kExitAppGateInconclusive = 7;
/// A sweep (bench overhead, bench app, bench placement, the gate's timing) had launches that failed
/// (Error::Kind launch).
inline constexpr int kExitLaunchesFailed = 9;
/// Nothing was checked (what is tested is not in this MPI library): CTest's SKIP_RETURN_CODE.
inline constexpr int kExitNothingChecked = 77;

/// One row of the documented table: a code, the commands that return it ("" for every command),
/// and what it means in a few words.
struct ExitCodeRow {
  int code;
  std::string_view commands;
  std::string_view meaning;
};

inline constexpr std::array kExitCodes{
    ExitCodeRow{kExitOk, "", "success"},
    ExitCodeRow{kExitFailure, "", "bad input or a failed operation"},
    ExitCodeRow{kExitUsage, "", "usage error"},
    ExitCodeRow{kExitGateInstructions, "mpimon gate", "regression in instructions"},
    ExitCodeRow{kExitGateTiming, "mpimon gate", "confirmed regression in timing"},
    ExitCodeRow{kExitGateBoth, "mpimon gate", "both"},
    ExitCodeRow{kExitGateRerecord, "mpimon gate", "a baseline to re-record"},
    ExitCodeRow{kExitGateMissing, "mpimon gate", "operations missing"},
    ExitCodeRow{kExitGateUnstable, "mpimon gate", "unstable instruction counts"},
    ExitCodeRow{kExitAppGateAbove, "mpimon bench app --fail-above", "an overhead that may exceed the limit"},
    ExitCodeRow{kExitAppGateInconclusive, "mpimon bench app --fail-above", "an inconclusive overhead"},
    ExitCodeRow{kExitLaunchesFailed, "", "a sweep had launches that failed"},
    ExitCodeRow{kExitNothingChecked, "mpimon validate", "nothing was checked"},
};

}  // namespace mpimon
