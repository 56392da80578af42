//! TODO: exclude
