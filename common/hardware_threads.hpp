#pragma once
// How many hardware threads this process may run on: what "all cores" means for the worker
// pools (threads = 0), the host series of the CUDA twins and the ask workers beside a GPU.

namespace tpeopt {

/// The CPUs of the process's affinity mask (a container's or taskset's limit), else
/// std::thread::hardware_concurrency(); at least 1.
unsigned usable_hardware_threads();

}  // namespace tpeopt
