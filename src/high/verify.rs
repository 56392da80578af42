//! TODO: verify
