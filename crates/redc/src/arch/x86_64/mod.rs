//! x86-64 kernels (MULX/ADX, AVX-512 IFMA), each behind runtime detection.
