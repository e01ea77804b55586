# Added to examples/quickstart.hcl by TestImmutableReadersRefuseWrites:
# the SQLite backend's readers open the file immutable.
backend "sqlite" {
  readers = "immutable"
}
