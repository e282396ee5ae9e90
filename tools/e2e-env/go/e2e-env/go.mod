// The program behind scripts/e2e-env: builds the environment's binaries (cached
// by source hash), makes its certificates and configuration, starts, watches and
// stops its processes. Standard library only.
module tfs-e2e/e2e-env

go 1.25.0
