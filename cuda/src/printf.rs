//! Device `printf` (`vprintf`, which the driver supplies to kernels): the records a launch
//! leaves are formatted as CUDA formats them and written to the process's stdout when the
//! launch completes.
