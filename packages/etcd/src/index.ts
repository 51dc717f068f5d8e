// The etcd provider is being written (issue #10): nothing is exported yet.
export {};
