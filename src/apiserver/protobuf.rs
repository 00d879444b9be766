//! Kubernetes protobuf request bodies (being written).
