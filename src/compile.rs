//! TODO: compile
