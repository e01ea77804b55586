backend "sqlite" {
  driver = "sqlite"
  path   = "data/split-${scale.name}.sqlite"
  setup  = [file("${local.sql}/schema.sql")]
}
