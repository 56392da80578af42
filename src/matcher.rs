//! TODO: matcher
