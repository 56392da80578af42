//! TODO: top
