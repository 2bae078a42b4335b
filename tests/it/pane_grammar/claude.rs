//! The claude approval box read from real captures (filled in by its issue 21 work).
