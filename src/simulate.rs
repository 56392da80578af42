//! TODO: simulate
