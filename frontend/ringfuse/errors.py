"""Errors the runtime raises that are not plain bad input (ValueError)."""


class OutOfDeviceMemory(MemoryError):
    """A GPU allocation did not fit, even after the runtime gave back the memory it
    held unused. The message says how much was needed and how much the GPU had.
    Nothing is lost: the process and every loaded program keep working once
    memory is freed (drop GPU ciphertexts, or run a smaller batch)."""
