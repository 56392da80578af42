//! TODO: fileserver
