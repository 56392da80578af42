//! TODO: low
